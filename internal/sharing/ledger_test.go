package sharing_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/sharing"
)

// shapeCounts summarises availability as shape name -> count.
func shapeCounts(shapes []sharingv1alpha1.NodeShape) map[string]int32 {
	out := map[string]int32{}
	for _, s := range shapes {
		out[s.Name] = s.Count
	}
	return out
}

func policy(share int32) sharing.Outgoing {
	return sharing.Outgoing{SharePercent: share, Shapes: sharing.DefaultShapeOptions()}
}

// step is one ledger operation and the availability it must yield.
type step struct {
	do        string // advertise, accept, release, expire
	consumer  sharingv1alpha1.ClusterID
	share     int32
	at        time.Duration // after t0
	want      map[string]int32
	wantErr   error
	wantState sharingv1alpha1.ReservationState
}

func TestLedgerNeverPromisesTwice(t *testing.T) {
	nodes := spares([3]string{"n1", "8", "16Gi"}, [3]string{"n2", "4", "8Gi"})
	ttl := 30 * time.Minute
	tests := []struct {
		name  string
		steps []step
	}{{
		name: "one provider offered to two consumers at 100% each: the second gets nothing",
		steps: []step{
			{do: "advertise", consumer: "a", share: 100, want: map[string]int32{"8cpu-16gi": 1, "4cpu-8gi": 1}, wantState: sharingv1alpha1.ReservationOffered},
			{do: "advertise", consumer: "b", share: 100, want: map[string]int32{}},
		},
	}, {
		name: "50% each: each consumer gets half of every node",
		steps: []step{
			{do: "advertise", consumer: "a", share: 50, want: map[string]int32{"4cpu-8gi": 1, "2cpu-4gi": 1}},
			{do: "advertise", consumer: "b", share: 50, want: map[string]int32{"4cpu-8gi": 1, "2cpu-4gi": 1}},
			{do: "advertise", consumer: "c", share: 50, want: map[string]int32{}},
		},
	}, {
		name: "70% and 70%: the second gets what the first left, rounded down to 250m and 256Mi",
		steps: []step{
			{do: "advertise", consumer: "a", share: 70, want: map[string]int32{"5500mcpu-11gi": 1, "2750mcpu-5632mi": 1}},
			{do: "advertise", consumer: "b", share: 70, want: map[string]int32{"2500mcpu-5gi": 1, "1250mcpu-2560mi": 1}},
		},
	}, {
		name: "an accepted advertisement renewed stays reserved and keeps its size",
		steps: []step{
			{do: "advertise", consumer: "a", share: 100, want: map[string]int32{"8cpu-16gi": 1, "4cpu-8gi": 1}},
			{do: "accept", consumer: "a", at: time.Minute, wantState: sharingv1alpha1.ReservationReserved},
			{do: "advertise", consumer: "a", share: 100, at: 10 * time.Minute, want: map[string]int32{"8cpu-16gi": 1, "4cpu-8gi": 1}, wantState: sharingv1alpha1.ReservationReserved},
			{do: "advertise", consumer: "b", share: 100, at: 10 * time.Minute, want: map[string]int32{}},
		},
	}, {
		name: "an advertisement not renewed expires and frees its capacity",
		steps: []step{
			{do: "advertise", consumer: "a", share: 100, want: map[string]int32{"8cpu-16gi": 1, "4cpu-8gi": 1}},
			{do: "advertise", consumer: "b", share: 100, at: 29 * time.Minute, want: map[string]int32{}},
			{do: "advertise", consumer: "b", share: 100, at: 30 * time.Minute, want: map[string]int32{"8cpu-16gi": 1, "4cpu-8gi": 1}},
			{do: "accept", consumer: "a", at: 31 * time.Minute, wantErr: sharing.ErrHoldExpired},
		},
	}, {
		name: "an offer accepted after its expiry is refused",
		steps: []step{
			{do: "advertise", consumer: "a", share: 100, want: map[string]int32{"8cpu-16gi": 1, "4cpu-8gi": 1}},
			{do: "accept", consumer: "a", at: 30 * time.Minute, wantErr: sharing.ErrHoldExpired},
		},
	}, {
		name: "release frees the capacity for the next consumer",
		steps: []step{
			{do: "advertise", consumer: "a", share: 100, want: map[string]int32{"8cpu-16gi": 1, "4cpu-8gi": 1}},
			{do: "accept", consumer: "a", at: time.Minute},
			{do: "release", consumer: "a", at: 2 * time.Minute},
			{do: "advertise", consumer: "b", share: 100, at: 2 * time.Minute, want: map[string]int32{"8cpu-16gi": 1, "4cpu-8gi": 1}},
			{do: "release", consumer: "a", at: 3 * time.Minute, wantErr: sharing.ErrNoHold},
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := sharing.NewLedger()
			for i, s := range tc.steps {
				now := t0.Add(s.at)
				key := sharing.HoldKey{Consumer: s.consumer, Source: sharingv1alpha1.SourceReference{Kind: sharingv1alpha1.SourceAdvertisement, Name: "provider-" + string(s.consumer)}}
				var (
					h   sharing.Hold
					err error
				)
				switch s.do {
				case "advertise":
					var p sharing.Plan
					p, err = l.Advertise(nodes, s.consumer, key.Source.Name, policy(s.share), now, now.Add(ttl))
					h = p.Hold
					if err == nil {
						if diff := cmp.Diff(s.want, shapeCounts(p.Availability)); diff != "" {
							t.Errorf("step %d: availability for %s (-want +got):\n%s", i, s.consumer, diff)
						}
					}
				case "accept":
					h, err = l.Accept(key, now)
				case "release":
					h, err = l.Release(key)
				}
				if !errors.Is(err, s.wantErr) {
					t.Fatalf("step %d (%s %s): error %v, want %v", i, s.do, s.consumer, err, s.wantErr)
				}
				if s.wantState != "" && h.State != s.wantState {
					t.Errorf("step %d: state %q, want %q", i, h.State, s.wantState)
				}
				if over := l.Overcommitted(nodes, now); len(over) > 0 {
					t.Errorf("step %d: nodes promised twice: %v", i, over)
				}
			}
		})
	}
}

