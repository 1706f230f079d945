package multiclusterjob

import (
	"context"
	"fmt"
	"slices"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/decide"
	"github.com/meridian-dev/meridian/internal/propagation"
)

// memberJob is what one member shows of the job: what the decision reads,
// and the member Job itself.
type memberJob struct {
	decide.JobMember
	client client.Client
	// job is the member Job Meridian made, or nil.
	job *batchv1.Job
	// fail is whether the member Job failed (Finished says it ended).
	fail bool
}

// observe reads, in every connected member, the member Job Meridian made
// for s and its pods. The Job is read from the member's API server, not
// a cache: a Job created by the last pass must be seen by this one, or its
// share would be placed twice.
func (r *Reconciler) observe(ctx context.Context, s *Subject) (map[string]*memberJob, error) {
	mcj, owner := s.MCJ, s.Owner
	clusters, err := r.clusters(ctx)
	if err != nil {
		return nil, err
	}
	if unknown := unobserved(mcj, clusters, r.Inventory.Connecting(), r.Inventory.Members()); len(unknown) > 0 {
		return nil, &notObservedError{members: unknown}
	}
	out := map[string]*memberJob{}
	readiness := r.Inventory.Readiness()
	for _, name := range r.Inventory.Members() {
		m, ok := r.Inventory.Member(name)
		if !ok {
			continue
		}
		mj := &memberJob{client: m.Client}
		mj.Ready = readiness[name]
		out[name] = mj
		j := &batchv1.Job{}
		err := m.APIReader.Get(ctx, client.ObjectKeyFromObject(mcj), j)
		switch {
		case apierrors.IsNotFound(err):
			continue
		case err != nil:
			return nil, fmt.Errorf("failed to read Job in member %q: %w", name, err)
		}
		if o, ok := propagation.OwnerOf(j); !ok || o.Kind != owner.Kind || o.Name != owner.Name || (o.UID != "" && o.UID != owner.UID) {
			continue
		}
		mj.job, mj.Exists = j, true
		if j.Spec.Parallelism != nil {
			mj.Parallelism = *j.Spec.Parallelism
		}
		mj.Completions, mj.Succeeded = j.Spec.Completions, j.Status.Succeeded
		for _, c := range j.Status.Conditions {
			if c.Status == corev1.ConditionTrue && (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) {
				mj.Finished, mj.fail = true, c.Type == batchv1.JobFailed
			}
		}
		pods, err := propagation.CountPods(ctx, m, mcj.Namespace, owner)
		if err != nil {
			return nil, fmt.Errorf("failed to list the pods of Job %s in member %q: %w", mcj.Name, name, err)
		}
		mj.Running, mj.Pending, mj.PendingSince = pods.Bound, pods.Pending, pods.PendingSince
	}
	return out, nil
}

// memberWait is how long a pass waits for members to connect before it
// looks again.
const memberWait = time.Second

// notObservedError says that some members' Jobs cannot be read yet: a pass
// that decided without them would take an existing member Job for a
// missing one and run its share twice (a controller restart did, before
// every member had connected).
type notObservedError struct{ members []string }

func (e *notObservedError) Error() string {
	return fmt.Sprintf("members %v are not connected yet: their Jobs are not known", e.members)
}

// clusters returns every Cluster object, by name, and whether its status
// says Ready; those being deleted are left out.
func (r *Reconciler) clusters(ctx context.Context) (map[string]bool, error) {
	var list multiclusterv1alpha1.ClusterList
	if err := r.Client.List(ctx, &list); err != nil {
		return nil, fmt.Errorf("failed to list Clusters: %w", err)
	}
	out := make(map[string]bool, len(list.Items))
	for _, c := range list.Items {
		if c.DeletionTimestamp.IsZero() {
			out[c.Name] = meta.IsStatusConditionTrue(c.Status.Conditions, multiclusterv1alpha1.ClusterReady)
		}
	}
	return out, nil
}

// unobserved returns the members whose Job the job's pass must wait for,
// of those not connected: every member whose Cluster object says Ready
// (clusters) or whose Ready Cluster the inventory recorded (connecting),
// and every member of an existing Cluster that the job's status gives a
// share. The Cluster objects count, not only the inventory: a restarted
// controller's inventory learns of the Clusters one at a time, and a
// member it has not heard of yet may run the job's Job while the status
// that said so was lost with the killed controller's last write.
func unobserved(mcj *multiclusterv1alpha1.MultiClusterJob, clusters map[string]bool, connecting, connected []string) []string {
	var out []string
	wait := func(name string) {
		if !slices.Contains(connected, name) && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	for name, ready := range clusters {
		if ready {
			wait(name)
		}
	}
	for _, name := range connecting {
		wait(name)
	}
	for _, c := range mcj.Status.Clusters {
		if _, exists := clusters[string(c.Name)]; exists && c.Replicas > 0 {
			wait(string(c.Name))
		}
	}
	slices.Sort(out)
	return out
}
