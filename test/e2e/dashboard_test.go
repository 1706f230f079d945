package e2e_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	computev1alpha1 "github.com/meridian-dev/meridian/api/compute/v1alpha1"
	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/cloud"
	cloudtestbed "github.com/meridian-dev/meridian/internal/cloud/testbed"
	"github.com/meridian-dev/meridian/internal/controller"
	"github.com/meridian-dev/meridian/internal/dashboard"
	"github.com/meridian-dev/meridian/internal/testbed"
)

// TestDashboard drives the dashboard in headless Chromium against a live
// testbed with the controllers running: every page renders what the API
// server holds (members, a placed workload and its explanation, a pending
// one, a cloud cluster the provisioner bought with its pools and the
// timeline of the burst, an advertisement and a virtual node, a CloudVM's
// emissions against starting at once, an autoscaler), and a page changes
// when an object changes, without a reload. With MERIDIAN_SCREENSHOTS set
// to a folder it writes a screenshot of each page there (docs/dashboard).
func TestDashboard(t *testing.T) {
	w := startWith(t, testbed.Uniform(testbed.UniformOptions{Clusters: 2, Nodes: 2, CPU: resource.MustParse("2"), Memory: resource.MustParse("8Gi")}),
		func(dir string) controller.Options {
			return controller.Options{
				Namespace:         "meridian-system",
				HeartbeatInterval: 2 * time.Second, HeartbeatTimeout: 2 * time.Second, PendingGrace: 5 * time.Second,
				AutoscaleInterval: 3 * time.Second, ProvisionerPeriod: 2 * time.Second,
				CloudBackends: map[multiclusterv1alpha1.ProvisionerBackend]cloud.Backend{multiclusterv1alpha1.BackendTestbed: cloudtestbed.New(dir)},
			}
		})
	ctx := t.Context()
	w.namespace(t, "dash")
	for _, obj := range dashboardObjects() {
		if err := w.mgmt.Create(ctx, obj); err != nil {
			t.Fatalf("create %T %s: %v", obj, obj.GetName(), err)
		}
	}
	setDashboardStatuses(t, w.mgmt)

	srv, err := dashboard.New(dashboard.Options{Config: w.tb.Management().Config})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	base := "http://" + ln.Addr().String()

	// The dashboard only reads.
	resp, err := http.Post(base+"/api/watch?resource=clusters", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /api/watch = %d, want 405: the dashboard is read-only", resp.StatusCode)
	}

	b := newBrowser(t)
	shots := os.Getenv("MERIDIAN_SCREENSHOTS")
	b.open(base + "/#members")
	// Set once: a reload would lose it.
	eval[bool](b, `window.meridianLoaded = true`)

	pages := []struct {
		page string
		// want: selector -> text each must come to contain.
		want    [][2]string
		timeout time.Duration
	}{
		{"members", [][2]string{{`table[data-resource=clusters] tr[data-key=member-1]`, "Ready"}, {`table[data-resource=clusters] tr[data-key=member-2]`, "cores"}}, time.Minute},
		{"workloads", [][2]string{{`table[data-resource=multiclusterdeployments] tr[data-key="dash/web"]`, "member-"}, {`table[data-resource=multiclusterdeployments] tr[data-key="dash/web"] details`, "clusters considered"}}, time.Minute},
		{"pending", [][2]string{{`table[data-resource=pending] tr[data-key="dash/stuck"]`, "1"}}, time.Minute},
		{"cloud", [][2]string{{`table[data-resource=cloudprovisioners] tr[data-key="meridian-system/burst"]`, "cloud"}, {`table[data-resource=events]`, "ProvisionCluster"}, {`table[data-resource=cloudprovisioners] tr[data-key="meridian-system/burst"] table.pools`, "Pool"}}, 4 * time.Minute},
		{"sharing", [][2]string{{`table[data-resource=advertisements] tr[data-key="dash/provider-a"]`, "Accepted"}, {`table[data-resource=virtualnodes] tr[data-key=vn-provider-a-2cpu-0]`, "Ready"}}, time.Minute},
		{"carbon", [][2]string{{`table[data-resource=cloudvms] tr[data-key="dash/render"]`, "westeurope"}, {`table[data-resource=cloudvms] tr[data-key="dash/render"]`, "0.096 USD/h"}, {`table[data-resource=cloudvms] tr[data-key="dash/render"]`, "1.23 kg2.1 kg"}, {`table[data-resource=cloudvms] tr[data-key="dash/render"]`, "41.2 %"}, {`svg[data-chart=emissions]`, "vs"}}, time.Minute},
		{"advice", [][2]string{{`table[data-resource=multiclusterhorizontalpodautoscalers] tr[data-key="dash/web"]`, "metrics"}}, time.Minute},
	}
	for _, p := range pages {
		b.show(p.page)
		for _, w := range p.want {
			b.waitText(w[0], w[1], p.timeout)
		}
		// The timeline is drawn once the burst's events are in.
		if p.page == "cloud" {
			b.waitText(`svg[data-chart=timeline]`, "ProvisionCluster", time.Minute)
		}
		if shots != "" {
			if p.page == "workloads" {
				// Show one decision's explanation in the picture.
				eval[bool](b, `document.querySelector('table[data-resource=multiclusterdeployments] tr[data-key="dash/burst"] details').open = true`)
			}
			b.screenshot(filepath.Join(shots, p.page+".png"))
		}
	}

	// Live: scaling the workload changes its row, with no reload.
	b.show("workloads")
	row := `table[data-resource=multiclusterdeployments] tr[data-key="dash/web"]`
	b.waitText(row, "member-", time.Minute)
	var mcd multiclusterv1alpha1.MultiClusterDeployment
	if err := w.mgmt.Get(ctx, client.ObjectKey{Namespace: "dash", Name: "web"}, &mcd); err != nil {
		t.Fatal(err)
	}
	patch := client.MergeFrom(mcd.DeepCopy())
	mcd.Spec.Replicas = ptr.To(int32(4))
	if err := w.mgmt.Patch(ctx, &mcd, patch); err != nil {
		t.Fatal(err)
	}
	b.waitFunc(`(() => { const r = document.querySelector('`+row+`'); return r && r.children[2].textContent === "4"; })()`, "the row of dash/web shows 4 replicas", time.Minute)
	// And a deleted workload leaves its page.
	if err := w.mgmt.Delete(ctx, &multiclusterv1alpha1.MultiClusterDeployment{ObjectMeta: metav1.ObjectMeta{Namespace: "dash", Name: "stuck"}}); err != nil {
		t.Fatal(err)
	}
	b.waitFunc(`document.querySelector('table[data-resource=multiclusterdeployments] tr[data-key="dash/stuck"]') === null`, "dash/stuck gone from the page", time.Minute)
	if !eval[bool](b, `window.meridianLoaded === true`) {
		t.Error("the page was reloaded: the dashboard must follow changes in place")
	}
}

