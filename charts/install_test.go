package charts_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/testbed"
	"github.com/meridian-dev/meridian/internal/testenv"
)

// TestMeridianChartInstallsIntoTheTestbed installs the chart into a
// testbed's management cluster (the controller with its webhook and the
// advisor) and into a member (the agent alone), checks that the API servers
// hold every object the releases rendered, upgrades the management release
// (the webhook keeps its certificate) and uninstalls both.
func TestMeridianChartInstallsIntoTheTestbed(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping the install into a testbed in -short mode")
	}
	ctrllog.SetLogger(logr.Discard()) // this process's clients; the components log to their own
	dir := filepath.Join(t.TempDir(), "testbed")
	t.Cleanup(func() {
		if _, err := testbed.Down(context.Background(), dir); err != nil {
			t.Errorf("failed to stop the testbed: %v", err)
		}
	})
	tb, err := testbed.Up(t.Context(), testbed.Options{Name: "chart", Dir: dir,
		Profile: testbed.Uniform(testbed.UniformOptions{Clusters: 1, Nodes: 1})})
	if err != nil {
		t.Fatalf("failed to start the testbed: %v", err)
	}

	mgmt := install(t, tb.Management(), "meridian", "--set", "advisor.enabled=true")
	secret := &unstructured.Unstructured{}
	secret.SetAPIVersion("v1")
	secret.SetKind("Secret")
	key := client.ObjectKey{Namespace: "meridian-system", Name: "meridian-webhook-cert"}
	if err := mgmt.Get(t.Context(), key, secret); err != nil {
		t.Fatalf("the webhook's certificate Secret: %v", err)
	}
	before, _, _ := unstructured.NestedString(secret.Object, "data", "ca.crt")

	// An upgrade keeps the webhook's certificate: the CA the API server
	// trusts does not change under running replicas.
	if out, err := helm(t, "upgrade", "meridian", chart, "--namespace", "meridian-system",
		"--kubeconfig", kubeconfig(t, tb.Management()), "--set", "advisor.enabled=true,controller.replicas=3"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if err := mgmt.Get(t.Context(), key, secret); err != nil {
		t.Fatal(err)
	}
	if after, _, _ := unstructured.NestedString(secret.Object, "data", "ca.crt"); after != before {
		t.Error("helm upgrade replaced the webhook's CA")
	}

	// The controller does its job with the rights the chart gave it.
	bin := testenv.MeridianBinary(t)
	member := tb.Members()[0]
	log, stopController := runAs(t, bin, tb.Management(), "meridian-controller", "controller", "--namespace", "meridian-system")
	holds(t, mgmt, "meridian-controller", log)
	memberClient, err := member.Client()
	if err != nil {
		t.Fatal(err)
	}
	mcd := &multiclusterv1alpha1.MultiClusterDeployment{
		ObjectMeta: metav1.ObjectMeta{Name: "rights", Namespace: "default"},
		Spec: multiclusterv1alpha1.MultiClusterDeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "rights"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "rights"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx",
					Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}}}},
			},
		},
	}
	if err := mgmt.Create(t.Context(), mcd); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, time.Minute, "the controller, with the chart's rights, places a MultiClusterDeployment", func() string {
		var d appsv1.Deployment
		if err := memberClient.Get(t.Context(), client.ObjectKey{Namespace: "default", Name: "rights"}, &d); err != nil {
			return fmt.Sprintf("member Deployment: %v; controller log: %s", err, log.tail())
		}
		return ""
	})
	log.noneForbidden(t)

	install(t, member, "meridian-agent", "--set", "controller.enabled=false,agent.enabled=true")
	agentLog, stopAgent := runAs(t, bin, member, "meridian-agent-agent", "agent", "--namespace", "meridian-system", "--cluster-id", member.Name)
	holds(t, memberClient, "meridian-agent."+member.Name, agentLog)
	// The agent watches nodes, pods, peers and advertisements from the
	// start: every controller it started has synced its caches (a list it
	// may not make never syncs) before the log is searched.
	testenv.Eventually(t, time.Minute, "every controller of the agent synced", func() string {
		l := agentLog.String()
		started, working := strings.Count(l, "Starting Controller"), strings.Count(l, "Starting workers")
		if started == 0 || working < started {
			return fmt.Sprintf("%d controllers started, %d synced and working; log: %s", started, working, agentLog.tail())
		}
		return ""
	})
	agentLog.noneForbidden(t)
	// Both stop before their rights are uninstalled.
	stopController()
	stopAgent()

	for _, c := range []*testbed.Cluster{tb.Management(), tb.Members()[0]} {
		release := map[bool]string{true: "meridian", false: "meridian-agent"}[c.Role == testbed.RoleManagement]
		objs := manifest(t, c, release)
		if out, err := helm(t, "uninstall", release, "--namespace", "meridian-system", "--kubeconfig", kubeconfig(t, c), "--wait"); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		cl, err := c.Client()
		if err != nil {
			t.Fatal(err)
		}
		testenv.Eventually(t, 30*time.Second, "every object of "+release+" gone from "+c.Name, func() string {
			for _, o := range objs {
				err := cl.Get(t.Context(), client.ObjectKeyFromObject(o), o.DeepCopy())
				if err == nil {
					return o.GetKind() + " " + o.GetName() + " still exists after helm uninstall"
				}
				if !apierrors.IsNotFound(err) {
					return err.Error()
				}
			}
			return ""
		})
	}
}

