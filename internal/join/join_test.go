package join_test

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/controller"
	"github.com/meridian-dev/meridian/internal/join"
	"github.com/meridian-dev/meridian/internal/testenv"
)

func eventually(t *testing.T, what string, check func() string) {
	t.Helper()
	testenv.Eventually(t, 60*time.Second, what, check)
}

// startController runs every controller of Meridian on env with the
// controller's own rights.
func startController(t *testing.T, env *testenv.Env, opts controller.Options) *testenv.Manager {
	t.Helper()
	opts.HeartbeatInterval = 500 * time.Millisecond
	return env.StartManagerAs(t, "controller", func(mgr ctrl.Manager) error {
		_, err := controller.Setup(mgr, opts)
		return err
	})
}

func joinEdge(t *testing.T, env *testenv.Env, member *rest.Config, o join.Options) string {
	t.Helper()
	var out bytes.Buffer
	if err := join.Join(t.Context(), env.Management.Config, member, o, &out); err != nil {
		t.Fatalf("join: %v\n%s", err, out.String())
	}
	return out.String()
}

func clusterReady(t *testing.T, c client.Client, name string) string {
	cl := &multiclusterv1alpha1.Cluster{}
	if err := c.Get(t.Context(), client.ObjectKey{Name: name}, cl); err != nil {
		return err.Error()
	}
	if cond := meta.FindStatusCondition(cl.Status.Conditions, multiclusterv1alpha1.ClusterReady); cond == nil || cond.Status != metav1.ConditionTrue {
		return fmt.Sprintf("Cluster %s not Ready: %+v", name, cond)
	}
	return ""
}

