package webhook

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	computev1alpha1 "github.com/meridian-dev/meridian/api/compute/v1alpha1"
	"github.com/meridian-dev/meridian/internal/carbon"
	"github.com/meridian-dev/meridian/internal/policy"
)

var now = time.Date(2026, 11, 23, 20, 10, 0, 0, time.UTC)

// scheduled returns vm as admitted at now by p.
func scheduled(t *testing.T, p Planner, vm *computev1alpha1.CloudVM, at time.Time) *computev1alpha1.CloudVM {
	t.Helper()
	res, err := p.Admit(t.Context(), admissionv1.Create, vm, nil, at)
	if err != nil {
		t.Fatalf("CREATE of %s was denied: %v", vm.Name, err)
	}
	vm = vm.DeepCopy()
	vm.Spec.Schedule = res.Schedule
	return vm
}

// where is the part of a decision the tests compare.
type where struct {
	Outcome              Outcome
	Provider             computev1alpha1.Provider
	Region, InstanceType string
	Start, End           time.Time
	Fallback             bool
}

func whereOf(r Result) where {
	if r.Schedule == nil {
		return where{Outcome: r.Outcome}
	}
	d := r.Schedule.Decision
	return where{r.Outcome, d.Provider, d.Region, d.InstanceType, d.Start.UTC(), d.End.UTC(), d.Fallback != ""}
}

