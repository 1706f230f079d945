package testbed

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// Components are the processes of every testbed cluster in the order
// kwokctl starts them, named as kwokctl names their pid and log files.
// Members run MetricsServer too (Role.Components).
var Components = []string{
	"etcd",
	"kube-apiserver",
	"kube-controller-manager",
	"kube-scheduler",
	"kwok-controller",
}

// MetricsServer is the component that serves metrics.k8s.io on every
// member, from the usage kwok simulates (see UsageCPUAnnotation).
const MetricsServer = "metrics-server"

// Components returns the processes of a cluster of the role, in start
// order: Components, and MetricsServer for a member.
func (r Role) Components() []string {
	if r == RoleMember {
		return append(slices.Clip(Components), MetricsServer)
	}
	return Components
}

// layout names the files of a testbed under its folder.
type layout struct {
	dir string
}

// kwokWorkdir is KWOK_WORKDIR: kwokctl keeps its clusters (and its cache)
// under it instead of ~/.kwok.
func (l layout) kwokWorkdir() string { return filepath.Join(l.dir, "kwok") }

// clustersDir holds one folder per cluster, as kwokctl lays them out; every
// component runs from a link in its cluster's bin folder, which is how Down
// recognises the testbed's processes.
func (l layout) clustersDir() string { return filepath.Join(l.kwokWorkdir(), "clusters") }

func (l layout) clusterDir(cluster string) string { return filepath.Join(l.clustersDir(), cluster) }

func (l layout) pidFile(cluster, component string) string {
	return filepath.Join(l.clusterDir(cluster), "pids", component+".pid")
}

func (l layout) componentLog(cluster, component string) string {
	return filepath.Join(l.clusterDir(cluster), "logs", component+".log")
}

func (l layout) pkiDir(cluster string) string { return filepath.Join(l.clusterDir(cluster), "pki") }

// schedulerConfig is the KubeSchedulerConfiguration of a cluster with its
// own (ClusterSpec.SchedulerConfig), beside its kwokctl configuration.
func (l layout) schedulerConfig(cluster string) string {
	return filepath.Join(filepath.Dir(l.kwokctlConfig(cluster)), cluster+"-scheduler.yaml")
}

// kwokctlConfig is the KwokctlConfiguration Up writes for a cluster; it is
// outside the cluster's folder, which kwokctl owns.
func (l layout) kwokctlConfig(cluster string) string {
	return filepath.Join(l.dir, "kwokctl", cluster+".yaml")
}

// containersDir holds what kwok answers for the containers of a
// cluster's pods (ContainerLogFile, ExecDir); it is outside the cluster's
// folder, which kwokctl owns.
func (l layout) containersDir(cluster string) string {
	return filepath.Join(l.dir, "containers", cluster)
}

// kwokctlLog is kwokctl's own output while it creates a cluster.
func (l layout) kwokctlLog(cluster string) string {
	return filepath.Join(l.dir, "kwokctl", cluster+".log")
}

func (l layout) stateFile() string  { return filepath.Join(l.dir, "testbed.json") }
func (l layout) kubeconfig() string { return filepath.Join(l.dir, "kubeconfig") }
func (l layout) lockFile() string   { return filepath.Join(l.dir, ".lock") }

// DefaultDir is the folder of the testbed called name:
// $XDG_STATE_HOME/meridian/testbed/<name>, or
// ~/.local/state/meridian/testbed/<name> when XDG_STATE_HOME is unset.
func DefaultDir(name string) (string, error) {
	base := os.Getenv("XDG_STATE_HOME")
	if base == "" || !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("failed to find the state folder (set XDG_STATE_HOME or --dir): %w", err)
		}
		base = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(base, "meridian", "testbed", name), nil
}
