package testbed

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// startFake runs /bin/sh through a link at the path kwokctl would run a
// component from, in a session of its own as kwokctl does, and returns its
// pid. The test reaps it and kills whatever is left when it ends.
func startFake(t *testing.T, l layout, cluster, component, script string) int {
	t.Helper()
	link := filepath.Join(l.clusterDir(cluster), "bin", component)
	if err := os.MkdirAll(filepath.Dir(link), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/bin/sh", link); err != nil && !errors.Is(err, os.ErrExist) {
		t.Fatal(err)
	}
	cmd := exec.Command(link, "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
	})
	return cmd.Process.Pid
}

// startStray runs a process outside any testbed.
func startStray(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("/bin/sleep", "300")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
	})
	return cmd.Process.Pid
}

func waitForFile(t *testing.T, path string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		data, err := os.ReadFile(path)
		if err == nil && strings.HasSuffix(string(data), "\n") {
			return strings.TrimSpace(string(data))
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never written", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestStopProcesses(t *testing.T) {
	l := layout{dir: t.TempDir()}
	childFile := filepath.Join(l.dir, "child.pid")
	// A component with a child in its process group, and one without.
	// "; true" keeps the shell from exec'ing the last command, which would
	// change the process's path.
	leader := startFake(t, l, "c1", "kube-apiserver", "sleep 300 & echo $! > "+childFile+"; wait; true")
	other := startFake(t, l, "c2", "etcd", "sleep 300; true")
	stray := startStray(t)
	child, err := strconv.Atoi(waitForFile(t, childFile))
	if err != nil {
		t.Fatal(err)
	}

	type found struct {
		PID                int
		Cluster, Component string
	}
	list := func() []found {
		procs, err := l.processes()
		if err != nil {
			t.Fatal(err)
		}
		var out []found
		for _, p := range procs {
			out = append(out, found{p.PID, p.Cluster, p.Component})
		}
		sort.Slice(out, func(i, j int) bool { return out[i].Cluster < out[j].Cluster })
		return out
	}
	// A shell's child runs from the shell's path between fork and exec:
	// wait until both children have exec'd sleep.
	want := []found{{leader, "c1", "kube-apiserver"}, {other, "c2", "etcd"}}
	deadline := time.Now().Add(10 * time.Second)
	for {
		diff := cmp.Diff(want, list())
		if diff == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes of the testbed (-want +got):\n%s", diff)
		}
		time.Sleep(10 * time.Millisecond)
	}

	killed, err := l.stopProcesses(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(killed) != 2 {
		t.Errorf("stopProcesses killed %d processes, want 2", len(killed))
	}
	for _, tc := range []struct {
		name  string
		pid   int
		alive bool
	}{
		{"component", leader, false},
		{"component's child", child, false},
		{"other component", other, false},
		{"process outside the testbed", stray, true},
	} {
		if got := alive(tc.pid); got != tc.alive {
			t.Errorf("%s (pid %d): alive = %v, want %v", tc.name, tc.pid, got, tc.alive)
		}
	}
	if got := list(); len(got) != 0 {
		t.Errorf("processes left after stopProcesses: %v", got)
	}
}

func TestUpRefusesRunningTestbed(t *testing.T) {
	binDir := t.TempDir()
	for _, name := range Binaries {
		if err := os.WriteFile(filepath.Join(binDir, name), []byte("#!/bin/sh\nexit 1\n"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	l := layout{dir: t.TempDir()}
	startFake(t, l, "member-1", "kube-apiserver", "sleep 300; true")

	_, err := Up(t.Context(), Options{Dir: l.dir, BinDir: binDir})
	if !errors.Is(err, ErrAlreadyUp) {
		t.Fatalf("Up over a running testbed: error = %v, want ErrAlreadyUp", err)
	}
	if !strings.Contains(err.Error(), "clusters member-1") {
		t.Errorf("error does not name the running cluster: %v", err)
	}
}

func TestDownFolders(t *testing.T) {
	tests := []struct {
		name        string
		setup       func(dir string) error
		wantExisted bool
		wantErr     string
		wantKept    bool
	}{
		{
			name:  "missing folder",
			setup: func(string) error { return nil },
		},
		{
			name: "testbed folder",
			setup: func(dir string) error {
				if err := os.MkdirAll(filepath.Join(dir, "kwok", "clusters"), 0o700); err != nil {
					return err
				}
				return os.WriteFile(filepath.Join(dir, "testbed.json"), []byte("{}"), 0o600)
			},
			wantExisted: true,
		},
		{
			name: "foreign folder",
			setup: func(dir string) error {
				if err := os.MkdirAll(dir, 0o700); err != nil {
					return err
				}
				return os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o600)
			},
			wantErr:  "is not a testbed folder (it holds notes.txt)",
			wantKept: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "tb")
			if err := tc.setup(dir); err != nil {
				t.Fatal(err)
			}
			res, err := Down(t.Context(), dir)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Down error = %v, want one containing %q", err, tc.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			} else if res.Existed != tc.wantExisted {
				t.Errorf("Down existed = %v, want %v", res.Existed, tc.wantExisted)
			}
			_, statErr := os.Stat(dir)
			if kept := statErr == nil; kept != tc.wantKept {
				t.Errorf("folder kept = %v, want %v", kept, tc.wantKept)
			}
		})
	}
}
