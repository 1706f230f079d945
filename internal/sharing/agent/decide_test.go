package agent

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/sharing"
)

var t0 = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

func shape(cpu string, count int32) sharingv1alpha1.NodeShape {
	return sharingv1alpha1.NodeShape{Name: "s" + cpu, Count: count, Resources: map[corev1.ResourceName]resource.Quantity{
		corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("4Gi")}}
}

func TestCadence(t *testing.T) {
	four := []sharingv1alpha1.NodeShape{shape("4", 1)}
	cases := []struct {
		name     string
		s        sent
		want     []sharingv1alpha1.NodeShape
		wantType sharingv1alpha1.AdvertisementType
		wantWait time.Duration
	}{
		{"nothing sent: full", sent{}, four, "Full", 10 * time.Minute},
		{"full 30m old: full", sent{Exists: true, Priced: true, LastFull: t0.Add(-30 * time.Minute), LastSent: t0.Add(-time.Minute), Availability: four}, four, "Full", 10 * time.Minute},
		{"partial 10m old: partial", sent{Exists: true, Priced: true, LastFull: t0.Add(-25 * time.Minute), LastSent: t0.Add(-10 * time.Minute), Availability: four}, four, "Partial", 5 * time.Minute},
		{"moved 50%: partial at once", sent{Exists: true, Priced: true, LastFull: t0.Add(-time.Minute), LastSent: t0.Add(-time.Minute), Availability: four}, []sharingv1alpha1.NodeShape{shape("2", 1)}, "Partial", 10 * time.Minute},
		{"moved 5%: wait", sent{Exists: true, Priced: true, LastFull: t0.Add(-time.Minute), LastSent: t0.Add(-time.Minute), Availability: []sharingv1alpha1.NodeShape{shape("4", 20)}}, []sharingv1alpha1.NodeShape{shape("4", 20), shape("2", 1)}, "", 9 * time.Minute},
		{"withdrawn: a change waits for the timer", sent{Exists: true, Priced: true, Withdrawn: true, LastFull: t0.Add(-time.Minute), LastSent: t0.Add(-time.Minute)}, four, "", 9 * time.Minute},
		{"withdrawn: the timer re-offers", sent{Exists: true, Priced: true, Withdrawn: true, LastFull: t0.Add(-11 * time.Minute), LastSent: t0.Add(-10 * time.Minute)}, four, "Partial", 10 * time.Minute},
		{"from nothing to something: partial", sent{Exists: true, Priced: true, LastFull: t0.Add(-time.Minute), LastSent: t0.Add(-time.Minute)}, four, "Partial", 10 * time.Minute},
		{"moved 50%, the receiver kept no prices: full", sent{Exists: true, LastFull: t0.Add(-time.Minute), LastSent: t0.Add(-time.Minute), Availability: four}, []sharingv1alpha1.NodeShape{shape("2", 1)}, "Full", 10 * time.Minute},
		{"partial 10m old, the receiver kept no prices: full", sent{Exists: true, LastFull: t0.Add(-25 * time.Minute), LastSent: t0.Add(-10 * time.Minute), Availability: four}, four, "Full", 5 * time.Minute},
		{"nothing due, the receiver kept no prices: wait", sent{Exists: true, LastFull: t0.Add(-time.Minute), LastSent: t0.Add(-time.Minute), Availability: four}, four, "", 9 * time.Minute},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			typ, wait := cadence(t0, tc.s, tc.want, 30*time.Minute, 10*time.Minute, 0.1)
			if diff := cmp.Diff([]any{tc.wantType, tc.wantWait}, []any{typ, wait}); diff != "" {
				t.Errorf("cadence (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPerUnitHour(t *testing.T) {
	cases := []struct {
		name string
		p    sharingv1alpha1.Price
		want float64
	}{
		{"cpu per core hour", sharingv1alpha1.Price{Resource: "cpu", Amount: resource.MustParse("0.031"), Unit: resource.MustParse("1")}, 0.031},
		{"memory per 512Mi per day", sharingv1alpha1.Price{Resource: "memory", Amount: resource.MustParse("0.24"), Unit: resource.MustParse("512Mi"), Period: sharingv1alpha1.PeriodDay}, 0.02},
		{"cpu per 500m", sharingv1alpha1.Price{Resource: "cpu", Amount: resource.MustParse("0.05"), Unit: resource.MustParse("500m")}, 0.1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, perUnitHour(tc.p)); diff != "" {
				t.Errorf("perUnitHour (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPlanOffer(t *testing.T) {
	cpu := func(c string) corev1.ResourceList {
		return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(c), corev1.ResourceMemory: resource.MustParse("1Gi")}
	}
	nodes := []sharing.NodeSpare{
		{Name: "a", Free: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("8Gi")}},
		{Name: "b", Free: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("8Gi")}},
	}
	quote := func(reqCPU string, replicas int32) *sharingv1alpha1.Quote {
		return &sharingv1alpha1.Quote{ObjectMeta: metav1.ObjectMeta{Name: "q"}, Spec: sharingv1alpha1.QuoteSpec{Components: []sharingv1alpha1.Component{{Name: "c0", Replicas: replicas, Requests: cpu(reqCPU)}}}}
	}
	held := sharing.NewLedger(sharing.Hold{HoldKey: sharing.HoldKey{Consumer: "other", Source: sharingv1alpha1.SourceReference{Kind: "Advertisement", Name: "x"}},
		State: sharingv1alpha1.ReservationReserved, ExpiresAt: t0.Add(time.Hour), Slices: []sharingv1alpha1.NodeSlice{{Node: "a", Shape: "s", Resources: cpu("3")}}})
	out := sharing.Outgoing{SharePercent: 100, Prices: []sharingv1alpha1.Price{{Resource: "cpu", Amount: resource.MustParse("0.1"), Currency: "EUR", Unit: resource.MustParse("1")}}}
	cases := []struct {
		name      string
		ledger    *sharing.Ledger
		quote     *sharingv1alpha1.Quote
		wantNodes map[string]string
		wantPrice string
		wantOK    bool
	}{
		{"three 2-CPU replicas over two nodes", sharing.NewLedger(), quote("2", 3), map[string]string{"a": "4", "b": "2"}, "600m", true},
		{"a replica larger than any node", sharing.NewLedger(), quote("5", 1), nil, "", false},
		{"another consumer's hold is not offered", held, quote("2", 2), nil, "", false},
		{"what is left beside a hold", held, quote("1", 2), map[string]string{"a": "1", "b": "1"}, "200m", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			slices, price, ok := planOffer(nodes, tc.ledger, "home", tc.quote, out, t0)
			var gotNodes map[string]string
			for _, s := range slices {
				if gotNodes == nil {
					gotNodes = map[string]string{}
				}
				q := s.Resources[corev1.ResourceCPU]
				gotNodes[s.Node] = q.String()
			}
			gotPrice := ""
			if price != nil {
				gotPrice = price.Amount.String()
			}
			if diff := cmp.Diff([]any{tc.wantNodes, tc.wantPrice, tc.wantOK}, []any{gotNodes, gotPrice, ok}); diff != "" {
				t.Errorf("planOffer (-want +got):\n%s", diff)
			}
		})
	}
}

func TestQuoteFor(t *testing.T) {
	pod := func(name, c string, pending bool) corev1.Pod {
		p := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "apps", OwnerReferences: []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "web", Controller: ptrTrue(), APIVersion: "apps/v1", UID: "u"}}},
			Spec:   corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(c)}}}}},
			Status: corev1.PodStatus{Phase: corev1.PodPending}}
		if pending {
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable}}
		}
		return p
	}
	accepted := sharingv1alpha1.Advertisement{Spec: sharingv1alpha1.AdvertisementSpec{Availability: []sharingv1alpha1.NodeShape{shape("2", 1)},
		Timestamp: metav1.NewTime(t0), TimeToLive: metav1.Duration{Duration: time.Hour}}, Status: sharingv1alpha1.AdvertisementStatus{Decision: sharingv1alpha1.DecisionAccepted}}
	cases := []struct {
		name string
		pods []corev1.Pod
		advs []sharingv1alpha1.Advertisement
		want []int32
	}{
		{"two alike and one larger", []corev1.Pod{pod("a", "3", true), pod("b", "3", true), pod("c", "6", true)}, nil, []int32{2, 1}},
		{"a pod that fits an accepted shape needs no auction", []corev1.Pod{pod("a", "1", true)}, []sharingv1alpha1.Advertisement{accepted}, nil},
		{"only the pod that fits no shape", []corev1.Pod{pod("a", "1", true), pod("b", "3", true)}, []sharingv1alpha1.Advertisement{accepted}, []int32{1}},
		{"not yet unschedulable", []corev1.Pod{pod("a", "3", false)}, nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			spec, ok := quoteFor("home", "apps.web", tc.pods, tc.advs, t0, 10*time.Second)
			var got []int32
			for _, c := range spec.Components {
				got = append(got, c.Replicas)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" || ok != (tc.want != nil) {
				t.Errorf("replicas per component (-want +got):\n%s ok=%v", diff, ok)
			}
		})
	}
}

