package sharing_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/sharing"
)

func nodeShape(cpu string, count int32) sharingv1alpha1.NodeShape {
	return sharingv1alpha1.NodeShape{Name: "s" + cpu, Count: count, Resources: map[corev1.ResourceName]resource.Quantity{
		corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("4Gi")}}
}

func TestPrecheck(t *testing.T) {
	peer := &sharingv1alpha1.Peer{Spec: sharingv1alpha1.PeerSpec{ClusterID: "prov", Namespace: "from-prov", Role: sharingv1alpha1.RoleProvider}}
	adv := func(mut func(*sharingv1alpha1.Advertisement)) *sharingv1alpha1.Advertisement {
		a := &sharingv1alpha1.Advertisement{ObjectMeta: metav1.ObjectMeta{Name: "prov", Namespace: "from-prov"}, Spec: sharingv1alpha1.AdvertisementSpec{
			ClusterID: "prov", Consumer: "home", Type: sharingv1alpha1.AdvertisementFull,
			Availability: []sharingv1alpha1.NodeShape{nodeShape("4", 1)},
			Timestamp:    metav1.NewTime(t0.Add(-time.Minute)), TimeToLive: metav1.Duration{Duration: 15 * time.Minute}}}
		if mut != nil {
			mut(a)
		}
		return a
	}
	cases := []struct {
		name string
		adv  *sharingv1alpha1.Advertisement
		peer *sharingv1alpha1.Peer
		want string
	}{
		{"valid: policy decides", adv(nil), peer, ""},
		{"no peer for the namespace", adv(nil), nil, "UnknownPeer"},
		{"claims another cluster id", adv(func(a *sharingv1alpha1.Advertisement) { a.Spec.ClusterID = "bank" }), peer, "ClusterIDMismatch"},
		{"for another consumer", adv(func(a *sharingv1alpha1.Advertisement) { a.Spec.Consumer = "other" }), peer, "WrongConsumer"},
		{"invalid", adv(func(a *sharingv1alpha1.Advertisement) { a.Spec.Availability[0].Count = 0 }), peer, "Invalid"},
		{"expired", adv(func(a *sharingv1alpha1.Advertisement) { a.Spec.Timestamp = metav1.NewTime(t0.Add(-time.Hour)) }), peer, "TimeToLivePassed"},
		{"from the future", adv(func(a *sharingv1alpha1.Advertisement) { a.Spec.Timestamp = metav1.NewTime(t0.Add(time.Hour)) }), peer, "TimeToLivePassed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := ""
			if v := sharing.Precheck(tc.adv, tc.peer, "home", t0.Time, 30*time.Second); v != nil {
				got = string(v.Reason)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("reason (-want +got):\n%s", diff)
			}
		})
	}
}
