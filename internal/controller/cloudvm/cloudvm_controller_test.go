package cloudvm_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	computev1alpha1 "github.com/meridian-dev/meridian/api/compute/v1alpha1"
	"github.com/meridian-dev/meridian/internal/carbon"
	"github.com/meridian-dev/meridian/internal/controller/cloudvm"
	"github.com/meridian-dev/meridian/internal/testenv"
	"github.com/meridian-dev/meridian/internal/vmrender"
)

// TestCloudVM runs CloudVMs of every provider through their lives against
// a real API server with the providers' CRDs, and checks the cases that
// must not start: a missed deadline, a start long past, no decision; and a
// CloudVM deleted while it runs.
func TestCloudVM(t *testing.T) {
	env := setup(t)
	c := env.Management.Client
	startController(t, env)

	t.Run("lifecycle", func(t *testing.T) {
		tests := []struct {
			name  string
			where where
			want  []string
		}{
			{name: "azure", where: azure, want: []string{"ResourceGroup/web", "VirtualNetwork/web-vnet", "VirtualNetworksSubnet/web-subnet", "NetworkInterface/web-nic", "VirtualMachine/web"}},
			{name: "gcp", where: gcp, want: []string{"ComputeNetwork/web-network", "ComputeSubnetwork/web-subnet", "ComputeInstance/web"}},
			{name: "aws", where: aws, want: []string{"VPC/web-vpc", "Subnet/web-subnet", "Instance/web"}},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				ns := "life-" + tc.name
				namespace(t, c, ns)
				// The counter is the process's: earlier runs count in it.
				realised := map[string]string{"provider": string(tc.where.provider), "region": tc.where.region, "kind": "realised"}
				counted := testenv.Counter(t, "meridian_cloudvm_emissions_grams_total", realised)
				// The start is a whole second (as the API stores it) 3 to 4
				// seconds ahead; the run is long enough to become ready, and
				// ends exactly at the deadline, as a scheduler that chose the
				// latest start plans it.
				start := time.Now().Add(3 * time.Second).Truncate(time.Second).Add(time.Second)
				const run = 15 * time.Second
				vm := newVM(ns, "web", tc.where, start, run)
				vm.Spec.Deadline = &metav1.Time{Time: start.Add(run)}
				if err := c.Create(t.Context(), vm); err != nil {
					t.Fatal(err)
				}
				testenv.Eventually(t, 10*time.Second, "Waiting", func() string {
					vm, err := getVM(t, c, ns, "web")
					if err != nil {
						return err.Error()
					}
					return cmp.Diff(computev1alpha1.PhaseWaiting, vm.Status.Phase)
				})

				// Look every 20 ms for the objects, to measure when they
				// appear against the planned start.
				var objs []*unstructured.Unstructured
				var seen time.Time
				for deadline := start.Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
					got, err := providerObjects(t, c, ns, "web")
					if err != nil {
						t.Fatal(err)
					}
					if len(got) > 0 && time.Now().Before(start) {
						t.Fatalf("provider objects %v exist at %s, before the start %s", names(got), time.Now().Format(time.RFC3339Nano), start.Format(time.RFC3339))
					}
					if len(got) == len(tc.want) {
						objs, seen = got, time.Now()
						break
					}
				}
				if objs == nil {
					t.Fatalf("provider objects did not appear within 30 s of the start %s", start.Format(time.RFC3339))
				}
				if diff := cmp.Diff(tc.want, names(objs)); diff != "" {
					t.Errorf("provider objects (-want +got):\n%s", diff)
				}
				startError := seen.Sub(start)
				for _, o := range objs {
					if created := o.GetCreationTimestamp().Time; created.Before(start) {
						t.Errorf("%s %s created at %s, before the start %s", o.GetKind(), o.GetName(), created, start)
					}
				}
				// How soon after the start is the decision's (decide.VM wakes
				// the reconciler at the start, TestVM in virtual time) and the
				// machine's load; it is logged, not asserted on.
				t.Logf("start error: objects seen %s after the planned start %s (creationTimestamp %s)",
					startError, start.Format(time.RFC3339), objs[0].GetCreationTimestamp().UTC().Format(time.RFC3339))
				// The status follows the applies; the recorded start is the
				// planned one, to the second the API keeps.
				testenv.Eventually(t, 10*time.Second, "status.startedTime", func() string {
					vm, err := getVM(t, c, ns, "web")
					if err != nil {
						return err.Error()
					}
					if vm.Status.StartedTime == nil {
						return "no startedTime yet"
					}
					return cmp.Diff(start.UTC(), vm.Status.StartedTime.UTC())
				})

				// The operator makes every object ready.
				testenv.Eventually(t, 10*time.Second, "Provisioning with every object reported", func() string {
					vm, err := getVM(t, c, ns, "web")
					if err != nil {
						return err.Error()
					}
					if vm.Status.Phase != computev1alpha1.PhaseProvisioning && vm.Status.Phase != computev1alpha1.PhaseRunning {
						return fmt.Sprintf("phase %s", vm.Status.Phase)
					}
					return cmp.Diff(len(tc.want), len(vm.Status.Objects))
				})
				for _, o := range objs {
					makeReady(t, c, o)
				}
				testenv.Eventually(t, 10*time.Second, "Running", func() string {
					vm, err := getVM(t, c, ns, "web")
					if err != nil {
						return err.Error()
					}
					var notReady []string
					for _, o := range vm.Status.Objects {
						if !o.Ready {
							notReady = append(notReady, o.Kind+"/"+o.Name+": "+o.Message)
						}
					}
					if len(notReady) > 0 {
						return fmt.Sprintf("objects not ready: %v", notReady)
					}
					return cmp.Diff([]string{string(computev1alpha1.PhaseRunning), computev1alpha1.ReasonRunning}, []string{string(vm.Status.Phase), reason(vm, computev1alpha1.ConditionReady)})
				})

				// At the end they go, and the VM completes.
				end := start.Add(run)
				var gone time.Time
				testenv.Eventually(t, time.Until(end)+30*time.Second, "objects deleted at the end", func() string {
					got, err := providerObjects(t, c, ns, "web")
					if err != nil {
						return err.Error()
					}
					if len(got) > 0 {
						return fmt.Sprintf("still there: %v", names(got))
					}
					if time.Now().Before(end) {
						t.Fatalf("provider objects deleted at %s, before the end %s", time.Now().Format(time.RFC3339Nano), end.Format(time.RFC3339))
					}
					gone = time.Now()
					return ""
				})
				t.Logf("end error: objects gone %s after the planned end %s", gone.Sub(end), end.Format(time.RFC3339))
				testenv.Eventually(t, 10*time.Second, "Completed", func() string {
					vm, err := getVM(t, c, ns, "web")
					if err != nil {
						return err.Error()
					}
					if vm.Status.CompletedTime == nil {
						return "no completedTime"
					}
					return cmp.Diff(computev1alpha1.PhaseCompleted, vm.Status.Phase)
				})
				// Once over, the run's emissions are accounted from the
				// grid zone's measured hours, in the energy model the
				// scheduler plans with, and counted in the metrics.
				var accounted *computev1alpha1.CloudVM
				testenv.Eventually(t, 10*time.Second, "status.emissions", func() string {
					vm, err := getVM(t, c, ns, "web")
					if err != nil {
						return err.Error()
					}
					if vm.Status.Emissions == nil {
						return "no status.emissions"
					}
					accounted = vm
					return ""
				})
				st := accounted.Status
				watts := carbon.DefaultEnergyModel.Watts(string(tc.where.provider), 2000, 8<<30)
				points, err := intensities.History(t.Context(), tc.where.zone, st.StartedTime.Time, st.CompletedTime.Time)
				if err != nil {
					t.Fatal(err)
				}
				want, err := carbon.Account(points, tc.where.zone, watts, st.StartedTime.Time, st.CompletedTime.Time)
				if err != nil {
					t.Fatal(err)
				}
				if want.Grams <= 0 {
					t.Fatalf("the test's run emits %f g: it cannot show the accounting", want.Grams)
				}
				gotGrams := st.Emissions.RealisedGrams.AsApproximateFloat64()
				if diff := cmp.Diff([]any{want.Grams, true, want.String()}, []any{gotGrams, st.Emissions.Measured, st.Emissions.Basis}, cmpopts.EquateApprox(0, 1e-4)); diff != "" {
					t.Errorf("status.emissions (grams, measured, basis) (-want +got):\n%s", diff)
				}
				// The controller counts once its status write has returned,
				// which the status can be seen before: wait for the count.
				testenv.Eventually(t, 10*time.Second, "the realised emissions counted", func() string {
					if got := testenv.Counter(t, "meridian_cloudvm_emissions_grams_total", realised) - counted; math.Abs(got-want.Grams) > 1e-9 {
						return fmt.Sprintf("meridian_cloudvm_emissions_grams_total realised rose by %g, want %g", got, want.Grams)
					}
					return ""
				})
				// The recorder writes events after the status and in the
				// background: wait for them.
				testenv.Eventually(t, 10*time.Second, "a Normal event for every step", func() string {
					events := eventReasons(t, c, ns, "web")
					for _, r := range []string{computev1alpha1.ReasonDecided, computev1alpha1.ReasonWaitingForStart, computev1alpha1.ReasonProvisioning, computev1alpha1.ReasonRunning, computev1alpha1.ReasonTearingDown, computev1alpha1.ReasonCompleted, computev1alpha1.ReasonEmissionsAccounted} {
						if events[r] != corev1.EventTypeNormal {
							return fmt.Sprintf("events %v: no Normal event %s", events, r)
						}
					}
					return ""
				})
			})
		}
	})

	t.Run("no start", func(t *testing.T) {
		now := time.Now().Truncate(time.Second)
		tests := []struct {
			name   string
			vm     func(ns string) *computev1alpha1.CloudVM
			phase  computev1alpha1.CloudVMPhase
			kind   string
			reason string
		}{{
			name: "deadline missed: the controller was down at the start and the run would now end after the deadline",
			vm: func(ns string) *computev1alpha1.CloudVM {
				vm := newVM(ns, "late", azure, now.Add(-time.Minute), time.Hour)
				vm.Spec.Deadline = &metav1.Time{Time: now.Add(-time.Minute).Add(time.Hour + 30*time.Second)}
				return vm
			},
			phase: computev1alpha1.PhaseFailed, kind: computev1alpha1.ConditionReady, reason: computev1alpha1.ReasonDeadlineMissed,
		}, {
			name: "start missed: the controller comes up after the planned end",
			vm: func(ns string) *computev1alpha1.CloudVM {
				return newVM(ns, "late", gcp, now.Add(-2*time.Hour), time.Hour)
			},
			phase: computev1alpha1.PhaseFailed, kind: computev1alpha1.ConditionReady, reason: computev1alpha1.ReasonStartMissed,
		}, {
			name: "no decision: the webhook was not installed",
			vm: func(ns string) *computev1alpha1.CloudVM {
				vm := newVM(ns, "late", aws, now, time.Hour)
				vm.Spec.Schedule = nil
				return vm
			},
			phase: computev1alpha1.PhaseUnschedulable, kind: computev1alpha1.ConditionScheduled, reason: computev1alpha1.ReasonNoDecision,
		}}
		for i, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				ns := fmt.Sprintf("nostart-%d", i)
				namespace(t, c, ns)
				if err := c.Create(t.Context(), tc.vm(ns)); err != nil {
					t.Fatal(err)
				}
				testenv.Eventually(t, 10*time.Second, string(tc.phase), func() string {
					vm, err := getVM(t, c, ns, "late")
					if err != nil {
						return err.Error()
					}
					return cmp.Diff([]string{string(tc.phase), tc.reason}, []string{string(vm.Status.Phase), reason(vm, tc.kind)})
				})
				testenv.Eventually(t, 10*time.Second, "a warning event", func() string {
					return cmp.Diff(corev1.EventTypeWarning, eventReasons(t, c, ns, "late")[tc.reason])
				})
				got, err := providerObjects(t, c, ns, "late")
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff([]string{}, names(got)); diff != "" {
					t.Errorf("provider objects (-want +got):\n%s", diff)
				}
			})
		}
	})

	t.Run("deleted while running", func(t *testing.T) {
		t.Parallel()
		const ns = "deleted"
		namespace(t, c, ns)
		// A start that just passed is within the slack: the VM starts at once.
		vm := newVM(ns, "web", azure, time.Now().Truncate(time.Second), time.Hour)
		if err := c.Create(t.Context(), vm); err != nil {
			t.Fatal(err)
		}
		testenv.Eventually(t, 15*time.Second, "provider objects", func() string {
			got, err := providerObjects(t, c, ns, "web")
			if err != nil {
				return err.Error()
			}
			return cmp.Diff(5, len(got))
		})
		if err := c.Delete(t.Context(), vm); err != nil {
			t.Fatal(err)
		}
		testenv.Eventually(t, 15*time.Second, "objects and CloudVM gone", func() string {
			got, err := providerObjects(t, c, ns, "web")
			if err != nil {
				return err.Error()
			}
			if len(got) > 0 {
				return fmt.Sprintf("still there: %v", names(got))
			}
			if _, err := getVM(t, c, ns, "web"); !apierrors.IsNotFound(err) {
				return fmt.Sprintf("CloudVM: %v, want not found", err)
			}
			return ""
		})
	})
}