// TestLedgerRandomNeverOverPromises runs random advertisements, accepts,
// releases, offers and expiries for four consumers against one provider,
// with twins running, and checks after every step that no node's holds
// and twins exceed what it spares.
func TestLedgerRandomNeverOverPromises(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	consumers := []sharingv1alpha1.ClusterID{"a", "b", "c", "d"}
	for run := range 50 {
		nodes := spares([3]string{"n1", "16", "64Gi"}, [3]string{"n2", "8", "32Gi"}, [3]string{"n3", "2", "4Gi"}, [3]string{"n4", "3500m", "7Gi"})
		l := sharing.NewLedger()
		now := t0.Time
		for step := range 60 {
			now = now.Add(time.Duration(rng.IntN(600)) * time.Second)
			c := consumers[rng.IntN(len(consumers))]
			key := sharing.HoldKey{Consumer: c, Source: sharingv1alpha1.SourceReference{Kind: sharingv1alpha1.SourceAdvertisement, Name: "adv"}}
			switch rng.IntN(5) {
			case 0, 1:
				if _, err := l.Advertise(nodes, c, "adv", policy(int32(rng.IntN(101))), now, now.Add(time.Duration(5+rng.IntN(40))*time.Minute)); err != nil {
					t.Fatal(err)
				}
			case 2:
				_, _ = l.Accept(key, now)
			case 3:
				_, _ = l.Release(key)
			case 4:
				// A consumer's twins start on a node it holds a slice of.
				if h, ok := l.Get(key); ok && len(h.Slices) > 0 {
					s := h.Slices[rng.IntN(len(h.Slices))]
					for i := range nodes {
						if nodes[i].Name == s.Node {
							if nodes[i].UsedBy == nil {
								nodes[i].UsedBy = map[sharingv1alpha1.ClusterID]corev1.ResourceList{}
							}
							nodes[i].UsedBy[c] = corev1.ResourceList(s.Resources).DeepCopy()
						}
					}
				}
			}
			l.Expire(now)
			if over := l.Overcommitted(nodes, now); len(over) > 0 {
				t.Fatalf("run %d step %d: nodes promised twice: %v\nholds: %s", run, step, over, fmt.Sprint(l.Holds()))
			}
			for n, held := range sumHeld(l) {
				for _, ns := range nodes {
					if ns.Name == n && !sharing.Fits(held, ns.Free) {
						t.Fatalf("run %d step %d: node %s holds %v, more than it spares %v", run, step, n, held, ns.Free)
					}
				}
			}
		}
	}
}