func TestAdmit(t *testing.T) {
	noForecast := Planner{Policies: testPolicies(t)}
	// Norway (only Azure has a region there) is cleanest three hours from
	// now, Finland (only GCP) at once.
	green := Planner{Policies: noForecast.Policies, Scheduler: greenest{intensity: map[string][]float64{
		"NO-NO1": {300, 250, 200, 40, 300}, "FI": {100, 300, 300, 300, 300}, "NL": {500, 500, 500, 500}, "US-MIDA-PJM": {400},
	}}}
	hour := now.Truncate(time.Hour)
	// amsterdam leaves one region, gcp/europe-west4 (4 ms from westeurope),
	// whatever the prices in the policy data.
	amsterdam := func(vm *computev1alpha1.CloudVM) {
		vm.Spec.Providers = []computev1alpha1.Provider{"gcp"}
		vm.Spec.OriginRegion = "westeurope"
		vm.Spec.MaxLatency = &metav1.Duration{Duration: 5 * time.Millisecond}
	}
	running := func(phase computev1alpha1.CloudVMPhase) func(vm *computev1alpha1.CloudVM) {
		return func(vm *computev1alpha1.CloudVM) { vm.Status.Phase = phase }
	}

	tests := []struct {
		name    string
		planner Planner
		op      admissionv1.Operation
		old     *computev1alpha1.CloudVM
		vm      *computev1alpha1.CloudVM
		at      time.Time
		want    where
		// denied are substrings of the denial, when the request is refused.
		denied []string
		// deniedFor, when set, is the error the denial wraps.
		deniedFor error
	}{{
		name:    "no scheduler: at once, and the decision says so",
		planner: noForecast,
		op:      admissionv1.Create,
		vm:      testVM("plain", amsterdam),
		want:    where{Planned, "gcp", "europe-west4", "e2-standard-2", now, now.Add(2 * time.Hour), true},
	}, {
		name:    "every provider compared: the scheduler moves the run to the cleanest hour and zone",
		planner: green,
		op:      admissionv1.Create,
		vm:      testVM("green"),
		want:    where{Planned, "azure", "norwayeast", "Standard_F2s_v2", hour.Add(3 * time.Hour), hour.Add(5 * time.Hour), false},
	}, {
		name:    "a deadline keeps the run out of the cleanest hour",
		planner: green,
		op:      admissionv1.Create,
		vm: testVM("deadline", func(vm *computev1alpha1.CloudVM) {
			vm.Spec.Deadline = &metav1.Time{Time: now.Add(3 * time.Hour)}
		}),
		want: where{Planned, "gcp", "europe-north1", "e2-standard-2", now, now.Add(2 * time.Hour), false},
	}, {
		name:    "without an SSH key Azure is not compared: it could not create the VM",
		planner: green,
		op:      admissionv1.Create,
		vm:      testVM("nokey", func(vm *computev1alpha1.CloudVM) { vm.Spec.SSHPublicKey = "" }),
		want:    where{Planned, "gcp", "europe-north1", "e2-standard-2", now, now.Add(2 * time.Hour), false},
	}, {
		name:    "without an SSH key, pinned to Azure",
		planner: green,
		op:      admissionv1.Create,
		vm: testVM("nokeyazure", func(vm *computev1alpha1.CloudVM) {
			vm.Spec.SSHPublicKey = ""
			vm.Spec.Pin = &computev1alpha1.CloudVMPin{Provider: "azure"}
		}),
		denied: []string{`rendering removed 14: azure cannot create this VM: sshPublicKey "": must be a public key such as "ssh-ed25519 AAAA...": azure creates no Linux VM without one (azure/eastus, azure/eastus2, azure/westus2, azure/canadacentral, `},
	}, {
		name:    "pinned start and region replace the scheduler's choice",
		planner: green,
		op:      admissionv1.Create,
		vm: testVM("pinned", func(vm *computev1alpha1.CloudVM) {
			vm.Spec.Pin = &computev1alpha1.CloudVMPin{Provider: "azure", Region: "westeurope", Start: &metav1.Time{Time: now.Add(90 * time.Minute)}}
		}),
		want: where{Planned, "azure", "westeurope", "Standard_F2s_v2", now.Add(90 * time.Minute), now.Add(210 * time.Minute), false},
	}, {
		name:    "pinned start in the past",
		planner: green,
		op:      admissionv1.Create,
		vm: testVM("past", func(vm *computev1alpha1.CloudVM) {
			vm.Spec.Pin = &computev1alpha1.CloudVMPin{Start: &metav1.Time{Time: now.Add(-time.Minute)}}
		}),
		denied: []string{"spec.pin.start 2026-11-23T20:09:00Z is in the past"},
	}, {
		name:    "pinned start that ends after the deadline",
		planner: noForecast,
		op:      admissionv1.Create,
		vm: testVM("pinlate", func(vm *computev1alpha1.CloudVM) {
			vm.Spec.Pin = &computev1alpha1.CloudVMPin{Start: &metav1.Time{Time: now.Add(2 * time.Hour)}}
			vm.Spec.Deadline = &metav1.Time{Time: now.Add(3 * time.Hour)}
		}),
		denied: []string{"spec.pin.start 2026-11-23T22:10:00Z plus spec.duration 2h0m0s ends at 2026-11-24T00:10:00Z, after spec.deadline 2026-11-23T23:10:00Z"},
	}, {
		name:    "deadline too early for the duration",
		planner: noForecast,
		op:      admissionv1.Create,
		vm: testVM("early", func(vm *computev1alpha1.CloudVM) {
			vm.Spec.Deadline = &metav1.Time{Time: now.Add(time.Hour)}
		}),
		denied: []string{"spec.deadline 2026-11-23T21:10:00Z is too early", "move the deadline to 2026-11-23T22:10:00Z or later"},
	}, {
		name:    "the scheduler finds no hour before the deadline",
		planner: Planner{Policies: testPolicies(t), Scheduler: greenest{intensity: map[string][]float64{"IE": {100}}}},
		op:      admissionv1.Create,
		vm: testVM("nohour", func(vm *computev1alpha1.CloudVM) {
			vm.Spec.Providers = []computev1alpha1.Provider{"gcp"}
			vm.Spec.Residency = "EU"
			vm.Spec.Deadline = &metav1.Time{Time: now.Add(150 * time.Minute)}
		}),
		deniedFor: carbon.ErrDeadline,
		denied:    []string{"none of the 8 regions the policies left", "providers gcp; residency EU", "and its deadline 2026-11-23T22:40:00Z", "cannot finish before its deadline"},
	}, {
		name:    "no region left: every constraint and every removal named",
		planner: green,
		op:      admissionv1.Create,
		vm: testVM("nowhere", func(vm *computev1alpha1.CloudVM) {
			vm.Spec.Providers = []computev1alpha1.Provider{"aws", "azure"}
			vm.Spec.Residency = "EU"
			vm.Spec.OriginRegion = "westeurope"
			vm.Spec.MaxLatency = &metav1.Duration{Duration: 1 * time.Millisecond}
			vm.Spec.Pin = &computev1alpha1.CloudVMPin{Provider: "aws"}
		}),
		denied: []string{
			"CloudVM default/nowhere cannot be scheduled: no region is left",
			"constraints: providers aws, azure; residency EU; at most 1 ms from westeurope; pinned to aws; 2 CPU and 4Gi memory",
			"providers removed 30: the VM is pinned to provider aws (azure/canadacentral, ",
			" and 22 more).",
			"latency removed 13: ",
			"round-trip time from westeurope is 18 ms, above the limit of 1 ms (aws/eu-west-1)",
		},
	}, {
		name:    "UPDATE of metadata keeps the decision",
		planner: green,
		op:      admissionv1.Update,
		old:     scheduled(t, noForecast, testVM("meta", amsterdam), now),
		vm: func() *computev1alpha1.CloudVM {
			vm := scheduled(t, noForecast, testVM("meta", amsterdam), now)
			vm.Labels = map[string]string{"team": "a"}
			vm.Finalizers = []string{"compute.meridian.dev/cloudvm"}
			return vm
		}(),
		at:   now.Add(time.Minute),
		want: where{Kept, "gcp", "europe-west4", "e2-standard-2", now, now.Add(2 * time.Hour), true},
	}, {
		name:    "UPDATE that drops spec.schedule (server-side apply) keeps the decision",
		planner: green,
		op:      admissionv1.Update,
		old:     scheduled(t, green, testVM("ssa"), now),
		vm:      testVM("ssa"),
		at:      now.Add(time.Minute),
		want:    where{Kept, "azure", "norwayeast", "Standard_F2s_v2", hour.Add(3 * time.Hour), hour.Add(5 * time.Hour), false},
	}, {
		name:    "UPDATE of the spec before the start re-plans with fresh data",
		planner: green,
		op:      admissionv1.Update,
		old:     scheduled(t, green, testVM("day2"), now),
		vm: func() *computev1alpha1.CloudVM {
			vm := scheduled(t, green, testVM("day2"), now)
			vm.Spec.Providers = []computev1alpha1.Provider{"gcp"}
			return vm
		}(),
		at:   now.Add(time.Hour),
		want: where{Replanned, "gcp", "europe-north1", "e2-standard-2", now.Add(time.Hour), now.Add(3 * time.Hour), false},
	}, {
		name:    "the replan annotation re-plans without a spec change",
		planner: noForecast,
		op:      admissionv1.Update,
		// Planned for 23:00 in Norway, then constrained near Amsterdam
		// (the data the webhook has is all that changes between the two).
		old: func() *computev1alpha1.CloudVM {
			vm := scheduled(t, green, testVM("replan"), now)
			amsterdam(vm)
			return vm
		}(),
		vm: func() *computev1alpha1.CloudVM {
			vm := scheduled(t, green, testVM("replan"), now)
			amsterdam(vm)
			vm.Annotations = map[string]string{computev1alpha1.AnnotationReplan: "1"}
			return vm
		}(),
		at:   now.Add(time.Hour),
		want: where{Replanned, "gcp", "europe-west4", "e2-standard-2", now.Add(time.Hour), now.Add(3 * time.Hour), true},
	}, {
		name:    "UPDATE of the spec of a running VM is refused",
		planner: green,
		op:      admissionv1.Update,
		old:     scheduled(t, noForecast, testVM("running", amsterdam, running(computev1alpha1.PhaseRunning)), now),
		vm: scheduled(t, noForecast, testVM("running", amsterdam, func(vm *computev1alpha1.CloudVM) {
			vm.Spec.CPU.Set(4)
		}), now),
		at:     now.Add(time.Minute),
		denied: []string{"CloudVM default/running is Running, so its spec cannot change (moving it would delete a running VM)"},
	}, {
		name:    "UPDATE of the spec after the start, before the controller saw it, is refused",
		planner: green,
		op:      admissionv1.Update,
		old:     scheduled(t, noForecast, testVM("late", amsterdam, running(computev1alpha1.PhaseWaiting)), now),
		vm: scheduled(t, noForecast, testVM("late", amsterdam, func(vm *computev1alpha1.CloudVM) {
			vm.Spec.Residency = "EU"
		}), now),
		at:     now.Add(time.Minute),
		denied: []string{"CloudVM default/late started at 2026-11-23T20:10:00Z on gcp/europe-west4 (it is now 2026-11-23T20:11:00Z), so its spec cannot change"},
	}, {
		name:    "a running VM being deleted may lose its finalizer",
		planner: green,
		op:      admissionv1.Update,
		old:     scheduled(t, noForecast, testVM("deleting", amsterdam, running(computev1alpha1.PhaseRunning)), now),
		vm: scheduled(t, noForecast, testVM("deleting", amsterdam, func(vm *computev1alpha1.CloudVM) {
			vm.DeletionTimestamp = &metav1.Time{Time: now}
			vm.Spec.CPU.Set(8)
		}), now),
		at:   now.Add(time.Minute),
		want: where{Kept, "gcp", "europe-west4", "e2-standard-2", now, now.Add(2 * time.Hour), true},
	}, {
		name:    "a pinned region the policies do not know",
		planner: green,
		op:      admissionv1.Create,
		vm: testVM("mars", func(vm *computev1alpha1.CloudVM) {
			vm.Spec.Pin = &computev1alpha1.CloudVMPin{Provider: "aws", Region: "mars-1"}
		}),
		deniedFor: policy.ErrInvalidInput,
		denied:    []string{"CloudVM default/mars: the policies refused its input", `region: unknown region "mars-1"; valid: `},
	}, {
		name:    "zero memory, which the webhook sees before the schema does",
		planner: green,
		op:      admissionv1.Create,
		vm:      testVM("nomem", func(vm *computev1alpha1.CloudVM) { vm.Spec.Memory.Set(0) }),
		denied:  []string{`spec.memory "0" must be greater than zero`},
	}, {
		name:    "latency limit without an origin",
		planner: green,
		op:      admissionv1.Create,
		vm: testVM("noorigin", func(vm *computev1alpha1.CloudVM) {
			vm.Spec.MaxLatency = &metav1.Duration{Duration: 20 * time.Millisecond}
		}),
		denied: []string{"spec.maxLatency \"20ms\" needs spec.originRegion"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			at := tc.at
			if at.IsZero() {
				at = now
			}
			res, err := tc.planner.Admit(t.Context(), tc.op, tc.vm, tc.old, at)
			if len(tc.denied) > 0 {
				var d *Denial
				if !errors.As(err, &d) {
					t.Fatalf("got %+v, %v; want a denial", whereOf(res), err)
				}
				t.Logf("denied: %s", d.Message)
				if tc.deniedFor != nil && !errors.Is(err, tc.deniedFor) {
					t.Errorf("the denial does not wrap %v", tc.deniedFor)
				}
				for _, w := range tc.denied {
					if !strings.Contains(d.Message, w) {
						t.Errorf("denial does not contain %q:\n%s", w, d.Message)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("denied: %v", err)
			}
			if diff := cmp.Diff(tc.want, whereOf(res)); diff != "" {
				t.Errorf("decision (-want +got):\n%s", diff)
			}
			if res.Schedule == nil || res.Schedule.Explanation == nil || len(res.Schedule.Explanation.Steps) == 0 {
				t.Fatalf("the decision has no explanation: %+v", res.Schedule)
			}
			if tc.op == admissionv1.Create && tc.vm.Spec.Pin == nil && len(tc.vm.Spec.Providers) == 0 && tc.vm.Spec.SSHPublicKey != "" {
				// Every provider the policies allow reaches the scheduler.
				steps := res.Schedule.Explanation.Steps
				providers := map[string]bool{}
				for _, l := range steps[len(steps)-1].Left {
					providers[strings.Split(l, "/")[0]] = true
				}
				if diff := cmp.Diff(map[string]bool{"aws": true, "azure": true, "gcp": true}, providers); diff != "" {
					t.Errorf("providers compared (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestDenialIsCapped(t *testing.T) {
	dec := testDecisionWithManyRemovals(500)
	msg := noRegionMessage(testVM("many"), dec)
	if len(msg) > maxDenialLength {
		t.Errorf("denial is %d bytes, want at most %d", len(msg), maxDenialLength)
	}
	for _, w := range []string{"no region is left", "p removed 500", "and 492 more"} {
		if !strings.Contains(msg, w) {
			t.Errorf("denial does not contain %q:\n%s", w, msg)
		}
	}
}
