package propagationpolicy_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
)

func deployment(name string, labels map[string]string) *appsv1.Deployment {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop", Labels: labels}}
	d.Spec.Replicas = ptr.To[int32](2)
	d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}
	d.Spec.Template.Labels = map[string]string{"app": name}
	d.Spec.Template.Spec.Containers = []corev1.Container{{Name: "main", Image: "registry.k8s.io/pause:3.10"}}
	return d
}

func policy(name string, selectors ...multiclusterv1alpha1.ResourceSelector) *multiclusterv1alpha1.PropagationPolicy {
	p := &multiclusterv1alpha1.PropagationPolicy{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop"}}
	p.Spec.ResourceSelectors = selectors
	p.Spec.Placement.Policy = multiclusterv1alpha1.WorstFit
	return p
}

var deployments = multiclusterv1alpha1.ResourceSelector{APIVersion: "apps/v1", Kind: "Deployment"}

// placements lists the ResourcePlacements of shop as name -> policy.
func placements(t *testing.T, c client.Client) map[string]string {
	t.Helper()
	var list multiclusterv1alpha1.ResourcePlacementList
	if err := c.List(t.Context(), &list, client.InNamespace("shop")); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, rp := range list.Items {
		out[rp.Name] = rp.Spec.Policy.Name
	}
	return out
}

// ready reads a policy's Ready condition as "Status Reason: message".
func ready(t *testing.T, c client.Client, name string) string {
	t.Helper()
	p := &multiclusterv1alpha1.PropagationPolicy{}
	if err := c.Get(t.Context(), client.ObjectKey{Namespace: "shop", Name: name}, p); err != nil {
		return err.Error()
	}
	cond := meta.FindStatusCondition(p.Status.Conditions, multiclusterv1alpha1.ConditionReady)
	if cond == nil || cond.ObservedGeneration != p.Generation {
		return "no Ready condition for this generation"
	}
	return fmt.Sprintf("%s %s: %s", cond.Status, cond.Reason, cond.Message)
}

func TestPoliciesClaimTheObjectsTheySelect(t *testing.T) {
	mgmt := setup(t)
	ctx := t.Context()
	for _, obj := range []client.Object{
		deployment("web", map[string]string{"tier": "front"}), deployment("db", nil),
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "web-config", Namespace: "shop"}},
		policy("all", deployments),
	} {
		if err := mgmt.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "a ResourcePlacement per Deployment, owned by it", func() string {
		return cmp.Diff(map[string]string{"deployment.apps-web": "all", "deployment.apps-db": "all"}, placements(t, mgmt))
	})
	rp := &multiclusterv1alpha1.ResourcePlacement{}
	if err := mgmt.Get(ctx, client.ObjectKey{Namespace: "shop", Name: "deployment.apps-web"}, rp); err != nil {
		t.Fatal(err)
	}
	web := &appsv1.Deployment{}
	if err := mgmt.Get(ctx, client.ObjectKey{Namespace: "shop", Name: "web"}, web); err != nil {
		t.Fatal(err)
	}
	if len(rp.OwnerReferences) != 1 || rp.OwnerReferences[0].UID != web.UID {
		t.Errorf("ResourcePlacement owners %+v; want the Deployment web (%s)", rp.OwnerReferences, web.UID)
	}
	eventually(t, "all Ready", func() string {
		return cmp.Diff("True Selected: 2 objects selected and placed by this policy", ready(t, mgmt, "all"))
	})

	// A more specific selector at the same priority wins web; the loser
	// says who has it.
	front := policy("front", multiclusterv1alpha1.ResourceSelector{APIVersion: "apps/v1", Kind: "Deployment",
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "front"}}})
	if err := mgmt.Create(ctx, front); err != nil {
		t.Fatal(err)
	}
	eventually(t, "web follows front", func() string {
		return cmp.Diff(map[string]string{"deployment.apps-web": "front", "deployment.apps-db": "all"}, placements(t, mgmt))
	})
	eventually(t, "all says front claims web", func() string {
		got := ready(t, mgmt, "all")
		if !strings.HasPrefix(got, "False ClaimedByOther: Deployment shop/web is placed by PropagationPolicy/shop/front") {
			return got
		}
		return ""
	})

	// Bad input is refused at the API, naming the field, or reported on
	// the policy.
	bad := policy("elsewhere", multiclusterv1alpha1.ResourceSelector{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "other"})
	if err := mgmt.Create(ctx, bad); err == nil || !strings.Contains(err.Error(), "a PropagationPolicy selects in its own namespace") {
		t.Errorf("creating a PropagationPolicy that selects in another namespace: %v; want it refused", err)
	}
	for _, tc := range []struct {
		name     string
		selector multiclusterv1alpha1.ResourceSelector
		want     string
	}{
		{"widgets", multiclusterv1alpha1.ResourceSelector{APIVersion: "example.com/v1", Kind: "Widget"},
			"False UnknownKind: spec.resourceSelectors[0]: the management cluster serves no kind Widget in example.com/v1"},
		{"pods", multiclusterv1alpha1.ResourceSelector{APIVersion: "v1", Kind: "Pod"},
			"False NotPlaceable: spec.resourceSelectors[0]: Pod is not placed: pods are made in members by their workloads; select the workload"},
		{"namespaces", multiclusterv1alpha1.ResourceSelector{APIVersion: "v1", Kind: "Namespace"},
			"False NotPlaceable: spec.resourceSelectors[0]: Namespace is cluster-scoped"},
		{"own-kinds", multiclusterv1alpha1.ResourceSelector{APIVersion: "multicluster.meridian.dev/v1alpha1", Kind: "MultiClusterDeployment"},
			"False NotPlaceable: spec.resourceSelectors[0]: MultiClusterDeployment is Meridian's own kind"},
		// The controller runs with its generated role, which does not
		// read Roles.
		{"roles", multiclusterv1alpha1.ResourceSelector{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "Role"},
			"False Unreadable: spec.resourceSelectors[0]: the controller may not list roles.rbac.authorization.k8s.io: grant its ServiceAccount get, list and watch"},
	} {
		if err := mgmt.Create(ctx, policy(tc.name, tc.selector)); err != nil {
			t.Fatal(err)
		}
		eventually(t, tc.name+" reported", func() string {
			if got := ready(t, mgmt, tc.name); !strings.HasPrefix(got, tc.want) {
				return got
			}
			return ""
		})
	}

	// A deleted object loses its placement.
	if err := mgmt.Delete(ctx, deployment("db", nil)); err != nil {
		t.Fatal(err)
	}
	eventually(t, "db's placement gone", func() string {
		return cmp.Diff(map[string]string{"deployment.apps-web": "front"}, placements(t, mgmt))
	})

	// A bad edit holds the policy: what it placed stays.
	if err := mgmt.Get(ctx, client.ObjectKeyFromObject(front), front); err != nil {
		t.Fatal(err)
	}
	front.Spec.ResourceSelectors[0].APIVersion = "apps/v2"
	if err := mgmt.Update(ctx, front); err != nil {
		t.Fatal(err)
	}
	eventually(t, "front held", func() string {
		got := ready(t, mgmt, "front")
		if !strings.HasPrefix(got, "False UnknownKind: spec.resourceSelectors[0]: the management cluster serves no kind Deployment in apps/v2") ||
			!strings.HasSuffix(got, "the objects the policy placed before stay as they are until it is corrected") {
			return got
		}
		return ""
	})
	if diff := cmp.Diff(map[string]string{"deployment.apps-web": "front"}, placements(t, mgmt)); diff != "" {
		t.Errorf("placements after front's bad edit (-want +got):\n%s", diff)
	}

	// front deleted: all places web again.
	if err := mgmt.Delete(ctx, front); err != nil {
		t.Fatal(err)
	}
	eventually(t, "web follows all again", func() string {
		return cmp.Diff(map[string]string{"deployment.apps-web": "all"}, placements(t, mgmt))
	})
}
