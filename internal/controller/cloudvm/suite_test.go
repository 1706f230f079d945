package cloudvm_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	computev1alpha1 "github.com/meridian-dev/meridian/api/compute/v1alpha1"
	"github.com/meridian-dev/meridian/internal/carbon"
	"github.com/meridian-dev/meridian/internal/controller"
	"github.com/meridian-dev/meridian/internal/controller/cloudvm"
	"github.com/meridian-dev/meridian/internal/decide"
	"github.com/meridian-dev/meridian/internal/testenv"
)

// timing is the controllers' timing in these tests: the readiness of
// objects is followed by watches, the poll only backs them up.
var timing = decide.VMTiming{StartSlack: time.Minute, Poll: 2 * time.Second}

// setup starts a management cluster with the providers' real CRDs (the
// files internal/vmrender keeps from the operators' repositories).
func setup(t *testing.T) *testenv.Env {
	t.Helper()
	crds := filepath.Join("..", "..", "vmrender", "testdata", "crds")
	return testenv.Start(t, testenv.Options{ExtraCRDPaths: []string{
		filepath.Join(crds, "azure"), filepath.Join(crds, "gcp"), filepath.Join(crds, "aws"),
	}})
}

// startController starts a manager with the CloudVM controller alone.
func startController(t *testing.T, env *testenv.Env) *testenv.Manager {
	t.Helper()
	return env.StartManagerAs(t, "controller", func(mgr ctrl.Manager) error {
		return (&cloudvm.Reconciler{
			Client:      mgr.GetClient(),
			Recorder:    mgr.GetEventRecorder("meridian-cloudvm"),
			Timing:      timing,
			Intensities: intensities,
			// Accounted as soon as the run is over: the test's hours are
			// all measured already.
			EmissionsTiming: decide.EmissionsTiming{Settle: time.Nanosecond},
		}).SetupWithManager(mgr)
	})
}

// startAll starts a manager with every management-plane controller, as
// `meridian controller` registers them.
func startAll(t *testing.T, env *testenv.Env) *testenv.Manager {
	t.Helper()
	return env.StartManagerAs(t, "controller", func(mgr ctrl.Manager) error {
		_, err := controller.Setup(mgr, controller.Options{CloudVMStartSlack: timing.StartSlack, CloudVMPoll: timing.Poll})
		return err
	})
}

func namespace(t *testing.T, c client.Client, name string) {
	t.Helper()
	if err := c.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
		t.Fatal(err)
	}
}

// where is a decision's provider, region, grid zone and size.
type where struct {
	provider           computev1alpha1.Provider
	region, zone, size string
}

var (
	azure = where{computev1alpha1.ProviderAzure, "westeurope", "NL", "Standard_D2s_v5"}
	gcp   = where{computev1alpha1.ProviderGCP, "europe-west4", "NL", "e2-standard-2"}
	aws   = where{computev1alpha1.ProviderAWS, "eu-west-1", "IE", "m6i.large"}
)

// intensities are the measured intensities of the test's grid zones, from
// two hours ago for a day: NL 300 g/kWh and IE 250 g/kWh.
var intensities = func() *carbon.Memory {
	m := carbon.NewMemory("test-grid", clock.RealClock{})
	from := carbon.Hour(time.Now()).Add(-2 * time.Hour)
	for h := range 24 {
		at := from.Add(time.Duration(h) * time.Hour)
		m.Add(carbon.Point{Zone: "NL", Time: at, GramsPerKWh: 300}, carbon.Point{Zone: "IE", Time: at, GramsPerKWh: 250})
	}
	return m
}()