func ptrTrue() *bool { b := true; return &b }

func TestPeerState(t *testing.T) {
	seen := metav1.NewTime(t0.Add(-time.Minute))
	cases := []struct {
		name       string
		disabled   bool
		lastSeen   *metav1.Time
		probe      probe
		wantPhase  sharingv1alpha1.PeerPhase
		wantReason string
		wantRTT    time.Duration
	}{
		{"answers", false, nil, probe{RTT: 12300 * time.Microsecond}, sharingv1alpha1.PeerEstablished, sharingv1alpha1.PeerReasonConnected, 12 * time.Millisecond},
		{"never answered", false, nil, probe{Err: errors.New("connection refused")}, sharingv1alpha1.PeerPending, sharingv1alpha1.PeerReasonUnreachable, 0},
		{"answered before, not now", false, &seen, probe{Err: errors.New("connection refused")}, sharingv1alpha1.PeerUnreachable, sharingv1alpha1.PeerReasonUnreachable, 0},
		{"credentials refused", false, nil, probe{Err: errors.New("Unauthorized"), Unauthorized: true}, sharingv1alpha1.PeerUnreachable, sharingv1alpha1.PeerReasonCredentialsInvalid, 0},
		{"disabled", true, nil, probe{}, sharingv1alpha1.PeerDisabled, sharingv1alpha1.PeerReasonDisabled, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := &sharingv1alpha1.Peer{Spec: sharingv1alpha1.PeerSpec{Disabled: tc.disabled}, Status: sharingv1alpha1.PeerStatus{LastSeenTime: tc.lastSeen}}
			st := peerState(p, tc.probe, t0)
			var rtt time.Duration
			if st.Latency != nil {
				rtt = st.Latency.Duration
			}
			ready := st.Conditions[0]
			if diff := cmp.Diff([]any{tc.wantPhase, tc.wantReason, tc.wantRTT, tc.probe.Err == nil && !tc.disabled},
				[]any{st.Phase, ready.Reason, rtt, ready.Status == metav1.ConditionTrue}); diff != "" {
				t.Errorf("peer status (-want +got):\n%s", diff)
			}
		})
	}
}

