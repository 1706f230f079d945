package clusterprofile_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdv1 "k8s.io/client-go/tools/clientcmd/api/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/clusterinventory"
	"github.com/meridian-dev/meridian/internal/controller"
	"github.com/meridian-dev/meridian/internal/testenv"
)

func eventually(t *testing.T, what string, check func() string) {
	t.Helper()
	testenv.Eventually(t, 60*time.Second, what, check)
}

var profileGVK = clusterinventory.GroupVersion.WithKind("ClusterProfile")

// TestConsumerSeesTheFleet registers two members and reads their
// ClusterProfiles as a ClusterProfile consumer does, knowing nothing of
// Meridian: by the API's own fields, and through the access provider to
// the member itself.
func TestConsumerSeesTheFleet(t *testing.T) {
	env := testenv.Start(t, testenv.Options{Members: 2, ExtraCRDPaths: []string{filepath.Join("..", "..", "clusterinventory", "crd")}})
	env.Management.CreateNamespaces(t, "meridian-system")
	env.RegisterMembers(t, "meridian-system", "4", "16Gi")
	env.StartManagerAs(t, "controller", func(mgr ctrl.Manager) error {
		_, err := controller.Setup(mgr, controller.Options{HeartbeatInterval: 500 * time.Millisecond})
		return err
	})
	mgmt := env.Management.Client

	eventually(t, "a ClusterProfile per member, healthy, with its version and capacity", func() string {
		var got []string
		for _, name := range []string{"cluster1", "cluster2"} {
			p := &unstructured.Unstructured{}
			p.SetGroupVersionKind(profileGVK)
			if err := mgmt.Get(t.Context(), client.ObjectKey{Namespace: "meridian-system", Name: name}, p); err != nil {
				return err.Error()
			}
			c := &multiclusterv1alpha1.Cluster{}
			if err := mgmt.Get(t.Context(), client.ObjectKey{Name: name}, c); err != nil {
				return err.Error()
			}
			manager, _, _ := unstructured.NestedString(p.Object, "spec", "clusterManager", "name")
			version, _, _ := unstructured.NestedString(p.Object, "status", "version", "kubernetes")
			conds, _, _ := unstructured.NestedSlice(p.Object, "status", "conditions")
			props, _, _ := unstructured.NestedSlice(p.Object, "status", "properties")
			healthy := ""
			for _, cond := range conds {
				if m := cond.(map[string]any); m["type"] == "ControlPlaneHealthy" {
					healthy = fmt.Sprint(m["status"])
				}
			}
			cpu := ""
			for _, pr := range props {
				if m := pr.(map[string]any); m["name"] == "multicluster.meridian.dev/allocatable-cpu" {
					cpu = fmt.Sprint(m["value"])
				}
			}
			if c.Status.KubernetesVersion == "" || version != c.Status.KubernetesVersion {
				return fmt.Sprintf("%s: version %q, Cluster's %q", name, version, c.Status.KubernetesVersion)
			}
			got = append(got, fmt.Sprintf("%s manager=%s label=%s healthy=%s cpu=%s", name, manager, p.GetLabels()[clusterinventory.LabelClusterManager], healthy, cpu))
		}
		want := []string{"cluster1 manager=meridian label=meridian healthy=True cpu=4", "cluster2 manager=meridian label=meridian healthy=True cpu=4"}
		if diff := cmp.Diff(want, got); diff != "" {
			return "(-want +got)\n" + diff
		}
		return ""
	})

	// A consumer follows the access provider as the kubeconfig-secretreader
	// plugin does: the Secret its exec extension names, then the member.
	p := &clusterinventory.ClusterProfile{}
	if err := mgmt.Get(t.Context(), client.ObjectKey{Namespace: "meridian-system", Name: "cluster2"}, p); err != nil {
		t.Fatal(err)
	}
	if len(p.Status.AccessProviders) != 1 || p.Status.AccessProviders[0].Name != "kubeconfig-secretreader" {
		t.Fatalf("access providers = %+v, want one kubeconfig-secretreader", p.Status.AccessProviders)
	}
	var ref struct{ Name, Namespace, Key string }
	if err := json.Unmarshal(p.Status.AccessProviders[0].Cluster.Extensions[0].Extension.Raw, &ref); err != nil {
		t.Fatal(err)
	}
	secret := &corev1.Secret{}
	if err := mgmt.Get(t.Context(), client.ObjectKey{Namespace: ref.Namespace, Name: ref.Name}, secret); err != nil {
		t.Fatalf("the access provider names Secret %+v: %v", ref, err)
	}
	cfg, err := clientcmd.RESTConfigFromKubeConfig(secret.Data[ref.Key])
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != p.Status.AccessProviders[0].Cluster.Server {
		t.Errorf("the profile's server %q is not the kubeconfig's %q", p.Status.AccessProviders[0].Cluster.Server, cfg.Host)
	}
	consumer, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var nodes corev1.NodeList
	if err := consumer.List(t.Context(), &nodes); err != nil || len(nodes.Items) != 1 || nodes.Items[0].Name != "cluster2-node" {
		t.Errorf("the consumer reached the member and listed %v (%v), want cluster2-node", nodes.Items, err)
	}

	// The profile goes with its Cluster.
	if err := mgmt.Delete(t.Context(), &multiclusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "cluster1"}}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "cluster1's profile gone", func() string {
		err := mgmt.Get(t.Context(), client.ObjectKey{Namespace: "meridian-system", Name: "cluster1"}, &clusterinventory.ClusterProfile{})
		if apierrors.IsNotFound(err) {
			return ""
		}
		return fmt.Sprintf("still there (%v)", err)
	})
}

