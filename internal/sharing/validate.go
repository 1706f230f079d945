package sharing

import (
	"fmt"
	"regexp"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
)

// MaxTimeToLive is the longest time-to-live an Advertisement may have.
const MaxTimeToLive = 24 * time.Hour

var (
	dnsLabel     = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	dnsSubdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	secretKey    = regexp.MustCompile(`^[-._a-zA-Z0-9]+$`)
	currencyCode = regexp.MustCompile(`^[A-Z]{3}$`)
	httpsURL     = regexp.MustCompile(`^https://[^\s/]+(/[^\s]*)?$`)
	flagSyntax   = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9.-]*(=[^\s]*)?$`)
)

// Validate checks the spec of a sharing message or object as the API
// server's schema and CEL rules do, so that an agent or the broker refuses
// a malformed message it decoded itself with the same field paths the API
// server would name. It returns nil for a valid object and for kinds it
// does not know.
func Validate(obj runtime.Object) field.ErrorList {
	spec := field.NewPath("spec")
	switch o := obj.(type) {
	case *sharingv1alpha1.Peer:
		return validatePeer(spec, &o.Spec)
	case *sharingv1alpha1.Advertisement:
		return validateAdvertisement(spec, &o.Spec)
	case *sharingv1alpha1.Reservation:
		return validateReservation(spec, &o.Spec)
	case *sharingv1alpha1.Quote:
		return validateQuote(spec, &o.Spec)
	case *sharingv1alpha1.Offer:
		return validateOffer(spec, &o.Spec)
	case *sharingv1alpha1.Acknowledgement:
		return validateAcknowledgement(spec, &o.Spec)
	case *sharingv1alpha1.Release:
		return validateRelease(spec, &o.Spec)
	}
	return nil
}

func validatePeer(p *field.Path, s *sharingv1alpha1.PeerSpec) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, clusterID(p.Child("clusterID"), s.ClusterID)...)
	errs = append(errs, enum(p.Child("role"), string(s.Role), false, "Provider", "Consumer", "Both")...)
	switch {
	case len(s.APIServer) > 2048:
		errs = append(errs, field.TooLong(p.Child("apiServer"), "", 2048))
	case !httpsURL.MatchString(s.APIServer):
		errs = append(errs, field.Invalid(p.Child("apiServer"), s.APIServer, "must be an https:// URL of the peer's API server, e.g. https://10.0.0.1:6443"))
	}
	errs = append(errs, secretRef(p.Child("credentialsSecretRef"), s.CredentialsSecretRef)...)
	errs = append(errs, stringLen(p.Child("identity", "username"), s.Identity.Username, 1, 320)...)
	errs = append(errs, label(p.Child("namespace"), s.Namespace, true)...)
	errs = append(errs, label(p.Child("region"), s.Region, false)...)
	if o := s.Outgoing; o != nil {
		if o.SharePercent < 0 || o.SharePercent > 100 {
			errs = append(errs, field.Invalid(p.Child("outgoing", "sharePercent"), o.SharePercent, "must be from 0 to 100"))
		}
		errs = append(errs, prices(p.Child("outgoing", "prices"), o.Prices)...)
	}
	return errs
}

func validateAdvertisement(p *field.Path, s *sharingv1alpha1.AdvertisementSpec) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, clusterID(p.Child("clusterID"), s.ClusterID)...)
	errs = append(errs, clusterID(p.Child("consumer"), s.Consumer)...)
	errs = append(errs, enum(p.Child("type"), string(s.Type), true, "Full", "Partial")...)
	errs = append(errs, label(p.Child("region"), s.Region, false)...)
	errs = append(errs, label(p.Child("zone"), s.Zone, false)...)
	if len(s.Availability) > 256 {
		errs = append(errs, field.TooMany(p.Child("availability"), len(s.Availability), 256))
	}
	seen := map[string]bool{}
	for i, sh := range s.Availability {
		ip := p.Child("availability").Index(i)
		if seen[sh.Name] {
			errs = append(errs, field.Duplicate(ip, sh.Name))
		}
		seen[sh.Name] = true
		errs = append(errs, label(ip.Child("name"), sh.Name, true)...)
		errs = append(errs, shapeResources(ip.Child("resources"), sh.Resources)...)
		if sh.Count < 1 || sh.Count > 10000 {
			errs = append(errs, field.Invalid(ip.Child("count"), sh.Count, "must be from 1 to 10000"))
		}
		if len(sh.Labels) > 8 {
			errs = append(errs, field.TooMany(ip.Child("labels"), len(sh.Labels), 8))
		}
	}
	errs = append(errs, prices(p.Child("prices"), s.Prices)...)
	if len(s.Images) > 256 {
		errs = append(errs, field.TooMany(p.Child("images"), len(s.Images), 256))
	}
	for i, img := range s.Images {
		ip := p.Child("images").Index(i)
		if len(img.Names) < 1 || len(img.Names) > 16 {
			errs = append(errs, field.Invalid(ip.Child("names"), len(img.Names), "must list 1 to 16 names"))
		}
		for j, n := range img.Names {
			if len(n) > 512 {
				errs = append(errs, field.TooLong(ip.Child("names").Index(j), "", 512))
			}
		}
		if img.SizeBytes < 0 {
			errs = append(errs, field.Invalid(ip.Child("sizeBytes"), img.SizeBytes, "must not be negative"))
		}
	}
	if n := s.Network; n != nil {
		errs = append(errs, stringLen(p.Child("network", "podCIDR"), n.PodCIDR, 0, 64)...)
		errs = append(errs, stringLen(p.Child("network", "gatewayIP"), n.GatewayIP, 0, 64)...)
		errs = append(errs, set(p.Child("network", "supportedProtocols"), n.SupportedProtocols, 8, 32, nil)...)
	}
	errs = append(errs, set(p.Child("flags"), s.Flags, 16, 128, flagSyntax)...)
	if s.Type == sharingv1alpha1.AdvertisementPartial && (s.Prices != nil || s.Images != nil || s.Network != nil) {
		errs = append(errs, field.Invalid(p.Child("type"), s.Type, "a Partial advertisement carries only availability; prices, images and network come with the Full one"))
	}
	if s.Timestamp.IsZero() {
		errs = append(errs, field.Required(p.Child("timestamp"), "the time the advertisement was made"))
	}
	if ttl := s.TimeToLive.Duration; ttl <= 0 || ttl > MaxTimeToLive {
		errs = append(errs, field.Invalid(p.Child("timeToLive"), ttl.String(), "timeToLive must be greater than zero and at most 24h, e.g. 30m"))
	}
	return errs
}

func validateReservation(p *field.Path, s *sharingv1alpha1.ReservationSpec) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, clusterID(p.Child("consumer"), s.Consumer)...)
	errs = append(errs, source(p.Child("source"), s.Source)...)
	errs = append(errs, enum(p.Child("state"), string(s.State), false, "Offered", "Reserved")...)
	if len(s.Slices) > 10000 {
		errs = append(errs, field.TooMany(p.Child("slices"), len(s.Slices), 10000))
	}
	seen := map[string]bool{}
	for i, sl := range s.Slices {
		ip := p.Child("slices").Index(i)
		if seen[sl.Node] {
			errs = append(errs, field.Duplicate(ip, sl.Node))
		}
		seen[sl.Node] = true
		errs = append(errs, stringLen(ip.Child("node"), sl.Node, 1, 253)...)
		errs = append(errs, stringLen(ip.Child("shape"), sl.Shape, 1, 63)...)
		if len(sl.Resources) < 1 || len(sl.Resources) > 16 {
			errs = append(errs, field.Invalid(ip.Child("resources"), len(sl.Resources), "resources must name 1 to 16 resources"))
		}
	}
	if s.ExpiresAt.IsZero() {
		errs = append(errs, field.Required(p.Child("expiresAt"), "when the hold lapses unless renewed"))
	}
	return errs
}

func validateQuote(p *field.Path, s *sharingv1alpha1.QuoteSpec) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, clusterID(p.Child("consumer"), s.Consumer)...)
	errs = append(errs, subdomain(p.Child("appID"), s.AppID)...)
	if len(s.Components) < 1 || len(s.Components) > 64 {
		errs = append(errs, field.Invalid(p.Child("components"), len(s.Components), "must list 1 to 64 components"))
	}
	seen := map[string]bool{}
	for i, c := range s.Components {
		ip := p.Child("components").Index(i)
		if seen[c.Name] {
			errs = append(errs, field.Duplicate(ip, c.Name))
		}
		seen[c.Name] = true
		errs = append(errs, label(ip.Child("name"), c.Name, true)...)
		if c.Replicas != 0 && (c.Replicas < 1 || c.Replicas > 10000) {
			errs = append(errs, field.Invalid(ip.Child("replicas"), c.Replicas, "must be from 1 to 10000"))
		}
		errs = append(errs, componentRequests(ip.Child("requests"), c.Requests)...)
		if len(c.NodeSelector) > 16 {
			errs = append(errs, field.TooMany(ip.Child("nodeSelector"), len(c.NodeSelector), 16))
		}
	}
	if s.Currency != "" && !currencyCode.MatchString(s.Currency) {
		errs = append(errs, field.Invalid(p.Child("currency"), s.Currency, "must be an ISO 4217 code such as EUR"))
	}
	switch {
	case s.Timestamp.IsZero():
		errs = append(errs, field.Required(p.Child("timestamp"), "the time the quote was made"))
	case s.Deadline.IsZero():
		errs = append(errs, field.Required(p.Child("deadline"), "the time offers are collected until"))
	case !s.Deadline.After(s.Timestamp.Time):
		errs = append(errs, field.Invalid(p.Child("deadline"), s.Deadline, "deadline must be after timestamp"))
	}
	return errs
}

func validateOffer(p *field.Path, s *sharingv1alpha1.OfferSpec) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, clusterID(p.Child("provider"), s.Provider)...)
	errs = append(errs, stringLen(p.Child("quote"), s.Quote, 1, 253)...)
	errs = append(errs, stringLen(p.Child("appID"), s.AppID, 1, 253)...)
	if s.Whole != nil {
		errs = append(errs, terms(p.Child("whole"), *s.Whole)...)
	}
	if len(s.Items) > 64 {
		errs = append(errs, field.TooMany(p.Child("items"), len(s.Items), 64))
	}
	seen := map[string]bool{}
	for i, it := range s.Items {
		ip := p.Child("items").Index(i)
		if seen[it.Component] {
			errs = append(errs, field.Duplicate(ip, it.Component))
		}
		seen[it.Component] = true
		errs = append(errs, label(ip.Child("component"), it.Component, true)...)
		errs = append(errs, terms(ip, it.OfferTerms)...)
	}
	if s.Whole == nil && len(s.Items) == 0 {
		errs = append(errs, field.Required(p.Child("items"), "an offer needs whole or at least one item"))
	}
	switch {
	case s.Timestamp.IsZero():
		errs = append(errs, field.Required(p.Child("timestamp"), "the time the offer was made"))
	case s.ExpiresAt.IsZero():
		errs = append(errs, field.Required(p.Child("expiresAt"), "the time the offer lapses"))
	case !s.ExpiresAt.After(s.Timestamp.Time):
		errs = append(errs, field.Invalid(p.Child("expiresAt"), s.ExpiresAt, "expiresAt must be after timestamp"))
	}
	return errs
}

func validateAcknowledgement(p *field.Path, s *sharingv1alpha1.AcknowledgementSpec) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, clusterID(p.Child("consumer"), s.Consumer)...)
	errs = append(errs, stringLen(p.Child("offer"), s.Offer, 1, 253)...)
	errs = append(errs, stringLen(p.Child("quote"), s.Quote, 1, 253)...)
	errs = append(errs, stringLen(p.Child("appID"), s.AppID, 1, 253)...)
	return errs
}

func validateRelease(p *field.Path, s *sharingv1alpha1.ReleaseSpec) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, clusterID(p.Child("consumer"), s.Consumer)...)
	errs = append(errs, source(p.Child("source"), s.Source)...)
	errs = append(errs, stringLen(p.Child("appID"), s.AppID, 0, 253)...)
	errs = append(errs, stringLen(p.Child("reason"), s.Reason, 0, 1024)...)
	return errs
}

func terms(p *field.Path, t sharingv1alpha1.OfferTerms) field.ErrorList {
	var errs field.ErrorList
	if t.Interest < 0 || t.Interest > 100 {
		errs = append(errs, field.Invalid(p.Child("interest"), t.Interest, "must be from 0 (cannot host) to 100"))
	}
	if t.Price == nil {
		if t.Interest != 0 {
			errs = append(errs, field.Required(p.Child("price"), "price is required when interest is greater than zero"))
		}
		return errs
	}
	pp := p.Child("price")
	if t.Price.Amount.Sign() < 0 {
		errs = append(errs, field.Invalid(pp.Child("amount"), t.Price.Amount.String(), "amount must not be negative"))
	}
	if !currencyCode.MatchString(t.Price.Currency) {
		errs = append(errs, field.Invalid(pp.Child("currency"), t.Price.Currency, "must be an ISO 4217 code such as EUR"))
	}
	errs = append(errs, enum(pp.Child("period"), string(t.Price.Period), true, "Hour", "Day", "Month")...)
	return errs
}

func prices(p *field.Path, ps []sharingv1alpha1.Price) field.ErrorList {
	var errs field.ErrorList
	if len(ps) > 32 {
		errs = append(errs, field.TooMany(p, len(ps), 32))
	}
	seen := map[string]bool{}
	for i, pr := range ps {
		ip := p.Index(i)
		if seen[pr.Resource] {
			errs = append(errs, field.Duplicate(ip, pr.Resource))
		}
		seen[pr.Resource] = true
		if len(pr.Resource) < 1 || len(pr.Resource) > 253 {
			errs = append(errs, field.Invalid(ip.Child("resource"), pr.Resource, "resource must be a resource name of 1 to 253 characters, e.g. cpu"))
		}
		if pr.Amount.Sign() < 0 {
			errs = append(errs, field.Invalid(ip.Child("amount"), pr.Amount.String(), "amount must not be negative"))
		}
		if !currencyCode.MatchString(pr.Currency) {
			errs = append(errs, field.Invalid(ip.Child("currency"), pr.Currency, "must be an ISO 4217 code such as EUR"))
		}
		if pr.Unit.Sign() <= 0 {
			errs = append(errs, field.Invalid(ip.Child("unit"), pr.Unit.String(), "unit must be greater than zero, e.g. 1 or 1Gi"))
		}
		errs = append(errs, enum(ip.Child("period"), string(pr.Period), true, "Hour", "Day", "Month")...)
	}
	for _, pr := range ps {
		if pr.Currency != ps[0].Currency {
			errs = append(errs, field.Invalid(p, pr.Currency, "all prices must be in one currency"))
			break
		}
	}
	return errs
}

// shapeResources mirrors NodeShape's rules; every failed rule names the
// resources field, as the CEL rules do.
func shapeResources(p *field.Path, rl corev1.ResourceList) field.ErrorList {
	var errs field.ErrorList
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		if v, ok := rl[name]; !ok || v.Sign() <= 0 {
			errs = append(errs, field.Invalid(p, quantityOf(rl, name), fmt.Sprintf("resources.%s must be set and greater than zero", name)))
		}
	}
	errs = append(errs, sizeAndSign(p, rl)...)
	return errs
}

func componentRequests(p *field.Path, rl corev1.ResourceList) field.ErrorList {
	var errs field.ErrorList
	cpu, mem := rl[corev1.ResourceCPU], rl[corev1.ResourceMemory]
	if cpu.Sign() <= 0 && mem.Sign() <= 0 {
		errs = append(errs, field.Invalid(p, "", "requests must ask for cpu or memory greater than zero"))
	}
	errs = append(errs, sizeAndSign(p, rl)...)
	return errs
}

func sizeAndSign(p *field.Path, rl corev1.ResourceList) field.ErrorList {
	var errs field.ErrorList
	if len(rl) > 16 {
		errs = append(errs, field.TooMany(p, len(rl), 16))
	}
	for _, v := range rl {
		if v.Sign() < 0 {
			errs = append(errs, field.Invalid(p, v.String(), "resources must not be negative"))
			break
		}
	}
	return errs
}

func quantityOf(rl corev1.ResourceList, name corev1.ResourceName) string {
	if v, ok := rl[name]; ok {
		return v.String()
	}
	return ""
}

func source(p *field.Path, s sharingv1alpha1.SourceReference) field.ErrorList {
	errs := enum(p.Child("kind"), string(s.Kind), false, "Advertisement", "Offer")
	return append(errs, stringLen(p.Child("name"), s.Name, 1, 253)...)
}

func secretRef(p *field.Path, r sharingv1alpha1.SecretReference) field.ErrorList {
	errs := subdomain(p.Child("name"), r.Name)
	if r.Key != "" && (len(r.Key) > 253 || !secretKey.MatchString(r.Key)) {
		errs = append(errs, field.Invalid(p.Child("key"), r.Key, "must be a Secret data key: letters, digits, '-', '_' or '.'"))
	}
	return errs
}

func clusterID(p *field.Path, id sharingv1alpha1.ClusterID) field.ErrorList {
	return label(p, string(id), true)
}

func label(p *field.Path, v string, required bool) field.ErrorList {
	switch {
	case v == "" && required:
		return field.ErrorList{field.Required(p, "a DNS label: lower-case letters, digits and '-', at most 63 characters")}
	case v == "":
		return nil
	case len(v) > 63:
		return field.ErrorList{field.TooLong(p, "", 63)}
	case !dnsLabel.MatchString(v):
		return field.ErrorList{field.Invalid(p, v, "must be a DNS label: lower-case letters, digits and '-', starting and ending with a letter or digit")}
	}
	return nil
}

func subdomain(p *field.Path, v string) field.ErrorList {
	switch {
	case v == "":
		return field.ErrorList{field.Required(p, "a DNS subdomain: lower-case letters, digits, '-' and '.'")}
	case len(v) > 253:
		return field.ErrorList{field.TooLong(p, "", 253)}
	case !dnsSubdomain.MatchString(v):
		return field.ErrorList{field.Invalid(p, v, "must be a DNS subdomain: lower-case letters, digits, '-' and '.'")}
	}
	return nil
}

func stringLen(p *field.Path, v string, minLen, maxLen int) field.ErrorList {
	switch {
	case len(v) < minLen && v == "":
		return field.ErrorList{field.Required(p, fmt.Sprintf("at least %d characters", minLen))}
	case len(v) < minLen:
		return field.ErrorList{field.Invalid(p, v, fmt.Sprintf("must be at least %d characters", minLen))}
	case len(v) > maxLen:
		return field.ErrorList{field.TooLong(p, "", maxLen)}
	}
	return nil
}

func enum(p *field.Path, v string, optional bool, valid ...string) field.ErrorList {
	if v == "" && optional {
		return nil
	}
	for _, ok := range valid {
		if v == ok {
			return nil
		}
	}
	return field.ErrorList{field.NotSupported(p, v, valid)}
}

// set checks a list of unique strings, each at most itemMax long and
// matching syntax when it is not nil.
func set(p *field.Path, vs []string, maxItems, itemMax int, syntax *regexp.Regexp) field.ErrorList {
	var errs field.ErrorList
	if len(vs) > maxItems {
		errs = append(errs, field.TooMany(p, len(vs), maxItems))
	}
	seen := map[string]bool{}
	for i, v := range vs {
		if seen[v] {
			errs = append(errs, field.Duplicate(p.Index(i), v))
		}
		seen[v] = true
		switch {
		case len(v) > itemMax:
			errs = append(errs, field.TooLong(p.Index(i), "", itemMax))
		case syntax != nil && !syntax.MatchString(v):
			errs = append(errs, field.Invalid(p.Index(i), v, "must match "+syntax.String()))
		}
	}
	return errs
}
