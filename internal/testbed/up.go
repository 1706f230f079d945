package testbed

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"
	"k8s.io/apimachinery/pkg/util/validation"
)

// DefaultTimeout bounds the start of each cluster.
const DefaultTimeout = 3 * time.Minute

// Options say which testbed to start and how.
type Options struct {
	// Name of the testbed; DefaultName when empty.
	Name string
	// Dir holds the testbed's state; DefaultDir(Name) when empty.
	Dir string
	// BinDir holds Binaries; FindBinDir() when empty.
	BinDir string
	// Profile lays out the members; Uniform with two members when nil.
	Profile *Profile
	// Timeout bounds the start of each cluster; DefaultTimeout when zero.
	Timeout time.Duration
	// Progress, when set, is called after every step of every cluster.
	Progress func(Progress)
	// MeridianBinary runs the sharing agents of a profile with Sharing,
	// and the latency probers; the running executable when empty.
	MeridianBinary string
	// Probes starts a latency prober (meridian probe) in every member and
	// the network that delays the probes by the profile's declared
	// latencies (network.go), so that the controller measures them.
	Probes bool

	// restarts bounds the restarts of a component that exits while its
	// cluster starts; defaultRestartPolicy when zero. Tests shorten it.
	restarts restartPolicy
}

func (o Options) complete() (Options, error) {
	if o.Name == "" {
		o.Name = DefaultName
	}
	if err := ValidateName(o.Name); err != nil {
		return o, err
	}
	if o.Dir == "" {
		dir, err := DefaultDir(o.Name)
		if err != nil {
			return o, err
		}
		o.Dir = dir
	}
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return o, fmt.Errorf("failed to resolve testbed folder %q: %w", o.Dir, err)
	}
	o.Dir = dir
	if o.BinDir == "" {
		if o.BinDir, err = FindBinDir(); err != nil {
			return o, err
		}
	}
	if o.BinDir, err = filepath.Abs(o.BinDir); err != nil {
		return o, fmt.Errorf("failed to resolve bin folder %q: %w", o.BinDir, err)
	}
	if err := CheckBinDir(o.BinDir); err != nil {
		return o, err
	}
	if o.Profile == nil {
		o.Profile = Uniform(UniformOptions{Clusters: 2})
	}
	if err := o.Profile.Validate(); err != nil {
		return o, fmt.Errorf("invalid profile %q: %w", o.Profile.Name, err)
	}
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	return o, nil
}

// ValidateName checks a testbed name: it becomes a folder name and the
// prefix of kubeconfig contexts.
func ValidateName(name string) error {
	if errs := validation.IsDNS1123Label(name); len(errs) > 0 || len(name) > MaxClusterNameLength {
		return fmt.Errorf("invalid testbed name %q: use at most %d lower-case letters, digits and '-', starting and ending with a letter or digit",
			name, MaxClusterNameLength)
	}
	return nil
}

// Up starts a testbed: the management cluster and the profile's members in
// parallel, their nodes, Meridian's CRDs and the members' registration;
// then it writes the kubeconfig. It refuses (ErrAlreadyUp) when processes
// of a testbed in the same folder are running; a folder left by a testbed
// whose processes are all gone (a failed start, a reboot) is cleaned and
// reused.
//
// When a step fails, Up kills every process it started before returning
// the error, which names the cluster and, for a component that failed,
// ends with the last lines of its log (ComponentError). The logs stay in
// the folder until Down.
func Up(ctx context.Context, o Options) (*Testbed, error) {
	o, err := o.complete()
	if err != nil {
		return nil, err
	}
	l := layout{dir: o.Dir}
	if err := l.checkOwned(); err != nil {
		return nil, err
	}
	unlock, err := l.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()

	if err := l.refuseIfRunning(); err != nil {
		return nil, err
	}
	if err := l.clean(); err != nil {
		return nil, err
	}
	kubectl, err := kubectlPath(o.BinDir)
	if err != nil {
		return nil, err
	}
	version, err := kubernetesVersion(ctx, o.BinDir)
	if err != nil {
		return nil, err
	}
	roles := []Role{RoleManagement}
	for range o.Profile.Clusters {
		roles = append(roles, RoleMember)
	}
	ports, err := allocatePorts(roles...)
	if err != nil {
		return nil, err
	}
	st := &state{
		Name:              o.Name,
		Profile:           o.Profile.Name,
		BinDir:            o.BinDir,
		KubernetesVersion: version,
		Phase:             PhaseStarting,
		StartedAt:         time.Now().UTC().Truncate(time.Second),
	}
	qps, burst := o.Profile.controllerManagerLimits()
	st.Clusters = append(st.Clusters, clusterState{Name: ManagementCluster, Role: RoleManagement, Ports: ports[0], KubeAPIQPS: qps, KubeAPIBurst: burst})
	for i, m := range o.Profile.Clusters {
		st.Clusters = append(st.Clusters, clusterState{
			Name: m.Name, Index: i + 1, Role: RoleMember, Ports: ports[i+1], Nodes: m.NodeCount(),
			Region: m.Region, Zone: m.Zone, KubeAPIQPS: qps, KubeAPIBurst: burst,
		})
	}
	// Written before anything starts, so that Down finds the testbed even
	// if this process dies half-way.
	if err := l.writeState(st); err != nil {
		return nil, err
	}

	s := &starter{l: l, o: o, st: st, kubectl: kubectl, progress: &progressFunc{f: o.Progress}}
	tb, err := s.run(ctx)
	if err != nil {
		// Stop what started even when ctx was cancelled (an interrupt).
		stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		_, stopErr := l.stopProcesses(stopCtx)
		stopped := "every process it started is stopped"
		if stopErr != nil {
			stopped = "and stopping its processes failed too"
		}
		st.Phase = PhaseFailed
		return nil, errors.Join(
			fmt.Errorf("failed to start testbed %q (%s; logs are in %s until 'down'): %w", o.Name, stopped, l.clustersDir(), err),
			stopErr,
			l.writeState(st),
		)
	}
	st.Phase = PhaseUp
	if err := l.writeState(st); err != nil {
		return nil, err
	}
	return tb, nil
}

