package placement

import (
	"fmt"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// knownPolicies are the policies a workload and a profile may name.
var knownPolicies = []Policy{PolicyClusterAffinity, PolicyWorstFit, PolicyBestFit, PolicyTrafficAware, PolicyCarbon, PolicyLearned}

// Policies returns the placement policies: seed 001's, in the order the
// paper introduces them, then Carbon (issue 12) and Learned (issue 14).
func Policies() []Policy { return slices.Clone(knownPolicies) }

// Validate checks the workload and returns an error wrapping
// ErrInvalidWorkload that names every bad field, its value and what would be
// valid; nil when the workload can be placed. A valid workload costs no
// allocation: Place validates every workload it is given.
func (w *Workload) Validate() error {
	var errs field.ErrorList
	if w.Key == "" {
		errs = append(errs, field.Required(field.NewPath("key"), "must be namespace/name"))
	}
	if w.Kind != "" && w.Kind != KindDeployment && w.Kind != KindJob && w.Kind != KindCopy {
		errs = append(errs, field.NotSupported(field.NewPath("kind"), w.Kind, []WorkloadKind{KindDeployment, KindJob, KindCopy}))
	}
	if w.Replicas < 0 {
		errs = append(errs, field.Invalid(field.NewPath("replicas"), w.Replicas, "must be greater than or equal to 0"))
	}
	errs = append(errs, validateRequests(w.PodRequests)...)
	if !slices.Contains(knownPolicies, w.Policy) {
		if w.Policy == "" {
			errs = append(errs, field.Required(field.NewPath("policy"), fmt.Sprintf("must be one of %q", knownPolicies)))
		} else {
			errs = append(errs, field.NotSupported(field.NewPath("policy"), w.Policy, knownPolicies))
		}
	}
	if w.Policy == PolicyClusterAffinity && len(w.Locations) == 0 {
		errs = append(errs, field.Required(field.NewPath("locations"), "the ClusterAffinity policy needs at least one preferred cluster"))
	}
	for i, l := range w.Locations {
		switch {
		case l == "":
			errs = append(errs, field.Required(field.NewPath("locations").Index(i), "must name a cluster"))
		case slices.Contains(w.Locations[:i], l):
			errs = append(errs, field.Duplicate(field.NewPath("locations").Index(i), l))
		}
	}
	if w.NumberOfLocations < 0 {
		errs = append(errs, field.Invalid(field.NewPath("numberOfLocations"), w.NumberOfLocations, "must be greater than or equal to 0 (0 means as few clusters as possible)"))
	}
	switch {
	case w.MaxLatency < 0:
		errs = append(errs, field.Invalid(field.NewPath("maxLatency"), w.MaxLatency.String(), "must be greater than or equal to 0 (0 means no limit)"))
	case w.MaxLatency > 0 && w.LatencyOrigin == "" && len(w.Locations) == 0:
		errs = append(errs, field.Required(field.NewPath("latencyOrigin"), "a latency limit needs an origin cluster, or at least one cluster in locations"))
	}
	for i, j := range w.Jurisdictions {
		if j == "" {
			errs = append(errs, field.Required(field.NewPath("jurisdictions").Index(i), "must name a jurisdiction, e.g. DE or EU"))
		}
	}
	for _, n := range w.Current {
		if n < 0 {
			// Report every bad entry, in name order.
			for _, c := range slices.Sorted(maps.Keys(w.Current)) {
				if n := w.Current[c]; n < 0 {
					errs = append(errs, field.Invalid(field.NewPath("current").Key(c), n, "must be greater than or equal to 0"))
				}
			}
			break
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("%w %q: %w", ErrInvalidWorkload, w.Key, errs.ToAggregate())
}

func validateRequests(r Resources) field.ErrorList {
	var errs field.ErrorList
	check := func(name string, v int64) {
		if v < 0 {
			errs = append(errs, field.Invalid(field.NewPath("podRequests").Child(name), v, "must be greater than or equal to 0"))
		}
	}
	check("milliCPU", r.MilliCPU)
	check("memory", r.Memory)
	check("pods", r.Pods)
	for _, v := range r.Scalar {
		if v < 0 {
			for _, name := range slices.Sorted(maps.Keys(r.Scalar)) {
				if v := r.Scalar[name]; v < 0 {
					errs = append(errs, field.Invalid(field.NewPath("podRequests", "scalar").Key(string(name)), v, "must be greater than or equal to 0"))
				}
			}
			break
		}
	}
	return errs
}