// logBuffer is a component's log, written by its manager's goroutines.
type logBuffer struct{ testenv.LockedBuffer }

// tail is the log's last lines, for a failure message.
func (b *logBuffer) tail() string {
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	return strings.Join(lines[max(0, len(lines)-10):], "\n")
}

// noneForbidden fails t for every line of the log where the API server
// refused the component a right.
func (b *logBuffer) noneForbidden(t *testing.T) {
	t.Helper()
	for line := range strings.SplitSeq(b.String(), "\n") {
		if strings.Contains(line, "forbidden") {
			t.Errorf("the chart's role lacks a right: %s", line)
		}
	}
}

// runAs runs `meridian ARGS` (the executable bin, as its own process, so
// that its log is its own) against c as the chart's service account
// account in meridian-system (the administrator's kubeconfig impersonating
// it, so that only the rights the chart bound apply), with leader election,
// until stop is called or t ends; it returns the component's log.
func runAs(t *testing.T, bin string, c *testbed.Cluster, account string, args ...string) (log *logBuffer, stop func()) {
	t.Helper()
	cfg, err := clientcmd.Load(c.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range cfg.AuthInfos {
		u.Impersonate = "system:serviceaccount:meridian-system:" + account
	}
	path := filepath.Join(t.TempDir(), account+".kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	log = &logBuffer{}
	cmd := exec.Command(bin, append(args, "--kubeconfig", path, "--leader-elect=true", "--metrics-bind-address=0", "--health-probe-bind-address=0")...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatalf("failed to run meridian %s: %v", args[0], err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("meridian %s as %s: %v; log: %s", args[0], account, err, log.tail())
				}
			case <-time.After(30 * time.Second):
				_ = cmd.Process.Kill()
				killed := <-done
				t.Errorf("meridian %s as %s did not stop within 30s of SIGTERM (then killed: %v)", args[0], account, killed)
			}
		})
	}
	t.Cleanup(stop)
	return log, stop
}

// holds waits until the Lease name in meridian-system has a holder: the
// component elected itself with the chart's namespaced role.
func holds(t *testing.T, c client.Client, name string, log *logBuffer) {
	t.Helper()
	testenv.Eventually(t, time.Minute, "lease "+name+" held", func() string {
		var l coordinationv1.Lease
		if err := c.Get(t.Context(), client.ObjectKey{Namespace: "meridian-system", Name: name}, &l); err != nil {
			return fmt.Sprintf("%v; log: %s", err, log.tail())
		}
		if ptr.Deref(l.Spec.HolderIdentity, "") == "" {
			return "no holder"
		}
		return ""
	})
}

// install installs the chart as release into c's namespace meridian-system
// and checks that the API server holds every object of the release; it
// returns a client of c.
func install(t *testing.T, c *testbed.Cluster, release string, args ...string) client.Client {
	t.Helper()
	a := append([]string{"install", release, chart, "--namespace", "meridian-system", "--create-namespace",
		"--kubeconfig", kubeconfig(t, c)}, args...)
	if out, err := helm(t, a...); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	cl, err := c.Client()
	if err != nil {
		t.Fatal(err)
	}
	objs := manifest(t, c, release)
	if len(objs) == 0 {
		t.Fatalf("release %s in %s has no objects", release, c.Name)
	}
	for _, o := range objs {
		if err := cl.Get(t.Context(), client.ObjectKeyFromObject(o), o.DeepCopy()); err != nil {
			t.Errorf("%s: %s %s of release %s: %v", c.Name, o.GetKind(), o.GetName(), release, err)
		}
	}
	t.Logf("%s: release %s installed, %d objects: %v", c.Name, release, len(objs), kinds(objs))
	return cl
}

// manifest returns the objects helm recorded for the release in c.
func manifest(t *testing.T, c *testbed.Cluster, release string) []*unstructured.Unstructured {
	t.Helper()
	out, err := helm(t, "get", "manifest", release, "--namespace", "meridian-system", "--kubeconfig", kubeconfig(t, c))
	if err != nil {
		t.Fatal(err)
	}
	objs, err := decode(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		if o.GetNamespace() == "" && isNamespaced(o.GetKind()) {
			o.SetNamespace("meridian-system")
		}
	}
	return objs
}

// isNamespaced tells the chart's namespaced kinds from its cluster-scoped
// ones (the manifests helm records leave the namespace out when the
// template does).
func isNamespaced(kind string) bool {
	switch kind {
	case "ClusterRole", "ClusterRoleBinding", "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration", "CustomResourceDefinition":
		return false
	}
	return true
}

// kubeconfig writes c's kubeconfig into a file and returns its path.
func kubeconfig(t *testing.T, c *testbed.Cluster) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), c.Name+".kubeconfig")
	if err := os.WriteFile(path, c.Kubeconfig, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
