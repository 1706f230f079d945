package doccheck

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// commandTimeout bounds one command of a page. Marked commands take seconds;
// the bound is for a cold build of `go run` on a busy machine.
const commandTimeout = 10 * time.Minute

// TestDocs runs every runnable block of the README and docs/*.md and
// compares each command's output with what the page shows.
func TestDocs(t *testing.T) {
	root := repoRoot(t)
	pages := docPages(t, root)
	runnable := 0
	for _, page := range pages {
		src, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := Parse(page, src)
		if err != nil {
			t.Error(err)
			continue
		}
		for _, b := range blocks {
			runnable++
			t.Run(fmt.Sprintf("%s:%d", b.File, b.Line), func(t *testing.T) {
				for _, c := range b.Commands {
					stdout, stderr, err := run(t.Context(), root, c.Text)
					if err != nil {
						t.Fatalf("%s:%d: %s: %v\nstdout:\n%s\nstderr:\n%s", b.File, c.Line, c.Text, err, stdout, stderr)
					}
					if !c.Compare {
						continue
					}
					if err := Match(c.Want, stdout); err != nil {
						t.Errorf("%s:%d: %s: the page is stale: %v", b.File, c.Line, c.Text, err)
					}
				}
			})
		}
	}
	if runnable == 0 {
		t.Errorf("no page has a block marked %q; the README's first command should be one", Marker)
	}
}

// TestLinks checks that every relative link of the README and docs/ leads
// to a file or folder of the repository.
func TestLinks(t *testing.T) {
	root := repoRoot(t)
	for _, page := range docPages(t, root) {
		src, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range Links(src) {
			target := filepath.Join(root, filepath.Dir(page), filepath.FromSlash(l.Target))
			if _, err := os.Stat(target); err != nil {
				t.Errorf("%s:%d: link %q leads nowhere: %v", page, l.Line, l.Target, err)
			}
		}
	}
}

// run runs command with bash from dir and returns what it printed. The
// command gets the test's environment without make's variables, as from a
// reader's shell: under `make test` a nested make would otherwise announce
// the directories it enters.
func run(ctx context.Context, dir, command string) (stdout, stderr string, err error) {
	ctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-o", "pipefail", "-c", command)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		switch name, _, _ := strings.Cut(kv, "="); name {
		case "MAKELEVEL", "MAKEFLAGS", "MFLAGS", "MAKEOVERRIDES":
		default:
			cmd.Env = append(cmd.Env, kv)
		}
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	return out.String(), errOut.String(), err
}

// repoRoot is the repository's root: the folder with go.mod above this
// package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("the repository's root should be two folders up: %v", err)
	}
	return root
}

// docPages are the README and every page under docs/, relative to root.
func docPages(t *testing.T, root string) []string {
	t.Helper()
	pages := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".md" {
			return err
		}
		rel, err := filepath.Rel(root, path)
		pages = append(pages, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return pages
}
