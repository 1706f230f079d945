package testbed

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"time"
)

// AgentComponent is the sharing agent of a member of a sharing testbed,
// as Down, status and logs name it: it runs from a link in the cluster's
// bin folder like kwokctl's components, so Down stops it with them.
const AgentComponent = "meridian-agent"

// agentRun is how an agent was started, kept beside its log so that
// StartAgent starts it again the same way.
type agentRun struct {
	Binary string   `json:"binary"`
	Args   []string `json:"args"`
}

func (l layout) agentRunFile(cluster string) string {
	return filepath.Join(l.clusterDir(cluster), AgentComponent+".json")
}

func (l layout) agentKubeconfig(cluster string) string {
	return filepath.Join(l.clusterDir(cluster), AgentComponent+".kubeconfig")
}

// startAgent starts `meridian agent` for cluster c with binary (the
// running executable when empty), as its administrator, in
// SharingNamespace, without leader election (one replica).
func startAgent(l layout, c *Cluster, binary string, extra []string) error {
	if binary == "" {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("failed to find the meridian binary for the agents: %w", err)
		}
		binary = exe
	}
	if err := os.WriteFile(l.agentKubeconfig(c.Name), c.Kubeconfig, 0o600); err != nil {
		return fmt.Errorf("failed to write the agent kubeconfig of cluster %q: %w", c.Name, err)
	}
	args := append([]string{"agent",
		"--kubeconfig", l.agentKubeconfig(c.Name),
		"--cluster-id", c.Name,
		"--namespace", SharingNamespace,
		"--leader-elect=false",
		"--metrics-bind-address", "0",
		"--health-probe-bind-address", "0",
	}, extra...)
	run := agentRun{Binary: binary, Args: args}
	data, err := json.Marshal(run)
	if err != nil {
		return err
	}
	if err := os.WriteFile(l.agentRunFile(c.Name), data, 0o600); err != nil {
		return fmt.Errorf("failed to record how the agent of cluster %q runs: %w", c.Name, err)
	}
	return l.runAgent(c.Name, run)
}

// runAgent starts the agent process through its link, in a session of its
// own, logging to the cluster's logs folder.
func (l layout) runAgent(cluster string, run agentRun) error {
	link := filepath.Join(l.clusterDir(cluster), "bin", AgentComponent)
	_ = os.Remove(link)
	if err := os.Symlink(run.Binary, link); err != nil {
		return fmt.Errorf("failed to link the agent of cluster %q: %w", cluster, err)
	}
	logf, err := os.OpenFile(l.componentLog(cluster, AgentComponent), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("failed to open the agent log of cluster %q: %w", cluster, err)
	}
	defer logf.Close()
	cmd := exec.Command(link, run.Args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("failed to start the agent of cluster %q: %w", cluster, err)
	}
	if err := os.WriteFile(l.pidFile(cluster, AgentComponent), []byte(fmt.Sprint(cmd.Process.Pid)), 0o600); err != nil {
		return fmt.Errorf("failed to record the agent's pid of cluster %q: %w", cluster, err)
	}
	// Reaped when it exits while this process runs; adopted by init once
	// `meridian testbed up` returns.
	go func() { _ = cmd.Wait() }()
	return nil
}

// KillAgent kills the sharing agent of a member of the testbed in dir, as
// a crash would (SIGKILL), and waits until it is gone.
func KillAgent(ctx context.Context, dir, cluster string) error {
	l := layout{dir: dir}
	procs, err := l.processes()
	if err != nil {
		return err
	}
	procs = slices.DeleteFunc(procs, func(p Process) bool { return p.Cluster != cluster || p.Component != AgentComponent })
	if len(procs) == 0 {
		return fmt.Errorf("cluster %q of the testbed in %s runs no sharing agent", cluster, dir)
	}
	return killAndWait(ctx, procs, 10*time.Second)
}

// StartAgent starts the sharing agent of a member of the testbed in dir
// again, as it first ran.
func StartAgent(dir, cluster string) error {
	l := layout{dir: dir}
	data, err := os.ReadFile(l.agentRunFile(cluster))
	if err != nil {
		return fmt.Errorf("cluster %q of the testbed in %s has no sharing agent: %w", cluster, dir, err)
	}
	var run agentRun
	if err := json.Unmarshal(data, &run); err != nil {
		return fmt.Errorf("failed to read how the agent of cluster %q runs: %w", cluster, err)
	}
	return l.runAgent(cluster, run)
}
