package testbed

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"sigs.k8s.io/yaml"
)

// kwokctlConfiguration is the part of kwokctl's KwokctlConfiguration
// (config.kwok.x-k8s.io/v1alpha1) that Up sets. Everything is explicit:
// the runtime, because kwokctl otherwise looks for docker first; every
// binary, as an absolute path, because kwokctl otherwise downloads them;
// every port, including etcd's peer port, which has no flag.
type kwokctlConfiguration struct {
	APIVersion        string                  `json:"apiVersion"`
	Kind              string                  `json:"kind"`
	Options           kwokctlOptions          `json:"options"`
	ComponentsPatches []kwokctlComponentPatch `json:"componentsPatches,omitempty"`
}

type kwokctlComponentPatch struct {
	Name      string            `json:"name"`
	ExtraArgs []kwokctlExtraArg `json:"extraArgs"`
}

type kwokctlExtraArg struct {
	Key   string `json:"key"`
	Value string `json:"value"`
	// Override replaces the flag kwokctl sets instead of adding another.
	Override bool `json:"override,omitempty"`
}

// podCIDR is where the kwok controller of the index-th cluster (0 for the
// management cluster) takes pod IPs from: 10.<index>.0.1/16. kwok's
// default, 10.0.0.1/24, is the same in every cluster, so pod IPs would
// repeat across members; a node's spec.podCIDR cannot serve instead, since
// the API server wants it canonical (10.1.1.0/24) and kwok then starts at
// the network address.
func podCIDR(index int) string { return fmt.Sprintf("10.%d.0.1/16", index) }

type kwokctlOptions struct {
	Runtime                     string   `json:"runtime"`
	Components                  []string `json:"components"`
	BindAddress                 string   `json:"bindAddress"`
	KubeVersion                 string   `json:"kubeVersion,omitempty"`
	SecurePort                  bool     `json:"securePort"`
	QuietPull                   bool     `json:"quietPull"`
	CacheDir                    string   `json:"cacheDir"`
	EtcdBinary                  string   `json:"etcdBinary"`
	KubeApiserverBinary         string   `json:"kubeApiserverBinary"`
	KubeControllerManagerBinary string   `json:"kubeControllerManagerBinary"`
	KubeSchedulerBinary         string   `json:"kubeSchedulerBinary"`
	KwokControllerBinary        string   `json:"kwokControllerBinary"`
	MetricsServerBinary         string   `json:"metricsServerBinary,omitempty"`
	KubectlBinary               string   `json:"kubectlBinary,omitempty"`
	KubeApiserverPort           int      `json:"kubeApiserverPort"`
	EtcdPort                    int      `json:"etcdPort"`
	EtcdPeerPort                int      `json:"etcdPeerPort"`
	KubeControllerManagerPort   int      `json:"kubeControllerManagerPort"`
	KubeSchedulerPort           int      `json:"kubeSchedulerPort"`
	KwokControllerPort          int      `json:"kwokControllerPort"`
	MetricsServerPort           int      `json:"metricsServerPort,omitempty"`
	KubeSchedulerConfig         string   `json:"kubeSchedulerConfig,omitempty"`
}