func TestLedgerPolicy(t *testing.T) {
	nodes := spares([3]string{"n1", "8", "16Gi"})
	tests := []struct {
		name    string
		policy  sharing.Outgoing
		want    map[string]int32
		wantErr error
	}{
		{name: "consumer not in the allowed peers", policy: sharing.Outgoing{Allowed: []sharingv1alpha1.ClusterID{"b"}, SharePercent: 100, Shapes: sharing.DefaultShapeOptions()}, wantErr: sharing.ErrNotAllowed},
		{name: "consumer allowed", policy: sharing.Outgoing{Allowed: []sharingv1alpha1.ClusterID{"a", "b"}, SharePercent: 25, Shapes: sharing.DefaultShapeOptions()}, want: map[string]int32{"2cpu-4gi": 1}},
		{name: "share of zero advertises nothing", policy: policy(0), want: map[string]int32{}},
		{name: "a slice under the minimum is not advertised", policy: policy(2), want: map[string]int32{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := sharing.NewLedger().Advertise(nodes, "a", "adv", tc.policy, t0.Time, t0.Add(time.Hour))
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error %v, want %v", err, tc.wantErr)
			}
			if err == nil {
				if diff := cmp.Diff(tc.want, shapeCounts(p.Availability)); diff != "" {
					t.Errorf("availability (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestLedgerOffer(t *testing.T) {
	nodes := spares([3]string{"n1", "8", "16Gi"})
	l := sharing.NewLedger()
	if _, err := l.Advertise(nodes, "a", "adv", policy(75), t0.Time, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		slice   corev1.ResourceList
		node    string
		wantErr error
	}{
		{name: "what a left is offered to b", slice: rl("2", "4Gi"), node: "n1"},
		{name: "more than a left is refused", slice: rl("3", "4Gi"), node: "n1", wantErr: sharing.ErrOverPromise},
		{name: "an unknown node is refused", slice: rl("1", "1Gi"), node: "n9", wantErr: sharing.ErrOverPromise},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := l.Offer(nodes, "b", "offer-"+tc.node, []sharingv1alpha1.NodeSlice{{Node: tc.node, Shape: "s", Resources: tc.slice}}, t0.Time, t0.Add(time.Minute))
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error %v, want %v", err, tc.wantErr)
			}
		})
	}
}

func TestHoldReservationRoundTrip(t *testing.T) {
	l := sharing.NewLedger()
	p, err := l.Advertise(spares([3]string{"n1", "8", "16Gi"}), "a", "adv", policy(50), t0.Time, t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	got := sharing.HoldFromReservation(p.Hold.Reservation())
	if diff := cmp.Diff(p.Hold, got, cmpQuantity); diff != "" {
		t.Errorf("hold after a trip through a Reservation (-want +got):\n%s", diff)
	}
	restarted := sharing.NewLedger(got)
	if p2, _ := restarted.Advertise(spares([3]string{"n1", "8", "16Gi"}), "b", "adv", policy(100), t0.Add(time.Minute), t0.Add(time.Hour)); len(p2.Availability) != 1 || p2.Availability[0].Name != "4cpu-8gi" {
		t.Errorf("after a restart b was offered %v, want only the half a does not hold (4cpu-8gi)", p2.Availability)
	}
}
