package testbed

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
)

// logTailLines is how many lines of a failing component's log an error
// shows.
const logTailLines = 20

// ComponentError is a cluster that failed to start because one of its
// components (or kwokctl itself) failed. Its message says why a component
// exited, as its log ends (exitReason: a panic's message is not its last
// line, and a command-line program prints its usage after the error), and
// ends with the last lines of that log.
type ComponentError struct {
	Cluster   string
	Component string
	// Log is the path of the component's log.
	Log string
	// Err is what failed, when more is known than that the process died.
	Err error
	// Restarts is how many times the component was started again before
	// it exited for the last time.
	Restarts int
}

func (e *ComponentError) Error() string {
	var b strings.Builder
	switch {
	case e.Err != nil:
		fmt.Fprintf(&b, "cluster %q: %s: %v; last lines of %s:\n", e.Cluster, e.Component, e.Err, e.Log)
	case e.Restarts > 0:
		fmt.Fprintf(&b, "cluster %q: %s exited, and again after each of its %d restarts (%s); last lines of %s:\n",
			e.Cluster, e.Component, e.Restarts, exitReason(e.Log), e.Log)
	default:
		fmt.Fprintf(&b, "cluster %q: %s exited (%s); last lines of %s:\n", e.Cluster, e.Component, exitReason(e.Log), e.Log)
	}
	tail, err := tailFile(e.Log, logTailLines)
	switch {
	case err != nil:
		fmt.Fprintf(&b, "    (cannot read the log: %v)\n", err)
	case len(tail) == 0:
		b.WriteString("    (the log is empty)\n")
	}
	for _, line := range tail {
		fmt.Fprintf(&b, "    %s\n", line)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func (e *ComponentError) Unwrap() error { return e.Err }

// tailFile returns the last n lines of a file, reading at most its last
// 64 KiB (component logs grow large; lines longer than that are cut).
func tailFile(path string, n int) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	const window = 64 << 10
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	off := max(st.Size()-window, 0)
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	if off > 0 {
		// The first line is likely cut.
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		}
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) == 1 && lines[0] == "" {
		return nil, nil
	}
	return lines[max(len(lines)-n, 0):], nil
}
