package testbed

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"
)

// ClusterSpec is a member cluster to add to a running testbed.
type ClusterSpec struct {
	// Name is the cluster's name: its folder, the suffix of its kubeconfig
	// context and the prefix of its nodes' names.
	Name string
	// Region and Zone label the nodes SetNodes creates
	// (topology.kubernetes.io); no label when empty.
	Region string
	Zone   string
	// SchedulerConfig, when set, is the KubeSchedulerConfiguration of the
	// cluster's kube-scheduler, without clientConnection (kwokctl adds it):
	// the cloud backend gives a cloud member one that packs pods.
	SchedulerConfig string
	// SchedulerBinary, when set, is the absolute path of the kube-scheduler
	// the cluster runs instead of the one in the binaries folder: an
	// out-of-tree build with more plugins (hack/scheduler-bin.sh), which
	// SchedulerConfig enables.
	SchedulerBinary string
	// Timeout bounds the start; DefaultTimeout when zero.
	Timeout time.Duration
}

// Validate reports every problem of the spec, naming the field.
func (s ClusterSpec) Validate() error {
	var errs []string
	if err := validateClusterName(s.Name); err != nil {
		errs = append(errs, "name: "+err.Error())
	}
	for _, kv := range [][2]string{{"region", s.Region}, {"zone", s.Zone}} {
		if kv[1] != "" && len(validation.IsDNS1123Label(kv[1])) > 0 {
			errs = append(errs, fmt.Sprintf("%s: %q must be lower-case letters, digits and '-'", kv[0], kv[1]))
		}
	}
	if s.SchedulerBinary != "" && !filepath.IsAbs(s.SchedulerBinary) {
		errs = append(errs, fmt.Sprintf("schedulerBinary: %q must be an absolute path", s.SchedulerBinary))
	}
	if s.Timeout < 0 {
		errs = append(errs, fmt.Sprintf("timeout: %v must not be negative", s.Timeout))
	}
	if len(errs) > 0 {
		return fmt.Errorf("invalid cluster spec: %s", strings.Join(errs, "; "))
	}
	return nil
}

// validateClusterName checks the name of a cluster to add, scale or
// remove: it becomes a folder name, so nothing but a DNS label passes.
func validateClusterName(name string) error {
	switch {
	case len(validation.IsDNS1123Label(name)) > 0:
		return fmt.Errorf("%q is not a valid cluster name: use lower-case letters, digits and '-', starting and ending with a letter or digit", name)
	case len(name) > MaxClusterNameLength:
		return fmt.Errorf("%q is longer than %d characters", name, MaxClusterNameLength)
	}
	return nil
}

// AddedCluster is a member that AddCluster started or found running.
type AddedCluster struct {
	*Cluster
	// Started is false when the cluster was already up and AddCluster
	// left it alone.
	Started bool
}