// refuseIfRunning returns ErrAlreadyUp when processes of the folder's
// testbed are alive.
func (l layout) refuseIfRunning() error {
	procs, err := l.processes()
	if err != nil {
		return err
	}
	if len(procs) == 0 {
		return nil
	}
	clusters := map[string]bool{}
	for _, p := range procs {
		clusters[p.Cluster] = true
	}
	what := "the testbed"
	if st, err := l.readState(); err == nil {
		what = fmt.Sprintf("%q", st.Name)
	}
	return fmt.Errorf("%w: %s in %s has %d processes running (clusters %s)",
		ErrAlreadyUp, what, l.dir, len(procs), strings.Join(sortedKeys(clusters), ", "))
}

// starter starts the clusters of one Up.
type starter struct {
	l        layout
	o        Options
	st       *state
	kubectl  string
	progress *progressFunc
}

func (s *starter) run(ctx context.Context) (*Testbed, error) {
	creds := make([]*credentials, len(s.st.Clusters))
	g, gctx := errgroup.WithContext(ctx)
	for i := range s.st.Clusters {
		g.Go(func() error {
			cr, err := s.startCluster(gctx, &s.st.Clusters[i])
			creds[i] = cr
			return err
		})
	}
	if err := g.Wait(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("interrupted: %w", context.Cause(ctx))
		}
		return nil, err
	}

	began := time.Now()
	members := map[string][]byte{}
	for i, cs := range s.st.Clusters {
		if cs.Role != RoleMember {
			continue
		}
		kc, err := buildKubeconfig(kubeconfigContext{Name: cs.Name, credentials: creds[i]})
		if err != nil {
			return nil, err
		}
		members[cs.Name] = kc
	}
	mgmt, err := s.client(creds[0])
	if err != nil {
		return nil, err
	}
	if err := register(ctx, mgmt, s.o.Name, s.o.Profile, members); err != nil {
		return nil, fmt.Errorf("cluster %q: %w", ManagementCluster, err)
	}
	var names []string
	for _, m := range s.o.Profile.Clusters {
		names = append(names, m.Name)
	}
	s.progress.report(ManagementCluster, StepRegister, began,
		fmt.Sprintf("%d Clusters (%s) with kubeconfig Secrets in %s", len(members), strings.Join(names, ", "), Namespace))

	if err := s.l.writeKubeconfig(s.st); err != nil {
		return nil, err
	}
	tb, err := s.l.testbed(s.st)
	if err != nil {
		return nil, err
	}
	if s.o.Probes {
		if err := startProbes(ctx, s.l, tb, s.st, s.o.Profile, s.o.MeridianBinary, s.progress); err != nil {
			return nil, err
		}
	}
	if s.o.Profile.Sharing == nil {
		return tb, nil
	}
	return tb, startSharing(ctx, s.l, tb, s.o.Profile, s.o.MeridianBinary, s.progress)
}