// dashboardObjects are what the test puts into the management cluster: two
// workloads (one placed, one that fits nowhere), a cloud provisioner and a
// workload that bursts to it, an autoscaler, a CloudVM with a decision, an
// advertisement and a virtual node.
func dashboardObjects() []client.Object {
	mcd := func(name string, replicas int32, cpu string, placement multiclusterv1alpha1.Placement) *multiclusterv1alpha1.MultiClusterDeployment {
		d := vidDeployment(name, replicas, cpu, placement)
		d.Namespace = "dash"
		return d
	}
	cp := vidProvisioner()
	cp.Spec.MaxNodes = 2
	hpa := vidAutoscaler()
	hpa.Namespace = "dash"
	hpa.Spec.Metrics = []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
		Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To(int32(80))},
	}}}
	hpa.Spec.MinReplicas = ptr.To(int32(3))
	hpa.Spec.MaxReplicas = 4

	start := metav1.NewTime(time.Now().Add(2 * time.Hour).Truncate(time.Second))
	vm := &computev1alpha1.CloudVM{ObjectMeta: metav1.ObjectMeta{Namespace: "dash", Name: "render"}}
	vm.Spec.CPU = resource.MustParse("2")
	vm.Spec.Memory = resource.MustParse("8Gi")
	vm.Spec.Duration = metav1.Duration{Duration: 3 * time.Hour}
	vm.Spec.Image = "ubuntu-24.04"
	vm.Spec.Schedule = &computev1alpha1.CloudVMSchedule{Decision: computev1alpha1.CloudVMDecision{
		Provider: "azure", Region: "westeurope", Zone: "NL", InstanceType: "Standard_D2s_v5",
		PricePerHour: &computev1alpha1.Money{Amount: resource.MustParse("0.096"), Currency: "USD"},
		Start:        start, End: metav1.NewTime(start.Add(3 * time.Hour)),
		ExpectedEmissionsGrams: ptr.To(resource.MustParse("1234.5")), BaselineEmissionsGrams: ptr.To(resource.MustParse("2100")), IntensitySource: "offline",
		Reason: "lowest forecast emissions before the deadline", DecidedTime: metav1.Now(),
	}}

	ad := &sharingv1alpha1.Advertisement{ObjectMeta: metav1.ObjectMeta{Namespace: "dash", Name: "provider-a"}}
	ad.Spec = sharingv1alpha1.AdvertisementSpec{
		ClusterID: "provider-a", Consumer: "management", Region: "nancy",
		Availability: []sharingv1alpha1.NodeShape{{Name: "2cpu", Count: 1, Resources: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("4Gi")}}},
		Timestamp:    metav1.Now(), TimeToLive: metav1.Duration{Duration: 30 * time.Minute},
	}
	vn := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "vn-provider-a-2cpu-0", Labels: map[string]string{
		sharingv1alpha1.LabelVirtualNode: "true", sharingv1alpha1.LabelProvider: "provider-a", sharingv1alpha1.LabelShape: "2cpu"}}}
	vn.Spec.Taints = []corev1.Taint{{Key: sharingv1alpha1.LabelVirtualNode, Value: "provider-a", Effect: corev1.TaintEffectNoSchedule}}

	return []client.Object{
		mcd("web", 3, "500m", multiclusterv1alpha1.Placement{}),
		// 16 CPU fit no member node (2 CPU each): it stays pending.
		mcd("stuck", 1, "16", multiclusterv1alpha1.Placement{Locations: []multiclusterv1alpha1.ClusterName{"member-1"}}),
		// 4 replicas of 1.5 CPU: the members' four nodes hold three beside
		// web, the rest bursts to the cloud cluster the provisioner buys.
		mcd("burst", 4, "1500m", multiclusterv1alpha1.Placement{Bursting: &multiclusterv1alpha1.Bursting{Enabled: true, Policy: multiclusterv1alpha1.BurstNearestFirst}}),
		cp, hpa, vm, ad, vn,
	}
}