// AddCluster starts one more member cluster on the running testbed in
// dir, as Up starts a member (same binaries, ports chosen up front,
// metrics-server on) but with no nodes: SetNodes creates them. It records
// the cluster in testbed.json, adds its context to the testbed's
// kubeconfig and returns it with its own kubeconfig. It does not register
// the cluster in the management cluster: whoever added it joins it.
//
// AddCluster is idempotent: a cluster of that name that runs and answers
// is returned as it is; one that is half-started, failed or broken is
// stopped, wiped and started again. A name of the profile is refused
// (ErrProfileCluster).
//
// It waits for the testbed's lock and holds it until the cluster is up, a
// few seconds: calls from several goroutines or processes take turns.
// When the start fails, the cluster's processes are stopped and its logs
// kept until RemoveCluster or Down.
func AddCluster(ctx context.Context, dir string, spec ClusterSpec) (*AddedCluster, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if spec.Name == ManagementCluster {
		return nil, fmt.Errorf("%w: cannot add %q, it is every testbed's management cluster", ErrProfileCluster, spec.Name)
	}
	if spec.Timeout == 0 {
		spec.Timeout = DefaultTimeout
	}
	l, err := openLayout(dir)
	if err != nil {
		return nil, err
	}
	unlock, err := l.lockWait(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()

	st, err := l.readState()
	if err != nil {
		return nil, err
	}
	if st.Phase != PhaseUp {
		return nil, fmt.Errorf("cannot add cluster %q: testbed %q in %s is %s, not %s", spec.Name, st.Name, l.dir, st.Phase, PhaseUp)
	}
	if cs := st.cluster(spec.Name); cs != nil {
		if !cs.Added {
			return nil, fmt.Errorf("%w: cannot add %q to testbed %q, it is its %s", ErrProfileCluster, spec.Name, st.Name, clusterKind(cs))
		}
		if cs.Phase == PhaseUp && l.healthy(ctx, st, cs) {
			c, err := l.cluster(st, cs)
			if err != nil {
				return nil, err
			}
			return &AddedCluster{Cluster: c}, nil
		}
		if err := l.dropCluster(ctx, st, spec.Name); err != nil {
			return nil, fmt.Errorf("failed to clean up cluster %q before starting it again: %w", spec.Name, err)
		}
	}
	return l.addCluster(ctx, st, spec)
}

// addCluster starts a new member; the caller holds the lock.
func (l layout) addCluster(ctx context.Context, st *state, spec ClusterSpec) (*AddedCluster, error) {
	index, err := freeIndex(st)
	if err != nil {
		return nil, err
	}
	kubectl, err := kubectlPath(st.BinDir)
	if err != nil {
		return nil, err
	}
	ports, err := allocatePorts(RoleMember)
	if err != nil {
		return nil, err
	}
	st.Clusters = append(st.Clusters, clusterState{
		Name: spec.Name, Index: index, Role: RoleMember, Ports: ports[0],
		Region: spec.Region, Zone: spec.Zone, SchedulerConfig: spec.SchedulerConfig, SchedulerBinary: spec.SchedulerBinary, Added: true, Phase: PhaseStarting,
		// As the testbed's own clusters.
		KubeAPIQPS: st.Clusters[0].KubeAPIQPS, KubeAPIBurst: st.Clusters[0].KubeAPIBurst,
	})
	// Recorded before anything starts, so that Down and a later
	// AddCluster find the cluster even if this process dies half-way.
	if err := l.writeState(st); err != nil {
		return nil, err
	}
	s := &starter{
		l:        l,
		o:        Options{Name: st.Name, BinDir: st.BinDir, Timeout: spec.Timeout},
		st:       st,
		kubectl:  kubectl,
		progress: &progressFunc{},
	}
	_, err = s.startCluster(ctx, st.cluster(spec.Name))
	if err != nil {
		// Stop what started even when ctx was cancelled.
		stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		_, stopErr := l.stopCluster(stopCtx, spec.Name)
		stopped := "its processes are stopped"
		if stopErr != nil {
			stopped = "and stopping its processes failed too"
		}
		st.cluster(spec.Name).Phase = PhaseFailed
		return nil, errors.Join(
			fmt.Errorf("failed to add cluster %q to testbed %q (%s; logs are in %s until it is removed): %w",
				spec.Name, st.Name, stopped, l.clusterDir(spec.Name), err),
			stopErr,
			l.writeState(st),
		)
	}
	cs := st.cluster(spec.Name)
	cs.Phase = PhaseUp
	if err := l.writeState(st); err != nil {
		return nil, err
	}
	if err := l.writeKubeconfig(st); err != nil {
		return nil, err
	}
	c, err := l.cluster(st, cs)
	if err != nil {
		return nil, err
	}
	return &AddedCluster{Cluster: c, Started: true}, nil
}

// healthy reports whether every process of the cluster runs and its API
// server is ready.
func (l layout) healthy(ctx context.Context, st *state, cs *clusterState) bool {
	procs, err := l.processes()
	if err != nil {
		return false
	}
	running := map[[2]string]Process{}
	for _, p := range procs {
		running[[2]string{p.Cluster, p.Component}] = p
	}
	c := &ClusterStatus{}
	l.processStatus(st.Name, cs, running, c)
	l.probe(ctx, cs, c)
	return c.AliveCount() == len(c.Components) && c.APIError == ""
}

// freeIndex returns the smallest cluster index no cluster has: pod CIDRs
// and node addresses derive from it.
func freeIndex(st *state) (int, error) {
	used := map[int]bool{}
	for _, cs := range st.Clusters {
		used[cs.Index] = true
	}
	for i := 1; i <= maxMembers; i++ {
		if !used[i] {
			return i, nil
		}
	}
	return 0, fmt.Errorf("testbed %q has %d members, the most it supports", st.Name, maxMembers)
}

// clusterKind names what a cluster of the profile is, for errors.
func clusterKind(cs *clusterState) string {
	if cs.Role == RoleManagement {
		return "management cluster"
	}
	return "profile's member"
}

// openLayout returns the layout of the testbed folder dir.
func openLayout(dir string) (layout, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return layout{}, fmt.Errorf("failed to resolve testbed folder %q: %w", dir, err)
	}
	return layout{dir: abs}, nil
}
