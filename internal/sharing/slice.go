package sharing

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/money"
)

// VirtualNode is the specification of one virtual node a consumer makes
// from an accepted Advertisement: one unit of one shape.
type VirtualNode struct {
	// Name of the Node object.
	Name string
	// Provider, Advertisement and Shape say what it stands for.
	Provider      sharingv1alpha1.ClusterID
	Advertisement string
	Shape         string
	// Allocatable is the shape's resources: what one provider node spares
	// for this unit, so every set of pods that fits it fits that node.
	Allocatable corev1.ResourceList
	// Labels and Taints to put on the Node.
	Labels map[string]string
	Taints []corev1.Taint
}

// SliceOptions bound the virtual nodes made from one Advertisement.
type SliceOptions struct {
	// MaxNodes is the most virtual nodes made from one advertisement;
	// larger shapes are kept first. Zero means 100.
	MaxNodes int
	// Prefix starts every virtual node's name; empty means "vn".
	Prefix string
}

// SliceResult is the virtual nodes for an advertisement and what was left
// out.
type SliceResult struct {
	Nodes []VirtualNode
	// Dropped counts the units not made into nodes because of MaxNodes.
	Dropped int32
}

// Slice turns the accepted shapes of an Advertisement into virtual nodes,
// one per unit of each shape (a shape with count 3 gives three nodes),
// never one node for the whole provider. Each node's allocatable is its
// shape's resources, which the provider holds on one of its nodes, so a
// pod the consumer's scheduler binds to a virtual node, together with the
// pods already there, fits one provider node. accepted names the shapes
// the incoming policy accepted; nil accepts all.
func Slice(adv *sharingv1alpha1.Advertisement, accepted []string, opts SliceOptions) (SliceResult, error) {
	if errs := Validate(adv); len(errs) > 0 {
		return SliceResult{}, fmt.Errorf("failed to slice advertisement %s/%s: %w", adv.Namespace, adv.Name, errs.ToAggregate())
	}
	if opts.MaxNodes <= 0 {
		opts.MaxNodes = 100
	}
	if opts.Prefix == "" {
		opts.Prefix = "vn"
	}
	keep := map[string]bool{}
	for _, a := range accepted {
		keep[a] = true
	}
	shapes := make([]sharingv1alpha1.NodeShape, 0, len(adv.Spec.Availability))
	for _, s := range adv.Spec.Availability {
		if accepted == nil || keep[s.Name] {
			shapes = append(shapes, s)
		}
	}
	sortShapes(shapes)

	labels := map[string]string{
		sharingv1alpha1.LabelVirtualNode:   "true",
		sharingv1alpha1.LabelProvider:      string(adv.Spec.ClusterID),
		sharingv1alpha1.LabelAdvertisement: adv.Name,
		"type":                             "virtual-node",
	}
	if adv.Spec.Region != "" {
		labels[corev1.LabelTopologyRegion] = adv.Spec.Region
	}
	if adv.Spec.Zone != "" {
		labels[corev1.LabelTopologyZone] = adv.Spec.Zone
	}
	if len(adv.Spec.Prices) > 0 {
		labels[sharingv1alpha1.LabelCurrency] = adv.Spec.Prices[0].Currency
	}
	for _, p := range adv.Spec.Prices {
		if v, ok := hourlyUnitPrice(p); ok {
			labels[sharingv1alpha1.LabelPricePrefix+sanitize(p.Resource)] = v
		}
	}
	taint := corev1.Taint{Key: sharingv1alpha1.TaintVirtualNode, Value: string(adv.Spec.ClusterID), Effect: corev1.TaintEffectNoSchedule}

	var res SliceResult
	for _, s := range shapes {
		for i := range s.Count {
			if len(res.Nodes) >= opts.MaxNodes {
				res.Dropped += s.Count - i
				break
			}
			l := make(map[string]string, len(labels)+len(s.Labels)+1)
			for k, v := range s.Labels {
				l[k] = v
			}
			for k, v := range labels {
				l[k] = v
			}
			l[sharingv1alpha1.LabelShape] = s.Name
			res.Nodes = append(res.Nodes, VirtualNode{
				Name:          virtualNodeName(opts.Prefix, adv.Spec.ClusterID, s.Name, i),
				Provider:      adv.Spec.ClusterID,
				Advertisement: adv.Name,
				Shape:         s.Name,
				Allocatable:   corev1.ResourceList(s.Resources).DeepCopy(),
				Labels:        l,
				Taints:        []corev1.Taint{taint},
			})
		}
	}
	return res, nil
}

// virtualNodeName is stable for a provider, shape and index, so that a
// renewed advertisement keeps the same nodes.
func virtualNodeName(prefix string, provider sharingv1alpha1.ClusterID, shape string, i int32) string {
	name := fmt.Sprintf("%s-%s-%s-%d", prefix, provider, shape, i)
	if len(name) > 253 {
		name = name[:240] + "-" + hash(name)[:12]
	}
	return strings.ToLower(name)
}

// hourlyUnitPrice is a price per unit per hour as a label value, or false
// when it is not one (e.g. too long).
func hourlyUnitPrice(p sharingv1alpha1.Price) (string, bool) {
	m, ok := PerHour(sharingv1alpha1.Money{Amount: p.Amount, Currency: p.Currency, Period: p.Period})
	if !ok {
		return "", false
	}
	v := m.Rat().FloatString(money.Places)
	v = strings.TrimRight(strings.TrimRight(v, "0"), ".")
	if len(v) > 63 {
		return "", false
	}
	return v, true
}
