package charts_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/bootstrap"
	"github.com/meridian-dev/meridian/internal/scheme"
	"github.com/meridian-dev/meridian/internal/testbed"
	"github.com/meridian-dev/meridian/internal/testenv"
)

// command returns the first container's command of a workload.
func command(t *testing.T, w *unstructured.Unstructured) []string {
	t.Helper()
	cs, _, _ := unstructured.NestedSlice(w.Object, "spec", "template", "spec", "containers")
	if len(cs) == 0 {
		t.Fatalf("%s %s has no container", w.GetKind(), w.GetName())
	}
	c, _, _ := unstructured.NestedStringSlice(cs[0].(map[string]any), "command")
	return c
}

func TestMeridianChartRendersTheControlPlane(t *testing.T) {
	objs, err := render(t, "--set", "controlPlane.enabled=true")
	if err != nil {
		t.Fatal(err)
	}
	// The control plane's parts; the controller needs no rights in the
	// hosting cluster, and registers its webhooks in the control plane.
	find(t, objs, "StatefulSet", "-control-plane-etcd")
	find(t, objs, "Deployment", "-control-plane-apiserver")
	find(t, objs, "Service", "-control-plane-apiserver")
	find(t, objs, "Secret", "-control-plane-admin-kubeconfig")
	for _, kind := range []string{"ClusterRole", "ClusterRoleBinding", "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"} {
		if n := kinds(objs)[kind]; n > 0 {
			t.Errorf("%d %s rendered with controlPlane.enabled; want none in the hosting cluster", n, kind)
		}
	}
	ctrlArgs := args(t, find(t, objs, "Deployment", "-controller"))
	for _, want := range []string{"--kubeconfig=/var/run/meridian/management/kubeconfig", "--bootstrap",
		"--bootstrap-webhook-url=https://meridian-m-webhook.meridian-system.svc:443", "--bootstrap-webhook-failure-policy=Fail"} {
		if !slices.Contains(ctrlArgs, want) {
			t.Errorf("controller args %v lack %s", ctrlArgs, want)
		}
	}
	// The control plane's controller manager runs what the testbed's
	// management cluster runs.
	kcm := command(t, find(t, objs, "Deployment", "-control-plane-controller-manager"))
	if !slices.Contains(kcm, "--controllers="+testbed.ManagementControllers) {
		t.Errorf("kube-controller-manager command %v; want --controllers=%s", kcm, testbed.ManagementControllers)
	}
}

// freePorts returns n free loopback ports.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var out []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		out = append(out, l.Addr().(*net.TCPAddr).Port)
	}
	return out
}

