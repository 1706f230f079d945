package agent_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/sharing/agent"
	"github.com/meridian-dev/meridian/internal/testenv"
)

// TestExpiry: with a time-to-live of 4 s renewed every 2 s, an accepted
// advertisement stays accepted; once the network between provider and
// consumer is cut, the consumer marks it Expired and the provider frees
// its reservation, both by the time-to-live alone; when the network is
// back, a renewal is accepted and reserved again.
func TestExpiry(t *testing.T) {
	env := testenv.Start(t, testenv.Options{Members: 1})
	p, c := env.Management, env.Members[0]
	c.InstallCRDs(t)
	p.CreateNamespaces(t, agentNS, "from-cons")
	c.CreateNamespaces(t, agentNS, "from-prov")
	node(t, p, "n1", "4", "8Gi")
	proxy := c.NewProxy(t)
	viaProxy, err := proxy.Kubeconfig(c.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	peerVia(t, p, viaProxy, "cons", sharingv1alpha1.RoleConsumer, "from-cons", "from-prov", &sharingv1alpha1.OutgoingPolicy{SharePercent: 50})
	peer(t, c, p, "prov", sharingv1alpha1.RoleProvider, "from-prov", "from-cons", nil)
	short := func(o *agent.Options) {
		o.PartialInterval, o.FullInterval, o.TimeToLive, o.ClockSkew = 2*time.Second, 4*time.Second, 4*time.Second, time.Second
	}
	startAgent(t, c, "cons", short)
	startAgent(t, p, "prov", short)

	state := func() string {
		adv := &sharingv1alpha1.Advertisement{}
		if err := c.Client.Get(t.Context(), client.ObjectKey{Namespace: "from-prov", Name: "prov"}, adv); err != nil {
			return err.Error()
		}
		expired := meta.IsStatusConditionTrue(adv.Status.Conditions, sharingv1alpha1.AdvertisementExpired)
		return string(adv.Status.Decision) + "/" + string(adv.Status.Reason) + "/expired=" + map[bool]string{true: "true", false: "false"}[expired]
	}
	testenv.Eventually(t, 60*time.Second, "accepted and reserved", func() string {
		return cmp.Diff([]any{"Accepted/PolicyAccepted/expired=false", []string{"cons.advertisement.prov=Reserved"}}, []any{state(), reservations(t, p)})
	})
	// Renewals keep it so over more than one time-to-live.
	for range 30 {
		if r := reservations(t, p); len(r) != 1 {
			t.Fatalf("reservation lost while renewed: %v", r)
		}
		time.Sleep(200 * time.Millisecond)
	}

	proxy.Break()
	testenv.Eventually(t, 30*time.Second, "expired on both sides", func() string {
		return cmp.Diff([]any{"Refused/TimeToLivePassed/expired=true", []string(nil)}, []any{state(), reservations(t, p)})
	})

	proxy.Restore()
	testenv.Eventually(t, 60*time.Second, "renewed, accepted and reserved again", func() string {
		return cmp.Diff([]any{"Accepted/PolicyAccepted/expired=false", []string{"cons.advertisement.prov=Reserved"}}, []any{state(), reservations(t, p)})
	})
}
