package testbed

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// What kwok answers for the containers of the pods it runs, so that
// `kubectl logs`, `attach`, `exec` and `port-forward` work on a testbed
// pod as on a real node's (kwok's ClusterLogs, ClusterAttach, ClusterExec
// and ClusterPortForward, which kwokctl reads from its configuration
// file). Each cluster has a folder containers/<cluster> in the testbed's
// folder: every container's log is its ContainerLogFile
// (PreviousContainerLogFile for --previous), which attach follows too;
// exec runs the command on this machine, in its ExecDir (the testbed is
// the user's own loopback clusters); every port forwarded echoes what it
// receives (`cat`). The testbed writes one line naming the cluster into
// each log file at `up`; anything appended later (ContainerLogLine) shows
// in `kubectl logs -f`.
const (
	ContainerLogFile         = "containers.log"
	PreviousContainerLogFile = "containers-previous.log"
	ExecDir                  = "exec"
)

// ContainerLogLine is msg as one line of a container log file, in the
// CRI's log format that kwok reads (and a kubelet's container runtime
// writes): "<RFC 3339 time> stdout F <msg>".
func ContainerLogLine(at time.Time, msg string) string {
	return fmt.Sprintf("%s stdout F %s\n", at.UTC().Format(time.RFC3339Nano), msg)
}

// ContainerLog is the log file every container of cluster logs on the
// testbed in dir.
func ContainerLog(dir, cluster string) string {
	return filepath.Join(layout{dir: dir}.containersDir(cluster), ContainerLogFile)
}

// kwokDebugging is kwok's configuration of the containers' logs, attach,
// exec and port forwarding of cluster (see ContainerLogFile), written
// after the kwokctl configuration in its file.
func kwokDebugging(l layout, cluster string) []any {
	dir := l.containersDir(cluster)
	logs := filepath.Join(dir, ContainerLogFile)
	previous := filepath.Join(dir, PreviousContainerLogFile)
	follow := true
	kind := func(k string, spec any) map[string]any {
		return map[string]any{
			"apiVersion": "kwok.x-k8s.io/v1alpha1",
			"kind":       k,
			"metadata":   map[string]any{"name": "testbed"},
			"spec":       spec,
		}
	}
	return []any{
		kind("ClusterLogs", map[string]any{"logs": []any{map[string]any{"logsFile": logs, "previousLogsFile": previous, "follow": follow}}}),
		kind("ClusterAttach", map[string]any{"attaches": []any{map[string]any{"logsFile": logs}}}),
		kind("ClusterExec", map[string]any{"execs": []any{map[string]any{"local": map[string]any{"workDir": filepath.Join(dir, ExecDir)}}}}),
		kind("ClusterPortForward", map[string]any{"forwards": []any{map[string]any{"command": []string{"cat"}}}}),
	}
}

// writeContainerLogs makes cluster's container log files and exec folder,
// each log with a line naming the cluster; files already there are kept
// (a testbed started again).
func writeContainerLogs(l layout, cluster string) error {
	dir := l.containersDir(cluster)
	if err := os.MkdirAll(filepath.Join(dir, ExecDir), 0o700); err != nil {
		return fmt.Errorf("failed to create the exec folder of cluster %q: %w", cluster, err)
	}
	for _, name := range []string{ContainerLogFile, PreviousContainerLogFile} {
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if os.IsExist(err) {
			continue
		}
		if err != nil {
			return fmt.Errorf("failed to create the container log of cluster %q: %w", cluster, err)
		}
		_, err = fmt.Fprint(f, ContainerLogLine(time.Now(), fmt.Sprintf("container log of a pod on testbed cluster %s (%s)", cluster, name)))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("failed to write the container log of cluster %q: %w", cluster, err)
		}
	}
	return nil
}

// kubeletClientArgs make a cluster's API server reach kwok's kubelet
// endpoint, and a virtual node's, as a real cluster's does: with a client
// certificate (the administrator's, which kwokctl makes; kubeadm makes one
// for the purpose), and at the ExternalIP of testbed nodes first (their
// InternalIP is fictional, see kubeletAddress), then the InternalIP, which
// is all a virtual node has.
func kubeletClientArgs(pkiDir string) []kwokctlExtraArg {
	return []kwokctlExtraArg{
		{Key: "kubelet-client-certificate", Value: filepath.Join(pkiDir, "admin.crt")},
		{Key: "kubelet-client-key", Value: filepath.Join(pkiDir, "admin.key")},
		{Key: "kubelet-preferred-address-types", Value: "ExternalIP,InternalIP,Hostname"},
	}
}
