package agent_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/sharing"
	"github.com/meridian-dev/meridian/internal/testenv"
)

// TestUpdatesStayFullUntilThePricesAreKept: a consumer that has not read
// the provider's Full advertisement (its agent is not running, or is slow)
// keeps no prices, and a Partial would reach it unpriced. The provider's
// update on a change of capacity is then a Full one, prices included; once
// the consumer kept the prices, the next update is a Partial one.
func TestUpdatesStayFullUntilThePricesAreKept(t *testing.T) {
	env := testenv.Start(t, testenv.Options{Members: 1})
	p, c := env.Management, env.Members[0]
	c.InstallCRDs(t)
	p.CreateNamespaces(t, agentNS, "from-cons")
	c.CreateNamespaces(t, "from-prov")
	node(t, p, "n1", "4", "8Gi")
	peer(t, p, c, "cons", sharingv1alpha1.RoleConsumer, "from-cons", "from-prov", &sharingv1alpha1.OutgoingPolicy{SharePercent: 100, Prices: eur("0.05")})
	startAgent(t, p, "prov")

	// sent is the advertisement's type, its CPU in all and whether it
	// carries prices.
	adv := &sharingv1alpha1.Advertisement{}
	sent := func() string {
		if err := c.Client.Get(t.Context(), client.ObjectKey{Namespace: "from-prov", Name: "prov"}, adv); err != nil {
			return err.Error()
		}
		var cpu int64
		for _, s := range adv.Spec.Availability {
			q := s.Resources[corev1.ResourceCPU]
			cpu += q.MilliValue() * int64(s.Count)
		}
		return fmt.Sprintf("%s cpu=%dm priced=%v", adv.Spec.Type, cpu, len(adv.Spec.Prices) > 0)
	}
	testenv.Eventually(t, 30*time.Second, "the first advertisement", func() string {
		if got, want := sent(), "Full cpu=4000m priced=true"; got != want {
			return fmt.Sprintf("got %q, want %q", got, want)
		}
		return ""
	})
	node(t, p, "n2", "4", "8Gi")
	testenv.Eventually(t, 30*time.Second, "the update to a consumer that kept no prices", func() string {
		if got, want := sent(), "Full cpu=8000m priced=true"; got != want {
			return fmt.Sprintf("got %q, want %q", got, want)
		}
		return ""
	})

	// The consumer reads it and keeps its prices, as its agent does.
	raw, err := json.Marshal(adv.Spec.Prices)
	if err != nil {
		t.Fatal(err)
	}
	patch := client.MergeFrom(adv.DeepCopy())
	adv.Annotations[sharing.AnnotationFullPrices] = string(raw)
	if err := c.Client.Patch(t.Context(), adv, patch); err != nil {
		t.Fatal(err)
	}
	node(t, p, "n3", "4", "8Gi")
	testenv.Eventually(t, 30*time.Second, "the update to a consumer that kept the prices", func() string {
		if got, want := sent(), "Partial cpu=12000m priced=false"; got != want {
			return fmt.Sprintf("got %q, want %q", got, want)
		}
		return ""
	})
}