// TestMembersFromOtherManagersProfiles imports a member from another
// cluster manager's ClusterProfile that leads to a kubeconfig Secret, and
// leaves one it cannot read with a warning that says why.
func TestMembersFromOtherManagersProfiles(t *testing.T) {
	env := testenv.Start(t, testenv.Options{Members: 1, ExtraCRDPaths: []string{filepath.Join("..", "..", "clusterinventory", "crd")}})
	env.Management.CreateNamespaces(t, "meridian-system")
	mgmt := env.Management.Client
	member := env.Members[0]
	member.AddNode(t, "edge-node", "4", "16Gi")
	if err := mgmt.Create(t.Context(), member.KubeconfigSecret("meridian-system", "edge-access")); err != nil {
		t.Fatal(err)
	}
	env.StartManagerAs(t, "controller", func(mgr ctrl.Manager) error {
		_, err := controller.Setup(mgr, controller.Options{HeartbeatInterval: 500 * time.Millisecond, ImportClusterProfiles: true})
		return err
	})

	foreign := func(name, provider string, ext any) *clusterinventory.ClusterProfile {
		raw, err := json.Marshal(ext)
		if err != nil {
			t.Fatal(err)
		}
		p := &clusterinventory.ClusterProfile{ObjectMeta: metav1.ObjectMeta{Namespace: "meridian-system", Name: name,
			Labels: map[string]string{clusterinventory.LabelClusterManager: "ocm"}}}
		p.Spec.ClusterManager.Name = "ocm"
		// Strict: a field of Meridian's types that the published CRD does
		// not have is refused, so the types match the CRD.
		if err := mgmt.Create(t.Context(), p, client.FieldValidation("Strict")); err != nil {
			t.Fatal(err)
		}
		p.Status.AccessProviders = []clusterinventory.AccessProvider{{Name: provider, Cluster: clientcmdv1.Cluster{
			Server:     member.Config.Host,
			Extensions: []clientcmdv1.NamedExtension{{Name: clusterinventory.ExecExtension, Extension: runtime.RawExtension{Raw: raw}}},
		}}}
		p.Status.Properties = []clusterinventory.Property{{Name: "multicluster.meridian.dev/region", Value: "eu-south"}}
		if err := mgmt.Status().Update(t.Context(), p, client.FieldValidation("Strict")); err != nil {
			t.Fatal(err)
		}
		return p
	}
	edge := foreign("edge", "kubeconfig-secretreader", map[string]string{"name": "edge-access", "key": "kubeconfig"})
	foreign("elsewhere", "kubelogin", map[string]string{"issuer": "https://login.example.com"})

	eventually(t, "Cluster edge from the profile, Ready", func() string {
		c := &multiclusterv1alpha1.Cluster{}
		if err := mgmt.Get(t.Context(), client.ObjectKey{Name: "edge"}, c); err != nil {
			return err.Error()
		}
		for _, cond := range c.Status.Conditions {
			if cond.Type == multiclusterv1alpha1.ClusterReady && cond.Status == metav1.ConditionTrue && c.Spec.Region == "eu-south" {
				return ""
			}
		}
		return fmt.Sprintf("spec %+v, conditions %+v", c.Spec, c.Status.Conditions)
	})
	eventually(t, "a warning on the profile Meridian cannot read", func() string {
		var events corev1.EventList
		if err := mgmt.List(t.Context(), &events, client.InNamespace("meridian-system")); err != nil {
			return err.Error()
		}
		for _, e := range events.Items {
			if e.InvolvedObject.Name == "elsewhere" && e.Reason == "UnsupportedAccessProvider" &&
				strings.Contains(e.Message, "offers kubelogin; Meridian reads kubeconfig-secretreader") {
				return ""
			}
		}
		return "no such event"
	})
	if err := mgmt.Get(t.Context(), client.ObjectKey{Name: "elsewhere"}, &multiclusterv1alpha1.Cluster{}); !apierrors.IsNotFound(err) {
		t.Errorf("Cluster elsewhere = %v, want none", err)
	}

	// The member goes with its profile.
	if err := mgmt.Delete(t.Context(), edge); err != nil {
		t.Fatal(err)
	}
	eventually(t, "Cluster edge gone with its profile", func() string {
		err := mgmt.Get(t.Context(), client.ObjectKey{Name: "edge"}, &multiclusterv1alpha1.Cluster{})
		if apierrors.IsNotFound(err) {
			return ""
		}
		return fmt.Sprintf("still there (%v)", err)
	})
}
