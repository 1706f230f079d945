package sharing_test

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
)

func validPeer() *sharingv1alpha1.Peer {
	return &sharingv1alpha1.Peer{Spec: sharingv1alpha1.PeerSpec{
		ClusterID:            "provider-a",
		Role:                 sharingv1alpha1.RoleConsumer,
		APIServer:            "https://10.0.0.2:6443",
		CredentialsSecretRef: sharingv1alpha1.SecretReference{Name: "provider-a-kubeconfig"},
		Identity:             sharingv1alpha1.PeerIdentity{Username: "system:serviceaccount:meridian-peers:provider-a"},
		Namespace:            "peer-provider-a",
		Region:               "eu-west-3",
		Outgoing: &sharingv1alpha1.OutgoingPolicy{SharePercent: 50, Prices: []sharingv1alpha1.Price{
			{Resource: "cpu", Amount: q("0.031"), Currency: "EUR", Unit: q("1"), Period: sharingv1alpha1.PeriodHour},
			{Resource: "memory", Amount: q("0.004"), Currency: "EUR", Unit: q("1Gi")},
		}},
	}}
}

func peerCases() []apiCase {
	with := func(f func(*sharingv1alpha1.Peer)) *sharingv1alpha1.Peer { p := validPeer(); f(p); return p }
	return []apiCase{
		{name: "peer valid", obj: validPeer()},
		{name: "peer cluster ID not a DNS label", obj: with(func(p *sharingv1alpha1.Peer) { p.Spec.ClusterID = "Provider_A" }), wantFields: []string{"spec.clusterID"}},
		{name: "peer role unknown", obj: with(func(p *sharingv1alpha1.Peer) { p.Spec.Role = "Lender" }), wantFields: []string{"spec.role"}},
		{name: "peer API server over plain http", obj: with(func(p *sharingv1alpha1.Peer) { p.Spec.APIServer = "http://10.0.0.2:6443" }), wantFields: []string{"spec.apiServer"}},
		{name: "peer without credentials Secret", obj: with(func(p *sharingv1alpha1.Peer) { p.Spec.CredentialsSecretRef.Name = "" }), wantFields: []string{"spec.credentialsSecretRef.name"}},
		{name: "peer without identity", obj: with(func(p *sharingv1alpha1.Peer) { p.Spec.Identity.Username = "" }), wantFields: []string{"spec.identity.username"}},
		{name: "peer share over 100", obj: with(func(p *sharingv1alpha1.Peer) { p.Spec.Outgoing.SharePercent = 150 }), wantFields: []string{"spec.outgoing.sharePercent"}},
		{name: "peer prices in two currencies", obj: with(func(p *sharingv1alpha1.Peer) { p.Spec.Outgoing.Prices[1].Currency = "USD" }), wantFields: []string{"spec.outgoing.prices"}},
		{goOnly: true, name: "peer negative price", obj: with(func(p *sharingv1alpha1.Peer) { p.Spec.Outgoing.Prices[0].Amount = q("-1") }), wantFields: []string{"spec.outgoing.prices[0].amount"}},
		{goOnly: true, name: "peer price with zero unit", obj: with(func(p *sharingv1alpha1.Peer) { p.Spec.Outgoing.Prices[1].Unit = q("0") }), wantFields: []string{"spec.outgoing.prices[1].unit"}},
		{name: "peer price currency not ISO 4217", obj: with(func(p *sharingv1alpha1.Peer) {
			p.Spec.Outgoing.Prices = p.Spec.Outgoing.Prices[:1]
			p.Spec.Outgoing.Prices[0].Currency = "euro"
		}), wantFields: []string{"spec.outgoing.prices[0].currency"}},
	}
}