// setDashboardStatuses writes what the agent and the kubelet would: the
// advertisement's decision and the virtual node's readiness (no agent runs
// in this test).
func setDashboardStatuses(t *testing.T, c client.Client) {
	t.Helper()
	ctx := t.Context()
	var ad sharingv1alpha1.Advertisement
	if err := c.Get(ctx, client.ObjectKey{Namespace: "dash", Name: "provider-a"}, &ad); err != nil {
		t.Fatal(err)
	}
	ad.Status.Decision = sharingv1alpha1.DecisionAccepted
	ad.Status.Reason = "PolicyAccepted"
	ad.Status.Message = "within the price ceiling"
	if err := c.Status().Update(ctx, &ad); err != nil {
		t.Fatal(err)
	}
	// The node lifecycle controller writes the node too.
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		var vn corev1.Node
		if err := c.Get(ctx, client.ObjectKey{Name: "vn-provider-a-2cpu-0"}, &vn); err != nil {
			return err
		}
		vn.Status.Allocatable = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("4Gi")}
		vn.Status.Capacity = vn.Status.Allocatable
		vn.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "ProviderReady", LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now()}}
		return c.Status().Update(ctx, &vn)
	}); err != nil {
		t.Fatal(err)
	}
}

// browser is a headless Chromium driven over the DevTools protocol.
type browser struct {
	t   *testing.T
	ctx context.Context
}

// newBrowser starts Debian's Chromium (MERIDIAN_CHROMIUM, else chromium on
// PATH; `make chromium` installs it), stopped when t ends.
func newBrowser(t *testing.T) *browser {
	t.Helper()
	bin := os.Getenv("MERIDIAN_CHROMIUM")
	if bin == "" {
		var err error
		if bin, err = exec.LookPath("chromium"); err != nil {
			t.Fatalf("no chromium in MERIDIAN_CHROMIUM or on PATH: run 'make chromium': %v", err)
		}
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1440, 1000),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("failed to start chromium %s: %v", bin, err)
	}
	return &browser{t: t, ctx: ctx}
}

// show switches the page to another of its views (the URL's fragment), which
// does not reload it.
func (b *browser) show(view string) {
	b.t.Helper()
	eval[string](b, fmt.Sprintf("location.hash = %q", "#"+view))
}

// open loads url.
func (b *browser) open(url string) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, chromedp.Navigate(url)); err != nil {
		b.t.Fatalf("open %s: %v", url, err)
	}
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](b *browser, expr string) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		b.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// waitText waits until the element sel exists and its text contains want.
func (b *browser) waitText(sel, want string, timeout time.Duration) {
	b.t.Helper()
	expr := fmt.Sprintf(`(() => { const e = document.querySelector(%q); return e ? e.textContent : "(no element " + %q + ")"; })()`, sel, sel)
	var got string
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
		if got = eval[string](b, expr); strings.Contains(got, want) {
			return
		}
	}
	b.t.Fatalf("%s: want text containing %q within %s, have %q; the page shows:\n%s", sel, want, timeout, got, eval[string](b, "document.querySelector('main').innerText.slice(0, 3000)"))
}

// waitFunc waits until the JavaScript expression is true.
func (b *browser) waitFunc(expr, what string, timeout time.Duration) {
	b.t.Helper()
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
		if eval[bool](b, expr) {
			return
		}
	}
	b.t.Fatalf("%s: not within %s", what, timeout)
}

func (b *browser) screenshot(path string) {
	b.t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatalf("screenshot: %v", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		b.t.Fatal(err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}
