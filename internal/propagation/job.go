package propagation

import (
	"maps"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
)

// OwnerOfJob returns the owner record of a MultiClusterJob.
func OwnerOfJob(mcj *multiclusterv1alpha1.MultiClusterJob) Owner {
	return Owner{Kind: "MultiClusterJob", Namespace: mcj.Namespace, Name: mcj.Name, UID: string(mcj.UID)}
}

// Job returns the member Job of mcj that runs parallelism pods at once
// until completions succeed (nil: until one succeeds), with mcj's template,
// retry and deadline settings, labelled back to mcj, its pods too.
func Job(mcj *multiclusterv1alpha1.MultiClusterJob, parallelism int32, completions *int32) *batchv1.Job {
	owner := OwnerOfJob(mcj)
	j := &batchv1.Job{
		TypeMeta: metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{
			Name:        mcj.Name,
			Namespace:   mcj.Namespace,
			Labels:      maps.Clone(mcj.Labels),
			Annotations: map[string]string{},
		},
		Spec: batchv1.JobSpec{
			Parallelism:             &parallelism,
			Completions:             completions,
			BackoffLimit:            mcj.Spec.BackoffLimit,
			ActiveDeadlineSeconds:   seconds(mcj.Spec.ActiveDeadline),
			TTLSecondsAfterFinished: mcj.Spec.TTLSecondsAfterFinished,
			Template:                *mcj.Spec.Template.DeepCopy(),
		},
	}
	owner.stamp(j, mcj.Generation)
	owner.stampTemplate(&j.Spec.Template)
	return j
}

// ShareCompletions splits completions over the clusters in proportion to
// their parallel pods, by largest remainder, so that the shares add up to
// completions and every cluster with pods gets at least one when there are
// enough. It returns nil shares when completions is nil.
func ShareCompletions(completions *int32, parallelism []int32) []*int32 {
	out := make([]*int32, len(parallelism))
	if completions == nil {
		return out
	}
	var total int64
	for _, p := range parallelism {
		total += int64(p)
	}
	if total == 0 {
		return out
	}
	shares := make([]int32, len(parallelism))
	rem := make([]int64, len(parallelism))
	given := int32(0)
	for i, p := range parallelism {
		q := int64(*completions) * int64(p)
		shares[i] = int32(q / total)
		rem[i] = q % total
		given += shares[i]
	}
	for left := *completions - given; left > 0; left-- {
		best := -1
		for i := range rem {
			if parallelism[i] > 0 && (best < 0 || rem[i] > rem[best]) {
				best = i
			}
		}
		shares[best]++
		rem[best] = -1
	}
	for i := range shares {
		v := shares[i]
		out[i] = &v
	}
	return out
}
