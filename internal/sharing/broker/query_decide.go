package broker

import (
	"fmt"
	"regexp"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/money"
	"github.com/meridian-dev/meridian/internal/sharing"
)

// defaultLimit is how many matches a query returns when it says nothing.
const defaultLimit = 20

var (
	dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	currency = regexp.MustCompile(`^[A-Z]{3}$`)
)

// validateQuery checks a query as the CRD does, and the signs the CRD
// cannot check, with errors that name the field.
func validateQuery(s *sharingv1alpha1.CapacityQuerySpec) field.ErrorList {
	p := field.NewPath("spec")
	var errs field.ErrorList
	cpu, hasCPU := s.Requests[corev1.ResourceCPU]
	mem, hasMem := s.Requests[corev1.ResourceMemory]
	if (!hasCPU || cpu.Sign() <= 0) && (!hasMem || mem.Sign() <= 0) {
		errs = append(errs, field.Required(p.Child("requests"), "must ask for cpu or memory greater than zero, e.g. cpu: 500m"))
	}
	for _, name := range sortedNames(s.Requests) {
		if q := s.Requests[name]; q.Sign() < 0 {
			errs = append(errs, field.Invalid(p.Child("requests").Key(string(name)), q.String(), "must not be negative"))
		}
	}
	if s.Region != "" && !dnsLabel.MatchString(s.Region) {
		errs = append(errs, field.Invalid(p.Child("region"), s.Region, "must be a DNS label such as eu-west"))
	}
	if m := s.MaxPrice; m != nil {
		mp := p.Child("maxPrice")
		if m.Amount.Sign() < 0 {
			errs = append(errs, field.Invalid(mp.Child("amount"), m.Amount.String(), "must not be negative"))
		}
		if !currency.MatchString(m.Currency) {
			errs = append(errs, field.Invalid(mp.Child("currency"), m.Currency, "must be an ISO 4217 code such as EUR"))
		}
		if _, ok := sharing.PeriodHours(m.Period); !ok {
			errs = append(errs, field.NotSupported(mp.Child("period"), m.Period, []string{"Hour", "Day", "Month"}))
		}
	}
	if s.Limit < 0 || s.Limit > 100 {
		errs = append(errs, field.Invalid(p.Child("limit"), s.Limit, "must be between 1 and 100"))
	}
	return errs
}

func sortedNames(rl map[corev1.ResourceName]resource.Quantity) []corev1.ResourceName {
	out := make([]corev1.ResourceName, 0, len(rl))
	for n := range rl {
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// hourly is m per hour, exactly (validateQuery refuses an unknown
// period, which counts as free here).
func hourly(m *sharingv1alpha1.Money) money.Money {
	r, ok := sharing.PerHour(*m)
	if !ok {
		return money.Zero(m.Currency)
	}
	return r
}

// listing is one advertisement of the broker's table, with the prices
// that hold for it and its publisher's registered region.
type listing struct {
	Advertisement *sharingv1alpha1.Advertisement
	Prices        []sharingv1alpha1.Price
	Region        string
}

// match lists the advertised shapes one node of which can run the whole
// pod the query describes, in its region and under its price, cheapest
// first (free sharing before any price), then by provider and shape. The
// pod's price is what the provider would offer it for (sharing.PriceOf).
func match(q *sharingv1alpha1.CapacityQuerySpec, table []listing) []sharingv1alpha1.CapacityMatch {
	type priced struct {
		m    sharingv1alpha1.CapacityMatch
		cost money.Money
	}
	var out []priced
	for _, l := range table {
		a := l.Advertisement
		region := a.Spec.Region
		if region == "" {
			region = l.Region
		}
		if q.Region != "" && q.Region != region {
			continue
		}
		var price *sharingv1alpha1.Money
		var cost money.Money
		if len(l.Prices) > 0 {
			price = sharing.PriceOf([]corev1.ResourceList{q.Requests}, l.Prices, "")
			cost = hourly(price)
		}
		if mp := q.MaxPrice; mp != nil && price != nil {
			if c, err := cost.Cmp(hourly(mp)); err != nil || c > 0 {
				continue
			}
		}
		for _, s := range a.Spec.Availability {
			n := podsPerNode(q.Requests, s.Resources)
			if n == 0 || !selects(q.NodeSelector, s.Labels) {
				continue
			}
			out = append(out, priced{cost: cost, m: sharingv1alpha1.CapacityMatch{
				Provider: a.Spec.ClusterID, Region: region, Advertisement: a.Namespace + "/" + a.Name, Shape: s.Name,
				Nodes: s.Count, PodsPerNode: n, Price: price, ExpiresAt: metav1.NewTime(sharing.ExpiresAt(&a.Spec)),
			}})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		ci, cj := out[i].cost, out[j].cost
		if ci.Currency() != cj.Currency() {
			return ci.Currency() < cj.Currency()
		}
		if c, _ := ci.Cmp(cj); c != 0 {
			return c < 0
		}
		if out[i].m.Provider != out[j].m.Provider {
			return out[i].m.Provider < out[j].m.Provider
		}
		return out[i].m.Shape < out[j].m.Shape
	})
	limit := int(q.Limit)
	if limit <= 0 {
		limit = defaultLimit
	}
	matches := []sharingv1alpha1.CapacityMatch{}
	for i := 0; i < len(out) && i < limit; i++ {
		matches = append(matches, out[i].m)
	}
	return matches
}

// podsPerNode is how many pods with requests one node that spares shape
// runs: the least, over the resources asked for, of what the shape has
// over what a pod asks, and the shape's pod slots when it names them; 0
// when not even one fits.
func podsPerNode(requests, shape corev1.ResourceList) int64 {
	if !sharing.Fits(requests, shape) {
		return 0
	}
	n := int64(-1)
	for name, q := range requests {
		if q.Sign() <= 0 {
			continue
		}
		have := shape[name]
		k := have.MilliValue() / q.MilliValue()
		if n < 0 || k < n {
			n = k
		}
	}
	if pods, ok := shape[corev1.ResourcePods]; ok && (n < 0 || pods.Value() < n) {
		n = pods.Value()
	}
	return max(n, 0)
}

// selects reports whether a node with labels satisfies selector.
func selects(selector, labels map[string]string) bool {
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// queryMessage says what a query's answer holds.
func queryMessage(matches []sharingv1alpha1.CapacityMatch, listings int) (string, string) {
	if len(matches) == 0 {
		return sharingv1alpha1.CapacityQueryReasonNoMatch, fmt.Sprintf("none of %d listed advertisements has a node shape that runs the pod", listings)
	}
	return sharingv1alpha1.CapacityQueryReasonMatched, fmt.Sprintf("%d shapes of %d listed advertisements run the pod; cheapest: %s", len(matches), listings, matches[0].Provider)
}