func TestHeldCondition(t *testing.T) {
	slices := []sharingv1alpha1.NodeSlice{{Node: "a"}, {Node: "b"}}
	cases := []struct {
		name  string
		nodes map[string]bool
		over  map[string]bool
		want  string
	}{
		{"both nodes fit", map[string]bool{"a": true, "b": true}, nil, "True/Fits"},
		{"a node is gone", map[string]bool{"a": true}, nil, "False/NodeGone"},
		{"a node is overcommitted", map[string]bool{"a": true, "b": true}, map[string]bool{"b": true}, "False/NodeOvercommitted"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := heldCondition(slices, tc.nodes, tc.over, 1)
			if diff := cmp.Diff(tc.want, string(c.Status)+"/"+c.Reason); diff != "" {
				t.Errorf("Held (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRetryDue(t *testing.T) {
	closed := metav1.NewTime(t0.Add(-30 * time.Second))
	cases := []struct {
		name     string
		status   metav1.ConditionStatus
		wantDel  bool
		wantWait time.Duration
		retry    time.Duration
	}{
		{"won: kept", metav1.ConditionTrue, false, 0, time.Minute},
		{"lost: kept until the retry", metav1.ConditionFalse, false, 30 * time.Second, time.Minute},
		{"lost: deleted after the retry", metav1.ConditionFalse, true, 0, 10 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			del, wait := retryDue(&metav1.Condition{Status: tc.status, LastTransitionTime: closed}, t0, tc.retry)
			if diff := cmp.Diff([]any{tc.wantDel, tc.wantWait}, []any{del, wait}); diff != "" {
				t.Errorf("retryDue (-want +got):\n%s", diff)
			}
		})
	}
}

// TestOutcome: the incoming policy's reason becomes status.reason when the
// API's enum has it; another word is recorded as PolicyAccepted or
// PolicyRefused and leads the message, so nothing the policy said is lost.
func TestOutcome(t *testing.T) {
	tests := []struct {
		name   string
		result string
		want   sharing.Judgement
	}{
		{name: "accepted", result: `{"accepted": true, "reason": "PolicyAccepted", "message": "2 of 2 shapes", "acceptedShapes": ["a"]}`,
			want: sharing.Judgement{Decision: sharingv1alpha1.DecisionAccepted, Reason: sharingv1alpha1.AdvertisementReasonPolicyAccepted, Message: "2 of 2 shapes", AcceptedShapes: []string{"a"}}},
		{name: "a shipped refusal", result: `{"accepted": false, "reason": "PriceAboveCeiling", "message": "cpu costs 0.5"}`,
			want: sharing.Judgement{Decision: sharingv1alpha1.DecisionRefused, Reason: sharingv1alpha1.AdvertisementReasonPriceAboveCeiling, Message: "cpu costs 0.5"}},
		{name: "a refusal of the policy's own", result: `{"accepted": false, "reason": "OutsideOfficeHours", "message": "peers lend from 8 to 18"}`,
			want: sharing.Judgement{Decision: sharingv1alpha1.DecisionRefused, Reason: sharingv1alpha1.AdvertisementReasonPolicyRefused, Message: "OutsideOfficeHours: peers lend from 8 to 18"}},
		{name: "an acceptance of the policy's own", result: `{"accepted": true, "reason": "Trusted"}`,
			want: sharing.Judgement{Decision: sharingv1alpha1.DecisionAccepted, Reason: sharingv1alpha1.AdvertisementReasonPolicyAccepted, Message: "Trusted"}},
		{name: "a receiver's reason is not the policy's to give", result: `{"accepted": false, "reason": "Listed", "message": "m"}`,
			want: sharing.Judgement{Decision: sharingv1alpha1.DecisionRefused, Reason: sharingv1alpha1.AdvertisementReasonPolicyRefused, Message: "Listed: m"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := outcome([]byte(tc.result))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("outcome (-want +got):\n%s", diff)
			}
		})
	}
}
