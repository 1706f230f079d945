package multiclusterdeployment

import (
	"context"
	"fmt"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/decide"
	"github.com/meridian-dev/meridian/internal/inventory"
	"github.com/meridian-dev/meridian/internal/propagation"
)

// member is what one member cluster shows of a MultiClusterDeployment:
// what the decision reads, and what the writes need.
type member struct {
	decide.Member
	name string
	// client is nil when the inventory has no connection to the member;
	// reader reads its API server directly.
	client client.Client
	reader client.Reader
	// object is the member workload Meridian made, or nil.
	object client.Object
	// current are the member workload's pods (status.replicas).
	current   int32
	available int32
	// updated are the member workload's replicas of its current template.
	updated int32
}

// observe reads, from the inventory's caches, what every known member holds
// of mcd. A member that is known but not connected is reported with the
// replicas the last decision gave it.
func (r *Reconciler) observe(ctx context.Context, s *Subject) (map[string]*member, error) {
	mcd := s.MCD
	readiness := r.Inventory.Readiness()
	out := make(map[string]*member, len(readiness))
	for name, ready := range readiness {
		m := &member{name: name}
		m.Ready = ready
		if since, ok := r.Inventory.NotReadySince(name); ok {
			m.NotReadySince = since
		}
		out[name] = m
		conn, ok := r.Inventory.Member(name)
		if !ok {
			m.Replicas = lastDecision(mcd, name)
			continue
		}
		m.client, m.reader, m.Connected = conn.Client, conn.APIReader, true
		if err := r.observeMember(ctx, s, m, conn); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (r *Reconciler) observeMember(ctx context.Context, s *Subject, m *member, conn *inventory.Member) error {
	mcd, owner, kind := s.MCD, s.Owner, s.kind()
	obj := propagation.NewDivided(kind)
	if obj == nil {
		return fmt.Errorf("%s is not a kind whose replicas are divided", kind.Kind)
	}
	err := conn.Client.Get(ctx, client.ObjectKeyFromObject(mcd), obj)
	switch {
	case apierrors.IsNotFound(err) && r.knownForeign(s.Key(), m.name):
		// The cache holds only Meridian's workloads: whether the member's
		// own one is still there is read from its API server.
		foreign, err := foreignWorkload(ctx, conn.APIReader, s)
		if err != nil {
			return fmt.Errorf("failed to read %s in member %q: %w", kind.Kind, m.name, err)
		}
		m.Foreign = foreign
		if !foreign {
			r.forgetForeign(s.Key(), m.name)
		}
	case apierrors.IsNotFound(err):
	case err != nil:
		return fmt.Errorf("failed to read %s in member %q: %w", kind.Kind, m.name, err)
	default:
		o, ok := propagation.OwnerOf(obj)
		if ok && o.Kind == owner.Kind && o.Name == owner.Name && (o.UID == "" || o.UID == owner.UID) {
			rs, _ := propagation.ReplicasOf(obj)
			m.object, m.Exists = obj, true
			m.UpToDate = obj.GetAnnotations()[multiclusterv1alpha1.AnnotationOwnerGeneration] == strconv.FormatInt(mcd.Generation, 10)
			m.Replicas = rs.Spec
			m.ReadyReplicas, m.current, m.available, m.updated = rs.Ready, rs.Current, rs.Available, rs.Updated
			m.CaughtUp = rs.CaughtUp
		}
	}

	pods, err := propagation.CountPods(ctx, conn, mcd.Namespace, owner)
	if err != nil {
		return fmt.Errorf("failed to list pods in member %q: %w", m.name, err)
	}
	m.Bound, m.Pending, m.PendingSince = pods.Bound, pods.Pending, pods.PendingSince
	return nil
}

// lastDecision returns the replicas status last gave cluster.
func lastDecision(mcd *multiclusterv1alpha1.MultiClusterDeployment, cluster string) int32 {
	for _, c := range mcd.Status.Clusters {
		if string(c.Name) == cluster {
			return c.Replicas
		}
	}
	return 0
}

// foreignWorkload reads, from the member's API server, whether it has a
// workload of s's kind, namespace and name that Meridian did not make for
// s's owner kind and name. One Meridian made for an owner of the same name
// that is gone (another UID) is an orphan the sweeper removes, not the
// member's own.
func foreignWorkload(ctx context.Context, reader client.Reader, s *Subject) (bool, error) {
	d := &metav1.PartialObjectMetadata{}
	d.SetGroupVersionKind(s.kind())
	err := reader.Get(ctx, client.ObjectKeyFromObject(s.MCD), d)
	switch {
	case apierrors.IsNotFound(err):
		return false, nil
	case err != nil:
		return false, err
	}
	o, ok := propagation.OwnerOf(d)
	return !ok || o.Kind != s.Owner.Kind || o.Name != s.Owner.Name, nil
}

// knownForeign reports whether a member was found to hold its own
// workload of the workload key's name.
func (r *Reconciler) knownForeign(key, member string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.foreign[key][member]
}

func (r *Reconciler) rememberForeign(key, member string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.foreign[key] == nil {
		r.foreign[key] = map[string]bool{}
	}
	r.foreign[key][member] = true
}

func (r *Reconciler) forgetForeign(key, member string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.foreign[key], member)
	if len(r.foreign[key]) == 0 {
		delete(r.foreign, key)
	}
}