// run starts a rendered command's binary from the Kubernetes binaries'
// folder with its arguments rewritten by rewrite, logging to the test's
// folder, and stops it when the test ends.
func run(t *testing.T, bin string, cmdline []string, rewrite func(string) string, extra ...string) {
	t.Helper()
	assets, err := testenv.AssetsDir()
	if err != nil {
		t.Fatal(err)
	}
	var a []string
	for _, arg := range cmdline[1:] {
		if arg = rewrite(arg); arg != "" {
			a = append(a, arg)
		}
	}
	log, err := os.Create(filepath.Join(t.TempDir(), bin+".log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(assets, bin), append(a, extra...)...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			out, _ := os.ReadFile(log.Name())
			t.Logf("%s log (last 3000 bytes):\n%s", bin, tail(string(out), 3000))
		}
	})
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// TestMeridianChartControlPlaneRuns runs the chart's control plane from
// its rendered commands and keys (etcd, kube-apiserver and
// kube-controller-manager on loopback, with only the addresses and paths
// rewritten), bootstraps it as `meridian controller --bootstrap` does with
// the controller's rendered kubeconfig, and checks that the admin's
// kubeconfig reaches it, that its controller manager runs the namespace
// controller, and that a Deployment applied there runs nothing.
func TestMeridianChartControlPlaneRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a control plane")
	}
	objs, err := render(t, "--set", "controlPlane.enabled=true")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ports := freePorts(t, 5)
	etcdPort, peerPort, metricsPort, apiPort, kcmPort := ports[0], ports[1], ports[2], ports[3], ports[4]
	apiURL := fmt.Sprintf("https://127.0.0.1:%d", apiPort)
	// The rendered Secrets' files, with the in-cluster address of the API
	// server replaced by the loopback one.
	files := func(suffix string) map[string]string {
		out := map[string]string{}
		data, _, _ := unstructured.NestedStringMap(find(t, objs, "Secret", suffix).Object, "data")
		for k, v := range data {
			b, err := base64.StdEncoding.DecodeString(v)
			if err != nil {
				t.Fatalf("Secret *%s key %s: %v", suffix, k, err)
			}
			out[k] = strings.ReplaceAll(string(b), "https://meridian-m-control-plane-apiserver.meridian-system.svc:6443", apiURL)
		}
		return out
	}
	for k, v := range files("-control-plane-pki") {
		if err := os.WriteFile(filepath.Join(dir, k), []byte(v), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	rewrite := func(arg string) string {
		arg = strings.ReplaceAll(arg, "/etc/meridian/pki/", dir+"/")
		name, _, _ := strings.Cut(arg, "=")
		switch name {
		case "--data-dir":
			return "--data-dir=" + filepath.Join(dir, "etcd")
		case "--listen-client-urls", "--advertise-client-urls":
			return fmt.Sprintf("%s=https://127.0.0.1:%d", name, etcdPort)
		case "--listen-metrics-urls":
			return fmt.Sprintf("%s=http://127.0.0.1:%d", name, metricsPort)
		case "--etcd-servers":
			return fmt.Sprintf("%s=https://127.0.0.1:%d", name, etcdPort)
		}
		return arg
	}
	run(t, "etcd", command(t, find(t, objs, "StatefulSet", "-control-plane-etcd")), rewrite,
		fmt.Sprintf("--listen-peer-urls=http://127.0.0.1:%d", peerPort), fmt.Sprintf("--initial-advertise-peer-urls=http://127.0.0.1:%d", peerPort),
		fmt.Sprintf("--initial-cluster=default=http://127.0.0.1:%d", peerPort))
	run(t, "kube-apiserver", command(t, find(t, objs, "Deployment", "-control-plane-apiserver")), func(arg string) string {
		if strings.HasPrefix(arg, "--secure-port=") {
			return fmt.Sprintf("--secure-port=%d", apiPort)
		}
		return rewrite(arg)
	}, "--bind-address=127.0.0.1")

	clientOf := func(secret string) client.Client {
		cfg, err := clientcmd.RESTConfigFromKubeConfig([]byte(files(secret)["kubeconfig"]))
		if err != nil {
			t.Fatalf("the kubeconfig of Secret *%s: %v", secret, err)
		}
		c, err := client.New(cfg, client.Options{Scheme: scheme.New()})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	ctrl, admin := clientOf("-control-plane-controller-kubeconfig"), clientOf("-control-plane-admin-kubeconfig")
	ctx := t.Context()
	cfg, err := clientcmd.RESTConfigFromKubeConfig([]byte(files("-control-plane-admin-kubeconfig")["kubeconfig"]))
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Ready includes its default roles, which the controller manager
	// needs at start (in a pod, it would restart until they are there).
	testenv.Eventually(t, time.Minute, "the control plane's API server ready", func() string {
		if _, err := cs.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx); err != nil {
			return err.Error()
		}
		return ""
	})
	run(t, "kube-controller-manager", command(t, find(t, objs, "Deployment", "-control-plane-controller-manager")), func(arg string) string {
		if strings.HasPrefix(arg, "--secure-port=") {
			return fmt.Sprintf("--secure-port=%d", kcmPort)
		}
		return rewrite(arg)
	}, "--bind-address=127.0.0.1")
	testenv.Eventually(t, time.Minute, "the control plane's API server serving the controller's token", func() string {
		if err := ctrl.List(ctx, &corev1.NamespaceList{}); err != nil {
			return err.Error()
		}
		return ""
	})
	// What the controller writes with --bootstrap, as the chart's
	// controller runs it (the webhook's CA is the rendered one).
	hook := files("-webhook-cert")
	bctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := bootstrap.Apply(bctx, ctrl, bootstrap.Options{FieldManager: "meridian-controller", Namespace: "meridian-system",
		WebhookURL: "https://meridian-m-webhook.meridian-system.svc:443", WebhookCA: []byte(hook["ca.crt"]), FailurePolicy: "Fail"}); err != nil {
		t.Fatal(err)
	}
	var mcds multiclusterv1alpha1.MultiClusterDeploymentList
	if err := admin.List(ctx, &mcds); err != nil {
		t.Errorf("the admin lists MultiClusterDeployments after the bootstrap: %v", err)
	}
	// The namespace controller runs: a deleted namespace goes.
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "shop"}}
	if err := admin.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop"}, Spec: appsv1.DeploymentSpec{
		Replicas: ptr.To[int32](2), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "registry.k8s.io/pause:3.10"}}}},
	}}
	if err := admin.Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	other := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "scratch"}}
	if err := admin.Create(ctx, other); err != nil {
		t.Fatal(err)
	}
	if err := admin.Delete(ctx, other); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, time.Minute, "the deleted namespace gone (the namespace controller runs)", func() string {
		err := admin.Get(ctx, client.ObjectKeyFromObject(other), &corev1.Namespace{})
		if apierrors.IsNotFound(err) {
			return ""
		}
		return fmt.Sprintf("namespace scratch: %v", err)
	})
	// By then a deployment controller would long have made the
	// Deployment's ReplicaSet.
	var rss appsv1.ReplicaSetList
	if err := admin.List(ctx, &rss, client.InNamespace("shop")); err != nil {
		t.Fatal(err)
	}
	if len(rss.Items) > 0 {
		t.Errorf("%d ReplicaSets made from a Deployment on the control plane; want none (no workload controllers)", len(rss.Items))
	}
	// The webhook configuration points at the controller's Service.
	var hooks unstructured.UnstructuredList
	hooks.SetAPIVersion("admissionregistration.k8s.io/v1")
	hooks.SetKind("MutatingWebhookConfigurationList")
	if err := admin.List(ctx, &hooks); err != nil {
		t.Fatal(err)
	}
	var urls []string
	for _, h := range hooks.Items {
		ws, _, _ := unstructured.NestedSlice(h.Object, "webhooks")
		for _, w := range ws {
			u, _, _ := unstructured.NestedString(w.(map[string]any), "clientConfig", "url")
			urls = append(urls, u)
		}
	}
	if want := "https://meridian-m-webhook.meridian-system.svc:443/mutate-compute-meridian-dev-v1alpha1-cloudvm"; !slices.Contains(urls, want) {
		t.Errorf("mutating webhooks' URLs %v; want %s", urls, want)
	}
}