func validAdvertisement() *sharingv1alpha1.Advertisement {
	return &sharingv1alpha1.Advertisement{Spec: sharingv1alpha1.AdvertisementSpec{
		ClusterID: "provider-a",
		Consumer:  "consumer-a",
		Type:      sharingv1alpha1.AdvertisementFull,
		Region:    "eu-west-3",
		Availability: []sharingv1alpha1.NodeShape{
			{Name: "4cpu-16gi", Resources: corev1.ResourceList{corev1.ResourceCPU: q("4"), corev1.ResourceMemory: q("16Gi"), corev1.ResourcePods: q("110")}, Count: 3,
				Labels: map[string]string{"kubernetes.io/arch": "amd64"}},
			{Name: "500m-1gi", Resources: rl("500m", "1Gi"), Count: 40},
		},
		Prices: []sharingv1alpha1.Price{
			{Resource: "cpu", Amount: q("0.031"), Currency: "EUR", Unit: q("1")},
			{Resource: "memory", Amount: q("0.004"), Currency: "EUR", Unit: q("1Gi")},
		},
		Images:     []sharingv1alpha1.AdvertisedImage{{Names: []string{"docker.io/library/nginx:1.27"}, SizeBytes: 70 << 20}},
		Network:    &sharingv1alpha1.NetworkInfo{PodCIDR: "10.244.0.0/16", GatewayIP: "192.0.2.1", SupportedProtocols: []string{"wireguard"}},
		Flags:      []string{"aggregatable=false"},
		Timestamp:  t0,
		TimeToLive: metav1.Duration{Duration: 30 * time.Minute},
	}}
}

func advertisementCases() []apiCase {
	with := func(f func(*sharingv1alpha1.AdvertisementSpec)) *sharingv1alpha1.Advertisement {
		a := validAdvertisement()
		f(&a.Spec)
		return a
	}
	return []apiCase{
		{name: "advertisement valid", obj: validAdvertisement()},
		{name: "advertisement partial with availability only", obj: with(func(s *sharingv1alpha1.AdvertisementSpec) {
			s.Type, s.Prices, s.Images, s.Network = sharingv1alpha1.AdvertisementPartial, nil, nil, nil
		})},
		{name: "advertisement hello with nothing to spare", obj: with(func(s *sharingv1alpha1.AdvertisementSpec) {
			s.Type, s.Prices, s.Images, s.Network, s.Availability = sharingv1alpha1.AdvertisementPartial, nil, nil, nil, nil
		})},
		{name: "advertisement partial with prices", obj: with(func(s *sharingv1alpha1.AdvertisementSpec) {
			s.Type, s.Images, s.Network = sharingv1alpha1.AdvertisementPartial, nil, nil
		}), wantFields: []string{"spec.type"}},
		{name: "advertisement without consumer", obj: with(func(s *sharingv1alpha1.AdvertisementSpec) { s.Consumer = "" }), wantFields: []string{"spec.consumer"}},
		{name: "advertisement shape without memory", obj: with(func(s *sharingv1alpha1.AdvertisementSpec) {
			delete(s.Availability[1].Resources, corev1.ResourceMemory)
		}), wantFields: []string{"spec.availability[1].resources"}},
		{goOnly: true, name: "advertisement shape with zero cpu", obj: with(func(s *sharingv1alpha1.AdvertisementSpec) {
			s.Availability[0].Resources[corev1.ResourceCPU] = q("0")
		}), wantFields: []string{"spec.availability[0].resources"}},
		{goOnly: true, name: "advertisement shape with negative pods", obj: with(func(s *sharingv1alpha1.AdvertisementSpec) {
			s.Availability[0].Resources[corev1.ResourcePods] = q("-1")
		}), wantFields: []string{"spec.availability[0].resources"}},
		{name: "advertisement shape count zero", obj: with(func(s *sharingv1alpha1.AdvertisementSpec) { s.Availability[1].Count = 0 }), wantFields: []string{"spec.availability[1].count"}},
		{name: "advertisement shape name not a DNS label", obj: with(func(s *sharingv1alpha1.AdvertisementSpec) { s.Availability[0].Name = "4 CPU" }), wantFields: []string{"spec.availability[0].name"}},
		{name: "advertisement two shapes of one name", obj: with(func(s *sharingv1alpha1.AdvertisementSpec) { s.Availability[1].Name = s.Availability[0].Name }), wantFields: []string{"spec.availability[1]"}},
		{name: "advertisement without time-to-live", obj: with(func(s *sharingv1alpha1.AdvertisementSpec) { s.TimeToLive = metav1.Duration{} }), wantFields: []string{"spec.timeToLive"}},
		{name: "advertisement time-to-live over a day", obj: with(func(s *sharingv1alpha1.AdvertisementSpec) { s.TimeToLive.Duration = 25 * time.Hour }), wantFields: []string{"spec.timeToLive"}},
		{name: "advertisement without timestamp", obj: with(func(s *sharingv1alpha1.AdvertisementSpec) { s.Timestamp = metav1.Time{} }), wantFields: []string{"spec.timestamp"}},
		{name: "advertisement unknown type", obj: with(func(s *sharingv1alpha1.AdvertisementSpec) { s.Type = "Hello" }), wantFields: []string{"spec.type"}},
		{name: "advertisement prices in two currencies", obj: with(func(s *sharingv1alpha1.AdvertisementSpec) { s.Prices[0].Currency = "USD" }), wantFields: []string{"spec.prices"}},
		{name: "advertisement price of unknown period", obj: with(func(s *sharingv1alpha1.AdvertisementSpec) { s.Prices[0].Period = "Week" }), wantFields: []string{"spec.prices[0].period"}},
		{name: "advertisement image without names", obj: with(func(s *sharingv1alpha1.AdvertisementSpec) { s.Images[0].Names = nil }), wantFields: []string{"spec.images[0].names"}},
		{name: "advertisement malformed flag", obj: with(func(s *sharingv1alpha1.AdvertisementSpec) { s.Flags = []string{"=true"} }), wantFields: []string{"spec.flags[0]"}},
	}
}