// objectState is what a restart must not change of a provider object.
type objectState struct {
	Name            string
	UID             types.UID
	ResourceVersion string
}

func states(objs []*unstructured.Unstructured) []objectState {
	out := make([]objectState, 0, len(objs))
	for _, o := range objs {
		out = append(out, objectState{Name: o.GetKind() + "/" + o.GetName(), UID: o.GetUID(), ResourceVersion: o.GetResourceVersion()})
	}
	return out
}

// TestCloudVMRestart stops the controller in the middle of a run and starts
// a new one: the objects are neither created again nor written, the VM goes
// on to Running, and they are deleted at the end the first controller
// planned. A controller that stopped between its applies and the status
// write finds the objects and keeps them. The controllers are registered
// as `meridian controller` registers them (controller.Setup).
func TestCloudVMRestart(t *testing.T) {
	env := setup(t)
	c := env.Management.Client
	first := startAll(t, env)

	t.Run("applied but not recorded", func(t *testing.T) {
		const ns = "unrecorded"
		namespace(t, c, ns)
		start := time.Now().Truncate(time.Second)
		vm := newVM(ns, "web", aws, start, time.Hour)
		// A controller applied the objects at the start and stopped before
		// it wrote the CloudVM's status.
		objs, err := vmrender.Render(vmrender.Input{
			Name: "web", Namespace: ns, Provider: string(aws.provider), Region: aws.region, InstanceType: aws.size,
			Image: "ubuntu-24.04", SSHPublicKey: vm.Spec.SSHPublicKey, Labels: map[string]string{computev1alpha1.LabelCloudVM: "web"},
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range objs {
			if err := c.Apply(t.Context(), client.ApplyConfigurationFromUnstructured(o), client.FieldOwner(cloudvm.FieldOwner), client.ForceOwnership); err != nil {
				t.Fatal(err)
			}
		}
		applied, err := providerObjects(t, c, ns, "web")
		if err != nil {
			t.Fatal(err)
		}
		want := states(applied)
		if err := c.Create(t.Context(), vm); err != nil {
			t.Fatal(err)
		}
		testenv.Eventually(t, 15*time.Second, "the objects' start recorded", func() string {
			vm, err := getVM(t, c, ns, "web")
			if err != nil {
				return err.Error()
			}
			if vm.Status.StartedTime == nil {
				return "no startedTime"
			}
			return cmp.Diff([]any{applied[0].GetCreationTimestamp().Time.UTC(), computev1alpha1.PhaseProvisioning, 3},
				[]any{vm.Status.StartedTime.UTC(), vm.Status.Phase, len(vm.Status.Objects)})
		})
		got, err := providerObjects(t, c, ns, "web")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, states(got)); diff != "" {
			t.Errorf("provider objects (-want +got):\n%s", diff)
		}
	})
	t.Run("mid-run", func(t *testing.T) {
		const ns = "restart"
		namespace(t, c, ns)
		start := time.Now().Truncate(time.Second)
		const run = 20 * time.Second
		if err := c.Create(t.Context(), newVM(ns, "web", gcp, start, run)); err != nil {
			t.Fatal(err)
		}
		testenv.Eventually(t, 15*time.Second, "started", func() string {
			vm, err := getVM(t, c, ns, "web")
			if err != nil {
				return err.Error()
			}
			if vm.Status.StartedTime == nil || len(vm.Status.Objects) != 3 {
				return fmt.Sprintf("startedTime %v, %d objects", vm.Status.StartedTime, len(vm.Status.Objects))
			}
			return ""
		})
		before, err := getVM(t, c, ns, "web")
		if err != nil {
			t.Fatal(err)
		}
		first.Stop()

		// While no controller runs, the operator makes the objects ready.
		objs, err := providerObjects(t, c, ns, "web")
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range objs {
			makeReady(t, c, o)
		}
		objs, err = providerObjects(t, c, ns, "web")
		if err != nil {
			t.Fatal(err)
		}
		want := states(objs)

		startAll(t, env)
		testenv.Eventually(t, 15*time.Second, "Running after the restart", func() string {
			vm, err := getVM(t, c, ns, "web")
			if err != nil {
				return err.Error()
			}
			return cmp.Diff(computev1alpha1.PhaseRunning, vm.Status.Phase)
		})
		objs, err = providerObjects(t, c, ns, "web")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, states(objs)); diff != "" {
			t.Errorf("provider objects after the restart (-want +got):\n%s", diff)
		}
		after, err := getVM(t, c, ns, "web")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(before.Status.StartedTime, after.Status.StartedTime); diff != "" {
			t.Errorf("status.startedTime (-want +got):\n%s", diff)
		}
		end := before.Status.StartedTime.Add(run)
		testenv.Eventually(t, time.Until(end)+30*time.Second, "objects deleted at the end", func() string {
			got, err := providerObjects(t, c, ns, "web")
			if err != nil {
				return err.Error()
			}
			if len(got) > 0 {
				return fmt.Sprintf("still there: %v", names(got))
			}
			if time.Now().Before(end) {
				t.Fatalf("provider objects deleted at %s, before the end %s", time.Now().Format(time.RFC3339Nano), end.Format(time.RFC3339))
			}
			return ""
		})
	})
}

// grams is a decision's emissions figure.
func grams(s string) *resource.Quantity {
	q := resource.MustParse(s)
	return &q
}