// TestJoinPlacesAndUnjoinLeavesNothing joins a member that knows nothing
// of Meridian, places a workload on it with the rights the join granted,
// checks that a second join changes nothing, and that an unjoin after the
// workload went leaves both clusters as they were.
func TestJoinPlacesAndUnjoinLeavesNothing(t *testing.T) {
	env := testenv.Start(t, testenv.Options{Members: 1})
	member := env.Members[0]
	member.AddNode(t, "edge-node", "4", "16Gi")
	env.Management.CreateNamespaces(t, "shop")
	startController(t, env, controller.Options{})
	managementBefore, memberBefore := env.Management.Objects(t), member.Objects(t)

	o := join.Options{Name: "edge", Region: "eu-west-3", Zone: "eu-west-3a", GridZone: "FR", Jurisdiction: "FR", Labels: map[string]string{"tier": "edge"},
		ProbeImage: "registry.example.com/meridian:dev"}
	out := joinEdge(t, env, member.Config, o)
	probe := &appsv1.Deployment{}
	if err := member.Client.Get(t.Context(), client.ObjectKey{Namespace: "meridian-system", Name: join.ProbeName}, probe); err != nil {
		t.Fatalf("the prober's Deployment: %v", err)
	}
	if spec := probe.Spec.Template.Spec; !spec.HostNetwork || spec.ServiceAccountName != join.ProbeName ||
		!slices.Equal(spec.Containers[0].Args, []string{"probe", "--namespace", "meridian-system", "--listen", ":7946", "--advertise", "$(HOST_IP):7946"}) {
		t.Errorf("the prober's pod = %+v, want meridian probe on the host network advertising its node's address", spec)
	}
	if !strings.Contains(out, "member: ClusterRole meridian-member created") || !strings.Contains(out, "management cluster: Cluster edge created") {
		t.Errorf("join's output does not say what it created:\n%s", out)
	}
	eventually(t, "the joined member Ready", func() string { return clusterReady(t, env.Management.Client, "edge") })

	cl := &multiclusterv1alpha1.Cluster{}
	if err := env.Management.Client.Get(t.Context(), client.ObjectKey{Name: "edge"}, cl); err != nil {
		t.Fatal(err)
	}
	want := multiclusterv1alpha1.ClusterSpec{
		KubeconfigSecretRef: multiclusterv1alpha1.SecretReference{Name: "edge-kubeconfig", Namespace: "meridian-system", Key: "kubeconfig"},
		Region:              "eu-west-3", Zone: "eu-west-3a", Provider: "OnPremises", GridZone: "FR", Jurisdiction: "FR",
	}
	if diff := cmp.Diff(want, cl.Spec); diff != "" {
		t.Errorf("Cluster spec (-want +got):\n%s", diff)
	}
	if cl.Labels["tier"] != "edge" {
		t.Errorf("Cluster labels = %v, want tier=edge among them", cl.Labels)
	}

	// A second join with the same flags changes nothing.
	afterFirst := env.Management.Objects(t)
	again := joinEdge(t, env, member.Config, o)
	for _, line := range strings.Split(strings.TrimSpace(again), "\n") {
		if !strings.HasSuffix(line, " unchanged") {
			t.Errorf("second join changed something: %q\n%s", line, again)
		}
	}
	if diff := cmp.Diff(afterFirst, env.Management.Objects(t)); diff != "" {
		t.Errorf("objects of the management cluster after a second join (-first +second):\n%s", diff)
	}

	// The controller places with the rights the join granted.
	mcd := &multiclusterv1alpha1.MultiClusterDeployment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}}
	mcd.Spec.Replicas = ptr.To[int32](2)
	mcd.Spec.Template = podTemplate()
	mcd.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	if err := env.Management.Client.Create(t.Context(), mcd); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the member Deployment", func() string {
		d := &appsv1.Deployment{}
		if err := member.Client.Get(t.Context(), client.ObjectKey{Namespace: "shop", Name: "web"}, d); err != nil {
			got := &multiclusterv1alpha1.MultiClusterDeployment{}
			_ = env.Management.Client.Get(t.Context(), client.ObjectKeyFromObject(mcd), got)
			return fmt.Sprintf("%v; status %+v", err, got.Status)
		}
		if *d.Spec.Replicas != 2 {
			return "replicas not 2"
		}
		return ""
	})

	// Unjoin refuses while the workload runs there.
	var unjoinOut bytes.Buffer
	err := join.Unjoin(t.Context(), env.Management.Config, member.Config, join.UnjoinOptions{Name: "edge", Poll: 100 * time.Millisecond}, &unjoinOut)
	if !errors.Is(err, join.ErrStillRunning) || !strings.Contains(err.Error(), "Deployment shop/web") {
		t.Fatalf("unjoin with a workload running = %v, want %v naming Deployment shop/web", err, join.ErrStillRunning)
	}

	// Once it is gone, unjoin leaves both clusters as they were.
	if err := env.Management.Client.Delete(t.Context(), mcd); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the member Deployment gone", func() string {
		if err := member.Client.Get(t.Context(), client.ObjectKey{Namespace: "shop", Name: "web"}, &appsv1.Deployment{}); err == nil {
			return "still there"
		}
		return ""
	})
	unjoinOut.Reset()
	if err := join.Unjoin(t.Context(), env.Management.Config, member.Config, join.UnjoinOptions{Name: "edge", Poll: 100 * time.Millisecond}, &unjoinOut); err != nil {
		t.Fatalf("unjoin: %v\n%s", err, unjoinOut.String())
	}
	// The namespace meridian-system join made in the management cluster
	// is the controller's to keep; nothing else is left (the member's
	// namespace shop, which the placement made, went with it).
	if diff := cmp.Diff(memberBefore, member.Objects(t)); diff != "" {
		t.Errorf("member objects after unjoin (-before join +after unjoin):\n%s", diff)
	}
	if diff := cmp.Diff(managementBefore, without(env.Management.Objects(t), "namespaces meridian-system", "multiclusterdeployments")); diff != "" {
		t.Errorf("management objects after unjoin (-before join +after unjoin):\n%s", diff)
	}
}

// without drops the entries that start with any of prefixes.
func without(objs []string, prefixes ...string) []string {
	var out []string
	for _, o := range objs {
		keep := true
		for _, p := range prefixes {
			keep = keep && !strings.HasPrefix(o, p)
		}
		if keep {
			out = append(out, o)
		}
	}
	return out
}

func podTemplate() corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "web", Image: "nginx",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: mustQuantity("100m")}},
		}}},
	}
}

