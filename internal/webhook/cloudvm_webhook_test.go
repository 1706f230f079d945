package webhook

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	computev1alpha1 "github.com/meridian-dev/meridian/api/compute/v1alpha1"
	"github.com/meridian-dev/meridian/internal/scheme"
)

// TestCloudVMWebhook runs the handler behind a real API server: the API
// server calls it over HTTPS through the generated
// MutatingWebhookConfiguration, and what it stores is what the tests read.
func TestCloudVMWebhook(t *testing.T) {
	engine := testPolicies(t)
	planner := Planner{Policies: engine, Scheduler: greenest{intensity: map[string][]float64{
		"NO-NO1": {300, 250, 200, 40, 300}, "FI": {100, 300, 300, 300, 300}, "NL": {500, 500, 500, 500},
	}}}
	clk := &clock{}
	clk.Set(now)
	api := startAPIServer(t, NewCloudVMHandler(scheme.New(), planner, clk.Now))
	c := api.Client
	hour := now.Truncate(time.Hour)

	get := func(t *testing.T, name string) *computev1alpha1.CloudVM {
		t.Helper()
		vm := &computev1alpha1.CloudVM{}
		if err := c.Get(t.Context(), client.ObjectKey{Namespace: "default", Name: name}, vm); err != nil {
			t.Fatal(err)
		}
		return vm
	}
	schedule := func(t *testing.T, vm *computev1alpha1.CloudVM) where {
		t.Helper()
		if vm.Spec.Schedule == nil {
			t.Fatalf("CloudVM %s has no spec.schedule", vm.Name)
		}
		return whereOf(Result{Outcome: Planned, Schedule: vm.Spec.Schedule})
	}

	t.Run("a VM is admitted and its decision patched in", func(t *testing.T) {
		vm := testVM("admitted")
		if err := c.Create(t.Context(), vm); err != nil {
			t.Fatal(err)
		}
		got := get(t, "admitted")
		want := where{Planned, "azure", "norwayeast", "Standard_F2s_v2", hour.Add(3 * time.Hour), hour.Add(5 * time.Hour), false}
		if diff := cmp.Diff(want, schedule(t, got)); diff != "" {
			t.Errorf("decision (-want +got):\n%s", diff)
		}
		d := got.Spec.Schedule.Decision
		if d.Zone != "NO-NO1" || d.PolicyRevision == "" || d.DecisionID == "" || d.Reason == "" || d.ExpectedEmissionsGrams == nil || d.ExpectedEmissionsGrams.Cmp(resource.MustParse("80")) != 0 {
			t.Errorf("decision lacks its zone, revision, ID, reason or emissions: %+v", d)
		}
		if e := got.Spec.Schedule.Explanation; e == nil || len(e.Steps) != 7 || e.Steps[6].Policy != RenderingPolicy || e.Steps[6].LeftCount < 30 {
			t.Errorf("explanation: %+v", e)
		}
		// What the user wrote is stored as written.
		if got.Spec.CPU.String() != "2" || got.Spec.Memory.String() != "4Gi" {
			t.Errorf("spec changed: cpu %s, memory %s", got.Spec.CPU.String(), got.Spec.Memory.String())
		}
	})

	t.Run("the decision replayed from the decision log is the same", func(t *testing.T) {
		vm := get(t, "admitted")
		again, err := planner.Replay(t.Context(), vm, engine)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(vm.Spec.Schedule, again); diff != "" {
			t.Errorf("replayed schedule (-stored +replayed):\n%s", diff)
		}
	})

	t.Run("pinned", func(t *testing.T) {
		start := metav1.NewTime(now.Add(90 * time.Minute))
		vm := testVM("pinned", func(vm *computev1alpha1.CloudVM) {
			vm.Spec.Pin = &computev1alpha1.CloudVMPin{Provider: "azure", Region: "westeurope", Start: &start}
		})
		if err := c.Create(t.Context(), vm); err != nil {
			t.Fatal(err)
		}
		want := where{Planned, "azure", "westeurope", "Standard_F2s_v2", now.Add(90 * time.Minute), now.Add(210 * time.Minute), false}
		if diff := cmp.Diff(want, schedule(t, get(t, "pinned"))); diff != "" {
			t.Errorf("decision (-want +got):\n%s", diff)
		}
	})

	t.Run("denied with every reason, and never created", func(t *testing.T) {
		vm := testVM("nowhere", func(vm *computev1alpha1.CloudVM) {
			vm.Spec.Providers = []computev1alpha1.Provider{"aws", "azure"}
			vm.Spec.Residency = "EU"
			vm.Spec.OriginRegion = "westeurope"
			vm.Spec.MaxLatency = &metav1.Duration{Duration: 1 * time.Millisecond}
			vm.Spec.Pin = &computev1alpha1.CloudVMPin{Provider: "aws"}
		})
		err := c.Create(t.Context(), vm)
		if err == nil {
			t.Fatal("CloudVM nowhere was admitted, want it denied")
		}
		t.Logf("denied: %v", err)
		for _, w := range []string{
			`admission webhook "cloudvm.compute.meridian.dev" denied the request: CloudVM default/nowhere cannot be scheduled: no region is left`,
			"constraints: providers aws, azure; residency EU; at most 1 ms from westeurope; pinned to aws",
			"providers removed 30: the VM is pinned to provider aws",
			"latency removed 13:",
		} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("denial does not contain %q", w)
			}
		}
		err = c.Get(t.Context(), client.ObjectKeyFromObject(vm), &computev1alpha1.CloudVM{})
		if !apierrors.IsNotFound(err) {
			t.Errorf("Get of the denied VM: %v, want NotFound", err)
		}
	})

	t.Run("UPDATE of metadata keeps the decision", func(t *testing.T) {
		before := get(t, "admitted")
		clk.Set(now.Add(30 * time.Minute))
		vm := before.DeepCopy()
		vm.Labels = map[string]string{"team": "research"}
		if err := c.Update(t.Context(), vm); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(before.Spec.Schedule, get(t, "admitted").Spec.Schedule); diff != "" {
			t.Errorf("schedule changed (-before +after):\n%s", diff)
		}
	})

	t.Run("UPDATE of the spec before the start re-plans", func(t *testing.T) {
		clk.Set(now.Add(time.Hour))
		vm := get(t, "admitted")
		vm.Spec.Providers = []computev1alpha1.Provider{"gcp"}
		if err := c.Update(t.Context(), vm); err != nil {
			t.Fatal(err)
		}
		want := where{Planned, "gcp", "europe-north1", "e2-standard-2", now.Add(time.Hour), now.Add(3 * time.Hour), false}
		if diff := cmp.Diff(want, schedule(t, get(t, "admitted"))); diff != "" {
			t.Errorf("decision (-want +got):\n%s", diff)
		}
	})

	t.Run("UPDATE of the spec of a running VM is refused", func(t *testing.T) {
		vm := get(t, "pinned")
		vm.Status.Phase = computev1alpha1.PhaseRunning
		if err := c.Status().Update(t.Context(), vm); err != nil {
			t.Fatal(err)
		}
		before := get(t, "pinned")
		before.Spec.CPU.Set(4)
		err := c.Update(t.Context(), before)
		if err == nil {
			t.Fatal("the running VM's spec was changed, want the UPDATE refused")
		}
		t.Logf("refused: %v", err)
		if w := "CloudVM default/pinned is Running, so its spec cannot change"; !strings.Contains(err.Error(), w) {
			t.Errorf("refusal does not contain %q: %v", w, err)
		}
		if got := get(t, "pinned"); got.Spec.CPU.String() != "2" {
			t.Errorf("cpu = %s after a refused UPDATE, want 2", got.Spec.CPU.String())
		}
		// Its finalizers and labels may still change.
		meta := get(t, "pinned")
		meta.Labels = map[string]string{"stage": "running"}
		if err := c.Update(t.Context(), meta); err != nil {
			t.Errorf("a metadata UPDATE of a running VM was refused: %v", err)
		}
	})

	t.Run("UPDATE after the start, before the controller saw it, is refused", func(t *testing.T) {
		clk.Set(now.Add(4 * time.Hour))
		vm := get(t, "admitted")
		vm.Spec.Residency = computev1alpha1.ResidencyEU
		err := c.Update(t.Context(), vm)
		if err == nil || !strings.Contains(err.Error(), "started at 2026-11-23T21:10:00Z on gcp/europe-north1") {
			t.Errorf("UPDATE after the start: %v, want it refused naming the start", err)
		}
	})

	t.Run("a dry run is decided and not stored", func(t *testing.T) {
		clk.Set(now)
		vm := testVM("dry")
		if err := c.Create(t.Context(), vm, client.DryRunAll); err != nil {
			t.Fatal(err)
		}
		if vm.Spec.Schedule == nil || vm.Spec.Schedule.Decision.Provider == "" {
			t.Errorf("the dry run's answer has no decision: %+v", vm.Spec.Schedule)
		}
		err := c.Get(t.Context(), client.ObjectKeyFromObject(vm), &computev1alpha1.CloudVM{})
		if !apierrors.IsNotFound(err) {
			t.Errorf("Get after a dry run: %v, want NotFound", err)
		}
	})
}
