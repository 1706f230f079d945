package cloudprovisioner

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/testenv"
)

// TestDrainSurvivesARestart: a drain is recorded on its node when it
// starts, and a new controller (empty memory) takes it up again with its
// start time, so the node is not left cordoned; giving the node back
// clears both.
func TestDrainSurvivesARestart(t *testing.T) {
	if testing.Short() {
		t.Skip("needs an API server")
	}
	cloud, err := testenv.StartCluster(t, "cloud")
	if err != nil {
		t.Fatal(err)
	}
	c := cloud.Client
	for _, name := range []string{"cloud-medium-1", "cloud-medium-2"} {
		if err := c.Create(t.Context(), &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
			t.Fatal(err)
		}
	}
	started := time.Date(2026, 11, 23, 18, 0, 0, 0, time.UTC)
	if err := cordon(t.Context(), c, "cloud-medium-1", &started); err != nil {
		t.Fatal(err)
	}

	cp := &multiclusterv1alpha1.CloudProvisioner{ObjectMeta: metav1.ObjectMeta{Name: "burst", UID: types.UID("uid-1")}}
	cp.Spec.CloudClusterName = "cloud"
	restarted := &Reconciler{Clock: clocktesting.NewFakeClock(started.Add(time.Hour)), drains: map[types.UID]map[string]*drain{}, resumed: map[types.UID]bool{}}
	if err := restarted.resumeDrains(t.Context(), cp, c); err != nil {
		t.Fatal(err)
	}
	got := map[string]time.Time{}
	for name, d := range restarted.drains[cp.UID] {
		got[name] = d.started
	}
	if diff := cmp.Diff(map[string]time.Time{"cloud-medium-1": started}, got); diff != "" {
		t.Errorf("drains after a restart (-want +got):\n%s", diff)
	}

	if err := cordon(t.Context(), c, "cloud-medium-1", nil); err != nil {
		t.Fatal(err)
	}
	n := &corev1.Node{}
	if err := c.Get(t.Context(), client.ObjectKey{Name: "cloud-medium-1"}, n); err != nil {
		t.Fatal(err)
	}
	_, annotated := n.Annotations[multiclusterv1alpha1.AnnotationDrainStarted]
	if n.Spec.Unschedulable || annotated {
		t.Errorf("node given back: unschedulable %v, annotated %v; want neither", n.Spec.Unschedulable, annotated)
	}
}