func validReservation() *sharingv1alpha1.Reservation {
	return &sharingv1alpha1.Reservation{Spec: sharingv1alpha1.ReservationSpec{
		Consumer: "consumer-a",
		Source:   sharingv1alpha1.SourceReference{Kind: sharingv1alpha1.SourceAdvertisement, Name: "provider-a"},
		State:    sharingv1alpha1.ReservationReserved,
		Slices: []sharingv1alpha1.NodeSlice{
			{Node: "node-1", Shape: "4cpu-16gi", Resources: rl("4", "16Gi")},
			{Node: "node-2", Shape: "4cpu-16gi", Resources: rl("4", "16Gi")},
		},
		ExpiresAt: metav1.NewTime(t0.Add(30 * time.Minute)),
	}}
}

func reservationCases() []apiCase {
	with := func(f func(*sharingv1alpha1.ReservationSpec)) *sharingv1alpha1.Reservation {
		r := validReservation()
		f(&r.Spec)
		return r
	}
	return []apiCase{
		{name: "reservation valid", obj: validReservation()},
		{name: "reservation unknown state", obj: with(func(s *sharingv1alpha1.ReservationSpec) { s.State = "Held" }), wantFields: []string{"spec.state"}},
		{name: "reservation unknown source kind", obj: with(func(s *sharingv1alpha1.ReservationSpec) { s.Source.Kind = "Quote" }), wantFields: []string{"spec.source.kind"}},
		{name: "reservation two slices of one node", obj: with(func(s *sharingv1alpha1.ReservationSpec) { s.Slices[1].Node = "node-1" }), wantFields: []string{"spec.slices[1]"}},
		{name: "reservation slice without resources", obj: with(func(s *sharingv1alpha1.ReservationSpec) { s.Slices[0].Resources = corev1.ResourceList{} }), wantFields: []string{"spec.slices[0].resources"}},
		{name: "reservation without expiry", obj: with(func(s *sharingv1alpha1.ReservationSpec) { s.ExpiresAt = metav1.Time{} }), wantFields: []string{"spec.expiresAt"}},
	}
}

func validQuote() *sharingv1alpha1.Quote {
	return &sharingv1alpha1.Quote{Spec: sharingv1alpha1.QuoteSpec{
		Consumer: "consumer-a",
		AppID:    "shop",
		Components: []sharingv1alpha1.Component{
			{Name: "web", Replicas: 3, Requests: rl("500m", "512Mi")},
			{Name: "db", Replicas: 1, Requests: rl("2", "8Gi"), NodeSelector: map[string]string{"kubernetes.io/arch": "amd64"}},
		},
		Currency:  "EUR",
		Timestamp: t0,
		Deadline:  metav1.NewTime(t0.Add(10 * time.Second)),
	}}
}

func validOffer() *sharingv1alpha1.Offer {
	return &sharingv1alpha1.Offer{Spec: sharingv1alpha1.OfferSpec{
		Provider: "provider-a",
		Quote:    "shop-1",
		AppID:    "shop",
		Whole:    &sharingv1alpha1.OfferTerms{Interest: 80, Price: &sharingv1alpha1.Money{Amount: q("0.42"), Currency: "EUR"}},
		Items: []sharingv1alpha1.OfferItem{
			{Component: "web", OfferTerms: sharingv1alpha1.OfferTerms{Interest: 100, Price: &sharingv1alpha1.Money{Amount: q("0.20"), Currency: "EUR"}}},
			{Component: "db", OfferTerms: sharingv1alpha1.OfferTerms{Interest: 0}},
		},
		Timestamp: t0,
		ExpiresAt: metav1.NewTime(t0.Add(time.Minute)),
	}}
}

