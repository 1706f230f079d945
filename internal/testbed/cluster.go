package testbed

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// startCluster runs the steps of one cluster: start its components, wait
// until it works, then create a member's nodes or install the management
// cluster's CRDs. Every error names the cluster.
func (s *starter) startCluster(ctx context.Context, cs *clusterState) (*credentials, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, s.o.Timeout,
		fmt.Errorf("not ready within the %v timeout", s.o.Timeout))
	defer cancel()

	sv := s.supervisor(cs)
	began := time.Now()
	if err := createCluster(ctx, s.l, cs, s.o.BinDir, s.kubectl, s.st.KubernetesVersion, sv.check); err != nil {
		return nil, s.clusterError(ctx, cs, "kube-apiserver", err)
	}
	s.progress.report(cs.Name, StepStart, began, fmt.Sprintf("%s on %s", strings.Join(cs.Role.Components(), ", "), cs.server()))

	cr, err := s.l.credentials(cs)
	if err != nil {
		return nil, err
	}
	c, err := s.client(cr)
	if err != nil {
		return nil, fmt.Errorf("cluster %q: %w", cs.Name, err)
	}

	began = time.Now()
	if err := s.waitAPIReady(ctx, sv, cr); err != nil {
		return nil, s.clusterError(ctx, cs, "kube-apiserver", err)
	}
	sv.apiReady()
	if err := s.waitServiceAccount(ctx, sv, c); err != nil {
		return nil, s.clusterError(ctx, cs, "kube-controller-manager", err)
	}
	s.progress.report(cs.Name, StepReady, began, "API server ready, controller manager working")

	began = time.Now()
	switch cs.Role {
	case RoleManagement:
		n, err := installCRDs(ctx, c)
		if err != nil {
			return nil, s.clusterError(ctx, cs, "kube-apiserver", err)
		}
		s.progress.report(cs.Name, StepCRDs, began, fmt.Sprintf("%d Meridian CRDs established", n))
	case RoleMember:
		if !cs.Added {
			m := s.profileCluster(cs.Name)
			if err := createNodes(ctx, c, nodes(s.o.Name, cs.Index, m)); err != nil {
				return nil, s.clusterError(ctx, cs, "kwok-controller", err)
			}
			pools := make([]string, len(m.Nodes))
			for i, p := range m.Nodes {
				pools[i] = p.String()
			}
			s.progress.report(cs.Name, StepNodes, began, fmt.Sprintf("%d nodes Ready (%s)", m.NodeCount(), strings.Join(pools, ", ")))
		}
		began = time.Now()
		if err := waitMetricsAPI(ctx, sv, cr); err != nil {
			return nil, s.clusterError(ctx, cs, MetricsServer, err)
		}
		s.progress.report(cs.Name, StepMetrics, began, fmt.Sprintf("metrics.k8s.io served by metrics-server, resolution %v", MetricResolution))
	}
	if err := poll(ctx, 100*time.Millisecond, func() (bool, error) {
		if err := sv.check(ctx); err != nil {
			return false, err
		}
		return sv.settled(settleAfterRestart), nil
	}); err != nil {
		return nil, s.clusterError(ctx, cs, "kube-apiserver", err)
	}
	return cr, nil
}

// settleAfterRestart is how long a component started again must keep
// running before its cluster counts as started.
const settleAfterRestart = 2 * time.Second

func (s *starter) profileCluster(name string) *ClusterProfile {
	for i := range s.o.Profile.Clusters {
		if s.o.Profile.Clusters[i].Name == name {
			return &s.o.Profile.Clusters[i]
		}
	}
	panic(fmt.Sprintf("cluster %q is not in profile %q", name, s.o.Profile.Name))
}

// supervisor returns the supervisor of one cluster's start, which
// restarts its components with kwokctl and reports each restart as a
// StepRestart.
func (s *starter) supervisor(cs *clusterState) *supervisor {
	policy := s.o.restarts
	if policy == (restartPolicy{}) {
		policy = defaultRestartPolicy
	}
	return &supervisor{
		l:       s.l,
		cluster: cs.Name,
		policy:  policy,
		clock:   clock.RealClock{},
		start: func(ctx context.Context) error {
			return startExited(ctx, s.l, cs.Name, s.o.BinDir, s.kubectl)
		},
		report: func(_ string, began time.Time, detail string) {
			s.progress.report(cs.Name, StepRestart, began, detail)
		},
	}
}

func (s *starter) client(cr *credentials) (client.Client, error) {
	return client.New(cr.restConfig(), client.Options{Scheme: Scheme()})
}

// clusterError turns a failed step into an error that names the cluster
// and shows the log of the component to blame: etcd or kube-apiserver if
// one of them died, else suspect, the component whose work the step
// waited for.
func (s *starter) clusterError(ctx context.Context, cs *clusterState, suspect string, err error) error {
	if ce, ok := errors.AsType[*ComponentError](err); ok {
		return ce
	}
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		err = cause
	} else if errors.Is(err, context.Canceled) {
		// Another cluster failed, or the user interrupted: say nothing more.
		return fmt.Errorf("cluster %q: %w", cs.Name, err)
	}
	component := suspect
	if dead := s.l.deadComponent(cs.Name); dead != "" && !restartable[dead] {
		component, err = dead, nil
	}
	return &ComponentError{Cluster: cs.Name, Component: component, Log: s.l.componentLog(cs.Name, component), Err: err}
}

// waitAPIReady waits until the API server's /readyz answers ok. kwokctl
// only waited for /version, which an API server serves before its
// post-start hooks (RBAC roles, priority classes) are done.
func (s *starter) waitAPIReady(ctx context.Context, sv *supervisor, cr *credentials) error {
	cs2, err := kubernetes.NewForConfig(cr.restConfig())
	if err != nil {
		return fmt.Errorf("failed to create a client: %w", err)
	}
	var last error
	err = poll(ctx, 100*time.Millisecond, func() (bool, error) {
		if err := sv.check(ctx); err != nil {
			return false, err
		}
		_, last = cs2.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		return last == nil, nil
	})
	if err != nil && last != nil && !isComponentError(err) {
		return fmt.Errorf("API server not ready (last answer: %w): %w", last, err)
	}
	return err
}

// waitServiceAccount waits for the default ServiceAccount, which
// kube-controller-manager creates: pods cannot be created before it exists,
// and its existence shows that the controllers run.
func (s *starter) waitServiceAccount(ctx context.Context, sv *supervisor, c client.Client) error {
	err := poll(ctx, 100*time.Millisecond, func() (bool, error) {
		if err := sv.check(ctx); err != nil {
			return false, err
		}
		err := c.Get(ctx, client.ObjectKey{Namespace: corev1.NamespaceDefault, Name: "default"}, &corev1.ServiceAccount{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil, nil
	})
	if err != nil && !isComponentError(err) {
		return fmt.Errorf("default ServiceAccount never created: %w", err)
	}
	return err
}

func isComponentError(err error) bool {
	_, ok := errors.AsType[*ComponentError](err)
	return ok
}
