package peering_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/peering"
	"github.com/meridian-dev/meridian/internal/testenv"
)

// TestPeerIsLeastPrivilegeIdempotentAndUnpeerLeavesNothing peers a
// borrower and a lender, checks what each may do in the other with the
// credentials it holds, peers again without a change, and unpeers.
func TestPeerIsLeastPrivilegeIdempotentAndUnpeerLeavesNothing(t *testing.T) {
	env := testenv.Start(t, testenv.Options{Members: 2})
	home, big := env.Members[0], env.Members[1]
	for _, c := range []*testenv.Cluster{home, big} {
		c.InstallCRDs(t)
		c.CreateNamespaces(t, peering.DefaultNamespace)
	}
	homeBefore, bigBefore := home.Objects(t), big.Objects(t)
	terms := &peering.Terms{SharePercent: 50, Prices: []sharingv1alpha1.Price{{Resource: "cpu", Amount: resource.MustParse("0.04"), Currency: "EUR", Unit: resource.MustParse("1"), Period: sharingv1alpha1.PeriodHour}}}
	a := peering.Side{Name: "home", Config: home.Config, Region: "eu-west"}
	b := peering.Side{Name: "big", Config: big.Config, Region: "eu-central", Lends: terms}

	var out bytes.Buffer
	if err := peering.Peer(t.Context(), a, b, peering.Options{}, &out); err != nil {
		t.Fatalf("peer: %v\n%s", err, out.String())
	}

	// The Peers: big is home's provider, home big's consumer, on big's terms.
	got := &sharingv1alpha1.Peer{}
	if err := home.Client.Get(t.Context(), client.ObjectKey{Namespace: peering.DefaultNamespace, Name: "big"}, got); err != nil {
		t.Fatal(err)
	}
	if got.Spec.Role != sharingv1alpha1.RoleProvider || got.Spec.Outgoing != nil || got.Spec.Region != "eu-central" || got.Spec.Namespace != "from-big" {
		t.Errorf("home's Peer big = %+v, want a Provider in eu-central writing into from-big, no outgoing terms", got.Spec)
	}
	if err := big.Client.Get(t.Context(), client.ObjectKey{Namespace: peering.DefaultNamespace, Name: "home"}, got); err != nil {
		t.Fatal(err)
	}
	if got.Spec.Role != sharingv1alpha1.RoleConsumer || got.Spec.Outgoing == nil || got.Spec.Outgoing.SharePercent != 50 || len(got.Spec.Outgoing.Prices) != 1 {
		t.Errorf("big's Peer home = %+v, want a Consumer offered 50 %% at one price", got.Spec)
	}

	// What each may do in the other with the credentials it holds.
	for _, tc := range []struct {
		holder    *testenv.Cluster
		of        string
		verb      string
		group     string
		resource  string
		namespace string
		want      bool
	}{
		{home, "big", "create", "sharing.meridian.dev", "quotes", "from-home", true},
		{home, "big", "create", "sharing.meridian.dev", "quotes", "default", false},
		{home, "big", "create", "", "pods", "team-a", true}, // twins: big lends to home
		{home, "big", "create", "", "nodes", "", false},
		{big, "home", "create", "sharing.meridian.dev", "advertisements", "from-big", true},
		{big, "home", "create", "sharing.meridian.dev", "advertisements", "from-other", false},
		{big, "home", "create", "", "pods", "team-a", false}, // home does not lend
	} {
		t.Run(fmt.Sprintf("%s's credentials of %s %s %s in %q", tc.holder.Name, tc.of, tc.verb, tc.resource, tc.namespace), func(t *testing.T) {
			secret := &corev1.Secret{}
			if err := tc.holder.Client.Get(t.Context(), client.ObjectKey{Namespace: peering.DefaultNamespace, Name: peering.SecretName(tc.of)}, secret); err != nil {
				t.Fatal(err)
			}
			cfg, err := clientcmd.RESTConfigFromKubeConfig(secret.Data[peering.CredentialsKey])
			if err != nil {
				t.Fatal(err)
			}
			cs, err := kubernetes.NewForConfig(cfg)
			if err != nil {
				t.Fatal(err)
			}
			review, err := cs.AuthorizationV1().SelfSubjectAccessReviews().Create(t.Context(), &authorizationv1.SelfSubjectAccessReview{
				Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{
					Verb: tc.verb, Group: tc.group, Resource: tc.resource, Namespace: tc.namespace,
				}},
			}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if review.Status.Allowed != tc.want {
				t.Errorf("allowed = %v, want %v", review.Status.Allowed, tc.want)
			}
		})
	}

	// Again: nothing changes.
	homePeered, bigPeered := home.Objects(t), big.Objects(t)
	out.Reset()
	if err := peering.Peer(t.Context(), a, b, peering.Options{}, &out); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if !strings.HasSuffix(line, " unchanged") {
			t.Errorf("a second peering changed something: %q", line)
		}
	}
	if diff := cmp.Diff(homePeered, home.Objects(t)); diff != "" {
		t.Errorf("home after a second peering (-first +second):\n%s", diff)
	}
	if diff := cmp.Diff(bigPeered, big.Objects(t)); diff != "" {
		t.Errorf("big after a second peering (-first +second):\n%s", diff)
	}

	// Unpeer leaves both as they were.
	out.Reset()
	if err := peering.Unpeer(t.Context(), a, b, peering.Options{}, &out); err != nil {
		t.Fatalf("unpeer: %v\n%s", err, out.String())
	}
	if diff := cmp.Diff(homeBefore, home.Objects(t)); diff != "" {
		t.Errorf("home after unpeer (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(bigBefore, big.Objects(t)); diff != "" {
		t.Errorf("big after unpeer (-before +after):\n%s", diff)
	}
}

// TestPeerRefusesBadInput names what is wrong and writes nothing.
func TestPeerRefusesBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b peering.Side
		says string
	}{
		{"nobody lends", peering.Side{Name: "home"}, peering.Side{Name: "big"}, "neither cluster lends"},
		{"no configuration", peering.Side{Name: "home"}, peering.Side{Name: "big", Lends: &peering.Terms{}}, `cluster "home": no configuration to reach it`},
		{"itself", peering.Side{Name: "home", Lends: &peering.Terms{}}, peering.Side{Name: "home"}, "cannot peer with itself"},
		{"share over 100", peering.Side{Name: "home"}, peering.Side{Name: "big", Lends: &peering.Terms{SharePercent: 150}}, "big's share 150: must be from 0 to 100"},
		{"bad name", peering.Side{Name: "Home"}, peering.Side{Name: "big", Lends: &peering.Terms{}}, `cluster name "Home"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := peering.Peer(t.Context(), tc.a, tc.b, peering.Options{}, &bytes.Buffer{})
			if err == nil || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("peer = %v, want an error saying %q", err, tc.says)
			}
		})
	}
}