func auctionCases() []apiCase {
	quote := func(f func(*sharingv1alpha1.QuoteSpec)) *sharingv1alpha1.Quote {
		o := validQuote()
		f(&o.Spec)
		return o
	}
	offer := func(f func(*sharingv1alpha1.OfferSpec)) *sharingv1alpha1.Offer {
		o := validOffer()
		f(&o.Spec)
		return o
	}
	ack := &sharingv1alpha1.Acknowledgement{Spec: sharingv1alpha1.AcknowledgementSpec{Consumer: "consumer-a", Offer: "provider-a-shop-1", Quote: "shop-1", AppID: "shop", Confirm: true}}
	release := &sharingv1alpha1.Release{Spec: sharingv1alpha1.ReleaseSpec{Consumer: "consumer-a", Source: sharingv1alpha1.SourceReference{Kind: sharingv1alpha1.SourceOffer, Name: "provider-a-shop-1"}, AppID: "shop"}}
	return []apiCase{
		{name: "quote valid", obj: validQuote()},
		{name: "quote without components", obj: quote(func(s *sharingv1alpha1.QuoteSpec) { s.Components = nil }), wantFields: []string{"spec.components"}},
		{name: "quote component asking for nothing", obj: quote(func(s *sharingv1alpha1.QuoteSpec) {
			s.Components[0].Requests = corev1.ResourceList{"nvidia.com/gpu": q("1")}
		}), wantFields: []string{"spec.components[0].requests"}},
		{goOnly: true, name: "quote component with negative memory", obj: quote(func(s *sharingv1alpha1.QuoteSpec) {
			s.Components[1].Requests[corev1.ResourceMemory] = q("-1Gi")
		}), wantFields: []string{"spec.components[1].requests"}},
		{name: "quote component replicas negative", obj: quote(func(s *sharingv1alpha1.QuoteSpec) { s.Components[0].Replicas = -2 }), wantFields: []string{"spec.components[0].replicas"}},
		{name: "quote deadline before timestamp", obj: quote(func(s *sharingv1alpha1.QuoteSpec) { s.Deadline = metav1.NewTime(t0.Add(-time.Second)) }), wantFields: []string{"spec.deadline"}},
		{name: "quote app ID with capitals", obj: quote(func(s *sharingv1alpha1.QuoteSpec) { s.AppID = "Shop" }), wantFields: []string{"spec.appID"}},
		{name: "offer valid", obj: validOffer()},
		{name: "offer interest without price", obj: offer(func(s *sharingv1alpha1.OfferSpec) { s.Whole.Price = nil }), wantFields: []string{"spec.whole.price"}},
		{name: "offer interest over 100", obj: offer(func(s *sharingv1alpha1.OfferSpec) { s.Items[0].Interest = 101 }), wantFields: []string{"spec.items[0].interest"}},
		{goOnly: true, name: "offer negative price", obj: offer(func(s *sharingv1alpha1.OfferSpec) { s.Whole.Price.Amount = q("-0.1") }), wantFields: []string{"spec.whole.price.amount"}},
		{name: "offer expiring before it was made", obj: offer(func(s *sharingv1alpha1.OfferSpec) { s.ExpiresAt = t0 }), wantFields: []string{"spec.expiresAt"}},
		{name: "offer with neither whole nor items", obj: offer(func(s *sharingv1alpha1.OfferSpec) { s.Whole, s.Items = nil, nil }), wantFields: []string{"spec.items"}},
		{name: "acknowledgement valid", obj: ack},
		{name: "acknowledgement without offer", obj: func() *sharingv1alpha1.Acknowledgement { a := ack.DeepCopy(); a.Spec.Offer = ""; return a }(), wantFields: []string{"spec.offer"}},
		{name: "release valid", obj: release},
		{name: "release of a quote", obj: func() *sharingv1alpha1.Release { r := release.DeepCopy(); r.Spec.Source.Kind = "Quote"; return r }(), wantFields: []string{"spec.source.kind"}},
	}
}
