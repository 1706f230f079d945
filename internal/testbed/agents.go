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

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// AgentComponent is the sharing agent of a member of a sharing testbed,
// as Down, status and logs name it: it runs from a link in the cluster's
// bin folder like kwokctl's components, so Down stops it with them.
const AgentComponent = "meridian-agent"

// meridianRun is how a meridian process of the testbed (an agent, the
// broker) was started, kept beside its log so that StartAgent and
// StartBroker start it again the same way.
type meridianRun struct {
	Binary string   `json:"binary"`
	Args   []string `json:"args"`
}

// runFile and componentKubeconfig are the run record and the kubeconfig
// of a meridian component of cluster.
func (l layout) runFile(cluster, component string) string {
	return filepath.Join(l.clusterDir(cluster), component+".json")
}

func (l layout) componentKubeconfig(cluster, component string) string {
	return filepath.Join(l.clusterDir(cluster), component+".kubeconfig")
}

// meridianBinary is binary, or the running executable when it is empty.
func meridianBinary(binary string) (string, error) {
	if binary != "" {
		return binary, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("failed to find the meridian binary: %w", err)
	}
	return exe, nil
}

// startAgent starts `meridian agent` for cluster c with binary (the
// running executable when empty), as the service account meridian-agent
// bound to the agent's generated ClusterRole, in SharingNamespace, without
// leader election (one replica), serving its virtual nodes' kubelet
// endpoint on loopback.
func startAgent(ctx context.Context, l layout, c *Cluster, cl client.Client, binary string, extra []string) error {
	binary, err := meridianBinary(binary)
	if err != nil {
		return err
	}
	identity, err := componentIdentity(ctx, c, cl, "agent")
	if err != nil {
		return err
	}
	kubeconfig := l.componentKubeconfig(c.Name, AgentComponent)
	if err := os.WriteFile(kubeconfig, identity, 0o600); err != nil {
		return fmt.Errorf("failed to write the agent kubeconfig of cluster %q: %w", c.Name, err)
	}
	args := append([]string{"agent",
		"--kubeconfig", kubeconfig,
		"--cluster-id", c.Name,
		"--namespace", SharingNamespace,
		"--leader-elect=false",
		"--metrics-bind-address", "0",
		"--health-probe-bind-address", "0",
		// The virtual nodes' kubelet endpoint, on a port of the moment:
		// the nodes advertise the one it got, also after a restart.
		"--kubelet-bind-address", kubeletAddress + ":0",
	}, extra...)
	return l.startMeridian(c.Name, AgentComponent, meridianRun{Binary: binary, Args: args})
}

// startMeridian records run and starts it (runMeridian).
func (l layout) startMeridian(cluster, component string, run meridianRun) error {
	data, err := json.Marshal(run)
	if err != nil {
		return err
	}
	if err := os.WriteFile(l.runFile(cluster, component), data, 0o600); err != nil {
		return fmt.Errorf("failed to record how %s of cluster %q runs: %w", component, cluster, err)
	}
	return l.runMeridian(cluster, component, run)
}

// runMeridian starts a meridian process of cluster through a link in the
// cluster's bin folder named after component (so that Down finds and
// stops it with kwokctl's components), in a session of its own, logging
// to the cluster's logs folder.
func (l layout) runMeridian(cluster, component string, run meridianRun) error {
	link := filepath.Join(l.clusterDir(cluster), "bin", component)
	_ = os.Remove(link)
	if err := os.Symlink(run.Binary, link); err != nil {
		return fmt.Errorf("failed to link %s of cluster %q: %w", component, cluster, err)
	}
	logf, err := os.OpenFile(l.componentLog(cluster, component), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("failed to open the log of %s of cluster %q: %w", component, cluster, err)
	}
	defer logf.Close()
	cmd := exec.Command(link, run.Args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("failed to start %s of cluster %q: %w", component, cluster, err)
	}
	if err := os.WriteFile(l.pidFile(cluster, component), []byte(fmt.Sprint(cmd.Process.Pid)), 0o600); err != nil {
		return fmt.Errorf("failed to record the pid of %s of cluster %q: %w", component, cluster, err)
	}
	// Reaped when it exits while this process runs; adopted by init once
	// `meridian testbed up` returns.
	go func() { _ = cmd.Wait() }()
	return nil
}

// KillAgent kills the sharing agent of a member of the testbed in dir, as
// a crash would (SIGKILL), and waits until it is gone.
func KillAgent(ctx context.Context, dir, cluster string) error {
	return layout{dir: dir}.killComponent(ctx, cluster, AgentComponent)
}

// killComponent kills component of cluster (one of kwokctl's or Meridian's
// own) with SIGKILL and waits until it is gone.
func (l layout) killComponent(ctx context.Context, cluster, component string) error {
	procs, err := l.processes()
	if err != nil {
		return err
	}
	procs = slices.DeleteFunc(procs, func(p Process) bool { return p.Cluster != cluster || p.Component != component })
	if len(procs) == 0 {
		return fmt.Errorf("cluster %q of the testbed in %s does not run %s", cluster, l.dir, component)
	}
	return killAndWait(ctx, procs, 10*time.Second)
}

// StartAgent starts the sharing agent of a member of the testbed in dir
// again, as it first ran.
func StartAgent(dir, cluster string) error {
	return layout{dir: dir}.restartMeridian(cluster, AgentComponent)
}

// restartMeridian starts component of cluster again as it first ran.
func (l layout) restartMeridian(cluster, component string) error {
	data, err := os.ReadFile(l.runFile(cluster, component))
	if err != nil {
		return fmt.Errorf("cluster %q of the testbed in %s never ran %s: %w", cluster, l.dir, component, err)
	}
	var run meridianRun
	if err := json.Unmarshal(data, &run); err != nil {
		return fmt.Errorf("failed to read how %s of cluster %q runs: %w", component, cluster, err)
	}
	return l.runMeridian(cluster, component, run)
}