// newVM is a CloudVM decided to run at w from start for run, as the
// admission webhook would have written it.
func newVM(ns, name string, w where, start time.Time, run time.Duration) *computev1alpha1.CloudVM {
	vm := &computev1alpha1.CloudVM{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	vm.Spec.CPU = resource.MustParse("2")
	vm.Spec.Memory = resource.MustParse("8Gi")
	vm.Spec.Duration = metav1.Duration{Duration: run}
	vm.Spec.SSHPublicKey = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKa0rZ2a3Lz5rJ6p5vZ0p0uKkq0m5VnXGv2rDq9wXh1e test@meridian"
	vm.Spec.Schedule = &computev1alpha1.CloudVMSchedule{Decision: computev1alpha1.CloudVMDecision{
		Provider: w.provider, Region: w.region, Zone: w.zone, InstanceType: w.size,
		ExpectedEmissionsGrams: grams("0.02"), BaselineEmissionsGrams: grams("0.04"),
		Start: metav1.NewTime(start), End: metav1.NewTime(start.Add(run)), DecidedTime: metav1.Now(),
	}}
	return vm
}

// providerObjects lists the objects of every provider kind with the VM's
// label.
func providerObjects(t *testing.T, c client.Client, ns, name string) ([]*unstructured.Unstructured, error) {
	t.Helper()
	var out []*unstructured.Unstructured
	for _, gk := range cloudvm.ProviderKinds {
		m, err := c.RESTMapper().RESTMapping(gk)
		if err != nil {
			return nil, fmt.Errorf("failed to map %s: %w", gk, err)
		}
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(m.GroupVersionKind.GroupVersion().WithKind(gk.Kind + "List"))
		if err := c.List(t.Context(), list, client.InNamespace(ns), client.MatchingLabels{computev1alpha1.LabelCloudVM: name}); err != nil {
			return nil, fmt.Errorf("failed to list %s: %w", gk, err)
		}
		for i := range list.Items {
			out = append(out, &list.Items[i])
		}
	}
	return out, nil
}

// names are the objects as "Kind/name", sorted by kind order.
func names(objs []*unstructured.Unstructured) []string {
	out := make([]string, 0, len(objs))
	for _, o := range objs {
		out = append(out, o.GetKind()+"/"+o.GetName())
	}
	return out
}

// makeReady sets the status an object's operator reports once the cloud
// resource exists: ASO's and Config Connector's Ready condition, ACK's
// ACK.ResourceSynced and, for an EC2 instance, state running.
func makeReady(t *testing.T, c client.Client, o *unstructured.Unstructured) {
	t.Helper()
	now := metav1.Now().UTC().Format(time.RFC3339)
	group := o.GroupVersionKind().Group
	var cond map[string]any
	switch {
	case strings.HasSuffix(group, ".azure.com"):
		cond = map[string]any{"type": "Ready", "status": "True", "reason": "Succeeded", "severity": "", "observedGeneration": o.GetGeneration(), "lastTransitionTime": now}
	case strings.HasSuffix(group, ".cnrm.cloud.google.com"):
		cond = map[string]any{"type": "Ready", "status": "True", "reason": "UpToDate", "message": "The resource is up to date", "lastTransitionTime": now}
		if err := unstructured.SetNestedField(o.Object, o.GetGeneration(), "status", "observedGeneration"); err != nil {
			t.Fatal(err)
		}
	case strings.HasSuffix(group, ".services.k8s.aws"):
		cond = map[string]any{"type": "ACK.ResourceSynced", "status": "True", "message": "Resource synced successfully", "lastTransitionTime": now}
		if o.GetKind() == "Instance" {
			if err := unstructured.SetNestedField(o.Object, "running", "status", "state", "name"); err != nil {
				t.Fatal(err)
			}
		}
	default:
		t.Fatalf("no operator convention for %s", group)
	}
	if err := unstructured.SetNestedSlice(o.Object, []any{cond}, "status", "conditions"); err != nil {
		t.Fatal(err)
	}
	if err := c.Status().Update(t.Context(), o); err != nil {
		t.Fatalf("failed to set the status of %s %s: %v", o.GetKind(), o.GetName(), err)
	}
}

// getVM reads a CloudVM.
func getVM(t *testing.T, c client.Client, ns, name string) (*computev1alpha1.CloudVM, error) {
	vm := &computev1alpha1.CloudVM{}
	err := c.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: name}, vm)
	return vm, err
}

// reason is the reason of the VM's condition kind, or "" without one.
func reason(vm *computev1alpha1.CloudVM, kind string) string {
	for _, c := range vm.Status.Conditions {
		if c.Type == kind {
			return c.Reason
		}
	}
	return ""
}

// eventReasons are the reasons of the events about a VM, by type.
func eventReasons(t *testing.T, c client.Client, ns, name string) map[string]string {
	t.Helper()
	var list corev1.EventList
	if err := c.List(t.Context(), &list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range list.Items {
		if e.InvolvedObject.Name == name && e.InvolvedObject.Kind == "CloudVM" {
			out[e.Reason] = e.Type
		}
	}
	return out
}
