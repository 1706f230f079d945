package webhook

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	computev1alpha1 "github.com/meridian-dev/meridian/api/compute/v1alpha1"
	"github.com/meridian-dev/meridian/internal/carbon"
	"github.com/meridian-dev/meridian/internal/policy"
)

// greenest is a carbon.Scheduler over fixed hourly intensities per zone: it
// chooses the zone and whole hour with the lowest intensity whose run ends
// by the deadline, and knows nothing of zones it has no intensity for. It
// stands in for the carbon issue's scheduler, which is not built yet.
type greenest struct {
	// intensity per zone, per hour from the hour of the request's now.
	intensity map[string][]float64
}

func (g greenest) Schedule(req carbon.Request) (carbon.Plan, error) {
	if len(req.Candidates) == 0 {
		return carbon.Plan{}, carbon.ErrNoCandidates
	}
	type option struct {
		c     carbon.Candidate
		start time.Time
		g     float64
	}
	var opts []option
	base := req.Now.Truncate(time.Hour)
	for _, c := range req.Candidates {
		for h, v := range g.intensity[c.Zone] {
			start := base.Add(time.Duration(h) * time.Hour)
			if start.Before(req.Earliest()) {
				start = req.Earliest()
			}
			if !req.Deadline.IsZero() && start.Add(req.Duration).After(req.Deadline) {
				continue
			}
			opts = append(opts, option{c, start, v * req.Duration.Hours()})
		}
	}
	if len(opts) == 0 {
		return carbon.Plan{}, fmt.Errorf("%w: no hour of the forecast fits", carbon.ErrDeadline)
	}
	sort.SliceStable(opts, func(a, b int) bool { return opts[a].g < opts[b].g })
	o := opts[0]
	return carbon.Plan{Candidate: o.c, Start: o.start, End: o.start.Add(req.Duration), ExpectedGrams: o.g, BaselineGrams: 500,
		Source: "test", Reason: fmt.Sprintf("%s/%s at %s has the lowest intensity", o.c.Provider, o.c.Region, o.start.Format(time.RFC3339))}, nil
}

// controller-runtime's logs are dropped: the tests read what the webhook
// answers, not what it logs.
func init() { ctrllog.SetLogger(logr.Discard()) }

// testVM is a VM of 2 CPUs and 4 GiB for 2 hours in namespace default, with
// an SSH key.
func testVM(name string, mutate ...func(*computev1alpha1.CloudVM)) *computev1alpha1.CloudVM {
	vm := &computev1alpha1.CloudVM{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: computev1alpha1.CloudVMSpec{
			CPU:      resource.MustParse("2"),
			Memory:   resource.MustParse("4Gi"),
			Duration: metav1.Duration{Duration: 2 * time.Hour},
			Image:    "ubuntu-24.04",
			// Azure creates no Linux VM without a key.
			SSHPublicKey: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAITestTestTestTestTestTestTestTestTestTest test@example.org",
		},
	}
	for _, m := range mutate {
		m(vm)
	}
	return vm
}

// testPolicies returns the real policy engine with its embedded default
// bundle, its decisions kept in memory.
func testPolicies(t testing.TB) *policy.Engine {
	t.Helper()
	e, err := policy.New(context.Background(), policy.Options{})
	if err != nil {
		t.Fatalf("failed to start the policy engine: %v", err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return e
}

// testDecisionWithManyRemovals is a decision whose one policy "p" removed
// n regions, each for the same reason.
func testDecisionWithManyRemovals(n int) policy.VMDecision {
	dec := policy.VMDecision{Steps: []policy.VMStep{{Policy: "p"}}}
	for i := range n {
		dec.Removed = append(dec.Removed, policy.VMRemoval{Provider: "aws", Region: fmt.Sprintf("region-%d", i), Policy: "p", Reason: "removed for the test"})
	}
	return dec
}
