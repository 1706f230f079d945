package testbed

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// DownResult says what Down did.
type DownResult struct {
	// Existed is false when there was no testbed folder: nothing to do.
	Existed bool
	// Stopped are the processes Down killed.
	Stopped []Process
}

// Down stops every process of the testbed in dir, checks that none is
// left, and removes the folder. A folder that does not exist is not an
// error: Down is idempotent.
func Down(ctx context.Context, dir string) (*DownResult, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("failed to resolve testbed folder: %w", err)
	}
	l := layout{dir: dir}
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return &DownResult{}, nil
	}
	if err := l.checkOwned(); err != nil {
		return nil, err
	}
	unlock, err := l.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()

	res := &DownResult{Existed: true}
	res.Stopped, err = l.stopProcesses(ctx)
	if err != nil {
		return res, fmt.Errorf("failed to stop the testbed in %s: %w", dir, err)
	}
	if err := os.RemoveAll(dir); err != nil {
		return res, fmt.Errorf("failed to remove testbed folder: %w", err)
	}
	return res, nil
}

// ownedEntries are the names a testbed folder may hold.
var ownedEntries = map[string]bool{
	"testbed.json": true, "testbed.json.tmp": true, ".lock": true,
	"kwok": true, "kwokctl": true, "kubeconfig": true, "kubeconfig.tmp": true, "containers": true,
}

// checkOwned refuses a folder that holds anything a testbed does not
// write, so that a mistaken --dir (a home folder, a repository) is never
// emptied by Up or removed by Down.
func (l layout) checkOwned() error {
	entries, err := os.ReadDir(l.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("failed to read testbed folder: %w", err)
	}
	var foreign []string
	for _, e := range entries {
		if !ownedEntries[e.Name()] {
			foreign = append(foreign, e.Name())
		}
	}
	if len(foreign) > 0 {
		if len(foreign) > 5 {
			foreign = append(foreign[:5], "...")
		}
		return fmt.Errorf("%s is not a testbed folder (it holds %s): choose an empty or new folder", l.dir, strings.Join(foreign, ", "))
	}
	return nil
}