// TestJoinRefuses shows each refusal names what is wrong and writes
// nothing.
func TestJoinRefuses(t *testing.T) {
	env := testenv.Start(t, testenv.Options{Members: 1})
	member := env.Members[0]
	joinEdge(t, env, member.Config, join.Options{Name: "edge"})
	limited := limitedUser(t, member, "join-without-clusterroles")
	managementJoined, memberJoined := env.Management.Objects(t), member.Objects(t)
	unreachable := rest.CopyConfig(member.Config)
	unreachable.Host = "https://127.0.0.1:1"

	for _, tc := range []struct {
		name   string
		member *rest.Config
		o      join.Options
		want   error
		says   string
	}{
		{name: "the member joined under another name", member: member.Config, o: join.Options{Name: "edge-2"}, want: join.ErrJoinedElsewhere, says: `is Cluster "edge" already`},
		{name: "an unreachable member", member: unreachable, o: join.Options{Name: "far"}, want: join.ErrUnreachable, says: "https://127.0.0.1:1 does not answer"},
		{name: "a member user that may not create ClusterRoles", member: limited, o: join.Options{Name: "edge"}, want: join.ErrForbidden, says: "may not create clusterroles.rbac.authorization.k8s.io (cluster-wide)"},
		{name: "a bad option", member: member.Config, o: join.Options{Name: "Edge", TokenTTL: time.Minute, Resources: []string{"*"}}, says: "--token-ttl 1m0s: must be at least 10m0s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			err := join.Join(t.Context(), env.Management.Config, tc.member, tc.o, &out)
			if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("join = %v, want %v saying %q", err, tc.want, tc.says)
			}
			if diff := cmp.Diff(managementJoined, env.Management.Objects(t)); diff != "" {
				t.Errorf("a refused join wrote into the management cluster (-before +after):\n%s", diff)
			}
			if diff := cmp.Diff(memberJoined, member.Objects(t)); diff != "" {
				t.Errorf("a refused join wrote into the member (-before +after):\n%s", diff)
			}
		})
	}
}

// limitedUser returns a configuration of a user of c who may do all that
// a join does but create ClusterRoles.
func limitedUser(t *testing.T, c *testenv.Cluster, name string) *rest.Config {
	t.Helper()
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"namespaces", "serviceaccounts", "serviceaccounts/token"}, Verbs: []string{"get", "list", "create", "patch"}},
			{APIGroups: []string{rbacv1.GroupName}, Resources: []string{"clusterroles"}, Verbs: []string{"get", "patch", "escalate"}},
			{APIGroups: []string{rbacv1.GroupName}, Resources: []string{"clusterrolebindings", "roles", "rolebindings"}, Verbs: []string{"get", "create", "patch", "bind", "escalate"}},
		},
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: name}},
	}
	for _, obj := range []client.Object{role, binding} {
		if err := c.Client.Create(t.Context(), obj); err != nil {
			t.Fatal(err)
		}
	}
	u, err := c.AddUser(envtest.User{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func mustQuantity(s string) resource.Quantity { return resource.MustParse(s) }

// TestMemberGuardBoundsTheController shows what the member's admission
// policy refuses the controller's ServiceAccount that RBAC cannot: a
// ServiceAccount token Secret, and writes into the system namespaces and
// meridian join's, while the rest of what its role grants goes through.
func TestMemberGuardBoundsTheController(t *testing.T) {
	env := testenv.Start(t, testenv.Options{Members: 1})
	member := env.Members[0]
	member.CreateNamespaces(t, "shop")
	joinEdge(t, env, member.Config, join.Options{Name: "edge"})
	s := &corev1.Secret{}
	if err := env.Management.Client.Get(t.Context(), client.ObjectKey{Namespace: join.DefaultNamespace, Name: join.SecretName("edge")}, s); err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.RESTConfigFromKubeConfig(s.Data[join.KubeconfigKey])
	if err != nil {
		t.Fatal(err)
	}
	asController, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		obj  client.Object
		says string
	}{
		{"a token Secret", &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "steal",
			Annotations: map[string]string{corev1.ServiceAccountNameKey: "default"}}, Type: corev1.SecretTypeServiceAccountToken},
			"does not make ServiceAccount token Secrets"},
		{"a ConfigMap in kube-system", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "x"}}, "system namespaces"},
		{"a Secret in join's namespace", &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: join.DefaultNamespace, Name: "x"}}, "system namespaces"},
		{"a ConfigMap of a workload", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-config"}}, ""},
		{"the prober's targets", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: join.DefaultNamespace, Name: "meridian-probe-targets"}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			testenv.Eventually(t, 30*time.Second, "the policy in force", func() string {
				err = asController.Create(t.Context(), tc.obj.DeepCopyObject().(client.Object))
				if tc.says != "" && err == nil {
					// The API server loads a new policy within a second.
					_ = asController.Delete(t.Context(), tc.obj)
					return "allowed"
				}
				return ""
			})
			switch {
			case tc.says == "" && err != nil:
				t.Errorf("create = %v, want it allowed", err)
			case tc.says != "" && (err == nil || !strings.Contains(err.Error(), tc.says)):
				t.Errorf("create = %v, want it refused saying %q", err, tc.says)
			}
		})
	}
}