func newKwokctlConfiguration(l layout, binDir, kubectl, kubeVersion string, cs *clusterState) *kwokctlConfiguration {
	p := cs.Ports
	bin := func(name string) string { return filepath.Join(binDir, name) }
	o := kwokctlOptions{
		Runtime:                     "binary",
		Components:                  cs.Role.Components(),
		BindAddress:                 "127.0.0.1",
		KubeVersion:                 kubeVersion,
		SecurePort:                  true,
		QuietPull:                   true,
		CacheDir:                    filepath.Join(l.kwokWorkdir(), "cache"),
		EtcdBinary:                  bin("etcd"),
		KubeApiserverBinary:         bin("kube-apiserver"),
		KubeControllerManagerBinary: bin("kube-controller-manager"),
		KubeSchedulerBinary:         bin("kube-scheduler"),
		KwokControllerBinary:        bin("kwok"),
		KubeApiserverPort:           p.KubeAPIServer,
		EtcdPort:                    p.Etcd,
		EtcdPeerPort:                p.EtcdPeer,
		KubeControllerManagerPort:   p.KubeControllerManager,
		KubeSchedulerPort:           p.KubeScheduler,
		KwokControllerPort:          p.KwokController,
	}
	if filepath.Dir(kubectl) == binDir {
		o.KubectlBinary = kubectl
	}
	patches := []kwokctlComponentPatch{{
		Name: "kwok-controller",
		ExtraArgs: []kwokctlExtraArg{
			{Key: "cidr", Value: podCIDR(cs.Index)},
			// Only the testbed's own nodes: a virtual node of Meridian's
			// sharing agent (package virtualnode) is the agent's, and
			// kwok would otherwise run the pods bound to it locally.
			{Key: "manage-all-nodes", Value: "false", Override: true},
			{Key: "manage-nodes-with-annotation-selector", Value: kwokNodeAnnotation + "=fake"},
		},
	}}
	// kube-controller-manager's client limits (Profile.ControllerManager).
	qps, burst := cs.KubeAPIQPS, cs.KubeAPIBurst
	if qps == 0 {
		qps, burst = DefaultKubeAPIQPS, DefaultKubeAPIBurst
	}
	kcm := []kwokctlExtraArg{{Key: "kube-api-qps", Value: strconv.Itoa(qps)}, {Key: "kube-api-burst", Value: strconv.Itoa(burst)}}
	if cs.Role == RoleManagement {
		kcm = append(kcm, kwokctlExtraArg{Key: "controllers", Value: ManagementControllers})
	}
	patches = append(patches, kwokctlComponentPatch{Name: "kube-controller-manager", ExtraArgs: kcm})
	if cs.SchedulerConfig != "" {
		o.KubeSchedulerConfig = l.schedulerConfig(cs.Name)
	}
	if cs.SchedulerBinary != "" {
		o.KubeSchedulerBinary = cs.SchedulerBinary
	}
	apiserver := kwokctlComponentPatch{Name: "kube-apiserver", ExtraArgs: kubeletClientArgs(l.pkiDir(cs.Name))}
	if cs.Role == RoleMember {
		o.MetricsServerBinary = bin(MetricsServer)
		o.MetricsServerPort = p.MetricsServer
		apiserver.ExtraArgs = append(apiserver.ExtraArgs, aggregationArgs(l.pkiDir(cs.Name))...)
		patches = append(patches, metricsServerPatch())
	}
	patches = append(patches, apiserver)
	return &kwokctlConfiguration{
		APIVersion:        "config.kwok.x-k8s.io/v1alpha1",
		Kind:              "KwokctlConfiguration",
		Options:           o,
		ComponentsPatches: patches,
	}
}

// ManagementControllers is the management cluster's
// kube-controller-manager --controllers: every default controller but those
// that run workloads, so that a plain manifest applied there is a template
// Meridian places and nothing runs it (docs/design/20261128-any-workload.md).
// Namespaces, garbage collection, ServiceAccounts and their tokens, quotas
// and the certificate controllers still run.
const ManagementControllers = "*,-deployment-controller,-replicaset-controller,-statefulset-controller,-daemonset-controller," +
	"-job-controller,-cronjob-controller,-replicationcontroller-controller,-horizontal-pod-autoscaler-controller," +
	"-disruption-controller,-ttl-after-finished-controller"

// kwokctlEnv is the environment kwokctl runs in: the caller's, without any
// KWOK_* variable (each overrides the configuration file: a KWOK_RUNTIME
// left in a shell would turn the binary runtime into docker), with
// KWOK_WORKDIR set to the testbed's, with kubectl's folder first on PATH,
// and with kubectl's cache (KUBECACHEDIR, ~/.kube/cache by default) in the
// testbed's folder too.
func kwokctlEnv(l layout, kubectl string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "KWOK_") || strings.HasPrefix(kv, "KUBECACHEDIR=") {
			continue
		}
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			kv = "PATH=" + filepath.Dir(kubectl) + string(os.PathListSeparator) + v
		}
		env = append(env, kv)
	}
	return append(env,
		"KWOK_WORKDIR="+l.kwokWorkdir(),
		"KUBECACHEDIR="+filepath.Join(l.kwokWorkdir(), "kube-cache"))
}

