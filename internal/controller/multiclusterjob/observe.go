package multiclusterjob

import (
	"context"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
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
// for mcj and its pods. The Job is read from the member's API server, not
// a cache: a Job created by the last pass must be seen by this one, or its
// share would be placed twice.
func (r *Reconciler) observe(ctx context.Context, mcj *multiclusterv1alpha1.MultiClusterJob) (map[string]*memberJob, error) {
	out := map[string]*memberJob{}
	owner := propagation.OwnerOfJob(mcj)
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
		if o, ok := propagation.OwnerOf(j); !ok || o.Kind != Kind || (o.UID != "" && o.UID != owner.UID) {
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
		pods, err := propagation.CountPods(ctx, m.Client, mcj.Namespace, owner)
		if err != nil {
			return nil, fmt.Errorf("failed to list the pods of Job %s in member %q: %w", mcj.Name, name, err)
		}
		mj.Running, mj.Pending, mj.PendingSince = pods.Bound, pods.Pending, pods.PendingSince
	}
	return out, nil
}
