package testbed

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/meridian-dev/meridian/internal/procfs"
)

// Process is a running component of a testbed, as found in /proc.
type Process struct {
	PID       int
	Cluster   string
	Component string
	// RSSBytes is the resident memory of the process, counting in full the
	// pages it shares with other processes (the program text of another
	// cluster's same component).
	RSSBytes int64
	// PSSBytes is the process's proportional share of its resident memory:
	// shared pages divided among the processes sharing them, so that the
	// PSS of all processes adds up to the memory they take together.
	PSSBytes int64

	pgid int
}

// procInfo is what /proc says of one process.
type procInfo struct {
	state byte // R, S, D, Z, ...
	pgid  int
	argv0 string
}

// readProc reads /proc/<pid>; ok is false when the process does not exist
// (any more) or cannot be read.
func readProc(pid int) (procInfo, bool) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procInfo{}, false
	}
	// "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses,
	// so the fields start after the last ')'.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return procInfo{}, false
	}
	fields := strings.Fields(string(stat[i+1:]))
	if len(fields) < 3 {
		return procInfo{}, false
	}
	pgid, _ := strconv.Atoi(fields[2])
	info := procInfo{state: fields[0][0], pgid: pgid}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err == nil {
		info.argv0, _, _ = strings.Cut(string(cmdline), "\x00")
	}
	return info, true
}

// alive reports whether pid is a process that has not exited. A zombie has
// exited: it only waits for its parent (kwokctl's components are reparented
// to init, which reaps them when it gets to it).
func alive(pid int) bool {
	info, ok := readProc(pid)
	return ok && info.state != 'Z' && info.state != 'X'
}

// memoryBytes returns the resident and proportional memory of pid, 0 when
// unknown.
func memoryBytes(pid int) (rss, pss int64) {
	status, _ := procfs.Memory(procfs.StatusPath(pid), "VmRSS")
	smaps, _ := procfs.Memory(procfs.SmapsRollupPath(pid), "Pss")
	return status["VmRSS"], smaps["Pss"]
}

// processes returns the live processes that run a program from the
// testbed's folder. kwokctl execs every component through a link
// <clusters>/<cluster>/bin/<component>, so the path a process was started
// with says which testbed, cluster and component it is, with no pid file
// needed and no risk of taking a reused pid for a component.
func (l layout) processes() ([]Process, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("failed to list processes: %w", err)
	}
	prefix := l.clustersDir() + string(filepath.Separator)
	var out []Process
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		info, ok := readProc(pid)
		if !ok || info.state == 'Z' || info.state == 'X' || !strings.HasPrefix(info.argv0, prefix) {
			continue
		}
		// <cluster>/bin/<component>
		parts := strings.Split(strings.TrimPrefix(info.argv0, prefix), string(filepath.Separator))
		p := Process{PID: pid, pgid: info.pgid}
		p.RSSBytes, p.PSSBytes = memoryBytes(pid)
		if len(parts) == 3 && parts[1] == "bin" {
			p.Cluster, p.Component = parts[0], parts[2]
		}
		out = append(out, p)
	}
	return out, nil
}

// killAndWait kills every process, with its process group when it leads
// one (kwokctl starts each component in a session of its own), and waits
// until none is alive. It fails, naming the survivors, when some are still
// alive at the deadline.
func killAndWait(ctx context.Context, procs []Process, timeout time.Duration) error {
	for _, p := range procs {
		target := p.PID
		if p.pgid == p.PID {
			target = -p.PID
		}
		if err := syscall.Kill(target, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
			return fmt.Errorf("failed to kill %s of cluster %q (pid %d): %w", p.Component, p.Cluster, p.PID, err)
		}
	}
	deadline := time.Now().Add(timeout)
	for {
		var left []string
		for _, p := range procs {
			if alive(p.PID) {
				left = append(left, fmt.Sprintf("%s/%s (pid %d)", p.Cluster, p.Component, p.PID))
			}
			if p.pgid == p.PID {
				// The group was killed: its other members (a component's
				// children) must be gone too, which the kernel does not
				// finish at once under load.
				for _, pid := range groupMembers(p.PID) {
					left = append(left, fmt.Sprintf("a child of %s/%s (pid %d)", p.Cluster, p.Component, pid))
				}
			}
		}
		if len(left) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("processes still alive %v after SIGKILL: %s", timeout, strings.Join(left, ", "))
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("stopped waiting for %s to exit: %w", strings.Join(left, ", "), ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// groupMembers returns the processes of the process group pgid, other than
// its leader, that have not exited.
func groupMembers(pgid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == pgid {
			continue
		}
		if info, ok := readProc(pid); ok && info.pgid == pgid && info.state != 'Z' && info.state != 'X' {
			out = append(out, pid)
		}
	}
	return out
}

// stopProcesses kills every process of the testbed and waits until none
// is left; it returns the processes it killed.
func (l layout) stopProcesses(ctx context.Context) ([]Process, error) {
	return l.stopCluster(ctx, "")
}

// stopCluster kills every process of one cluster of the testbed, of every
// cluster when cluster is "", and waits until none is left; it returns the
// processes it killed.
func (l layout) stopCluster(ctx context.Context, cluster string) ([]Process, error) {
	// Two passes: a process that was being started while the first pass
	// listed /proc (a component kwokctl was forking when Up failed) is
	// found by the second.
	var killed []Process
	for range 2 {
		all, err := l.processes()
		if err != nil {
			return killed, err
		}
		procs := all
		if cluster != "" {
			procs = slices.DeleteFunc(all, func(p Process) bool { return p.Cluster != cluster })
		}
		if len(procs) == 0 {
			break
		}
		if err := killAndWait(ctx, procs, 10*time.Second); err != nil {
			return killed, err
		}
		killed = append(killed, procs...)
	}
	return killed, nil
}

// readPID returns the pid kwokctl recorded for a component, 0 if none.
func (l layout) readPID(cluster, component string) int {
	data, err := os.ReadFile(l.pidFile(cluster, component))
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		return 0
	}
	return pid
}

// KillComponent kills one component of a cluster of the testbed in dir
// (kube-apiserver, etcd, ...) with SIGKILL, as a crash would, and waits
// until it is gone. Nothing starts it again: StartExited does.
func KillComponent(ctx context.Context, dir, cluster, component string) error {
	return layout{dir: dir}.killComponent(ctx, cluster, component)
}

// StartExited starts again every component of a cluster of the testbed in
// dir whose process is gone, as a kubelet restarts its static pods
// (`kwokctl start cluster`), and leaves the running ones alone. It returns
// once they are started, not once they serve.
func StartExited(ctx context.Context, dir, cluster string) error {
	l, st, err := readStateIn(dir)
	if err != nil {
		return err
	}
	if _, err := st.find(cluster); err != nil {
		return err
	}
	kubectl, err := kubectlPath(st.BinDir)
	if err != nil {
		return err
	}
	return startExited(ctx, l, cluster, st.BinDir, kubectl)
}