// createCluster runs `kwokctl create cluster` for one cluster and returns
// when kwokctl has started every component and the API server answers.
// While kwokctl works, check watches the components (supervisor.check):
// etcd or kube-apiserver exiting fails the cluster at once, instead of
// after kwokctl's two minutes of waiting for an API server that will
// never serve.
func createCluster(ctx context.Context, l layout, cs *clusterState, binDir, kubectl, kubeVersion string, check func(context.Context) error) error {
	cluster := cs.Name
	cfg := newKwokctlConfiguration(l, binDir, kubectl, kubeVersion, cs)
	data, err := yaml.Marshal(cfg)
	if err != nil {
		return fmt.Errorf("failed to encode kwokctl configuration: %w", err)
	}
	for _, obj := range kwokDebugging(l, cluster) {
		doc, err := yaml.Marshal(obj)
		if err != nil {
			return fmt.Errorf("failed to encode kwok configuration: %w", err)
		}
		data = append(append(data, "---\n"...), doc...)
	}
	if err := os.MkdirAll(filepath.Dir(l.kwokctlConfig(cluster)), 0o700); err != nil {
		return fmt.Errorf("failed to create kwokctl folder: %w", err)
	}
	if err := os.WriteFile(l.kwokctlConfig(cluster), data, 0o600); err != nil {
		return fmt.Errorf("failed to write kwokctl configuration: %w", err)
	}
	if err := writeContainerLogs(l, cluster); err != nil {
		return err
	}
	if cs.SchedulerConfig != "" {
		// kwokctl copies it and fills in the scheduler's kubeconfig.
		if err := os.WriteFile(l.schedulerConfig(cluster), []byte(cs.SchedulerConfig), 0o600); err != nil {
			return fmt.Errorf("failed to write kube-scheduler configuration: %w", err)
		}
	}
	logFile, err := os.Create(l.kwokctlLog(cluster))
	if err != nil {
		return fmt.Errorf("failed to create kwokctl log: %w", err)
	}
	defer func() { _ = logFile.Close() }()

	// --kubeconfig "" keeps kwokctl away from ~/.kube/config; Up writes its
	// own kubeconfig.
	cmd := kwokctlCommand(ctx, l, binDir, kubectl, logFile,
		"--name", cluster, "--config", l.kwokctlConfig(cluster),
		"create", "cluster", "--kubeconfig", "", "--timeout", "5m")
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("failed to run kwokctl: %w", err)
	}
	var waitErr error
	done := make(chan struct{})
	go func() { waitErr = cmd.Wait(); close(done) }()

	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-done:
			if err := waitErr; err != nil {
				if ctx.Err() != nil {
					// Killed because the start was cancelled or timed out.
					return context.Cause(ctx)
				}
				if err := check(ctx); err != nil {
					return err
				}
				return &ComponentError{Cluster: cluster, Component: "kwokctl", Log: l.kwokctlLog(cluster), Err: err}
			}
			return check(ctx)
		case <-tick.C:
			if err := check(ctx); err != nil {
				_ = cmd.Cancel()
				<-done
				return err
			}
		}
	}
}

// startExited runs `kwokctl start cluster`, which starts every component
// of the cluster whose process is gone, as `create cluster` did, and
// leaves the running ones alone. Its output follows create's in the
// cluster's kwokctl log.
func startExited(ctx context.Context, l layout, cluster, binDir, kubectl string) error {
	logFile, err := os.OpenFile(l.kwokctlLog(cluster), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("failed to open kwokctl log: %w", err)
	}
	defer func() { _ = logFile.Close() }()
	cmd := kwokctlCommand(ctx, l, binDir, kubectl, logFile, "--name", cluster, "start", "cluster")
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		return &ComponentError{Cluster: cluster, Component: "kwokctl", Log: l.kwokctlLog(cluster),
			Err: fmt.Errorf("failed to start exited components again: %w", err)}
	}
	return nil
}

// kwokctlCommand returns kwokctl with args, in kwokctlEnv, writing to log.
// kwokctl and the kubectl it runs share a process group, killed as one
// when ctx ends. The components are not in it: kwokctl gives each its own
// session, and Down finds them in /proc.
func kwokctlCommand(ctx context.Context, l layout, binDir, kubectl string, log *os.File, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, filepath.Join(binDir, "kwokctl"), args...)
	cmd.Env = kwokctlEnv(l, kubectl)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	return cmd
}

// deadComponent returns the first component (in start order) that kwokctl
// started and that is not alive any more, "" when there is none. A
// member's components are the most any cluster runs; those a cluster does
// not run have no pid file.
func (l layout) deadComponent(cluster string) string {
	for _, c := range RoleMember.Components() {
		if pid := l.readPID(cluster, c); pid != 0 && !alive(pid) {
			return c
		}
	}
	return ""
}
