package sharing

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
)

// ShapeOptions say how spare capacity is rounded into shapes. Rounding is
// always down, so a shape never exceeds what its nodes can spare; coarser
// steps group more nodes into one shape.
type ShapeOptions struct {
	// CPUStep, MemoryStep and PodsStep are the steps CPU, memory and pod
	// slots are rounded down to.
	CPUStep, MemoryStep resource.Quantity
	PodsStep            int64
	// MinCPU and MinMemory: a node that can spare less is not advertised.
	MinCPU, MinMemory resource.Quantity
}

// DefaultShapeOptions round CPU to 250m, memory to 256Mi and pod slots to
// 10, and advertise no node with less than 250m CPU or 256Mi memory.
func DefaultShapeOptions() ShapeOptions {
	return ShapeOptions{
		CPUStep: resource.MustParse("250m"), MemoryStep: resource.MustParse("256Mi"), PodsStep: 10,
		MinCPU: resource.MustParse("250m"), MinMemory: resource.MustParse("256Mi"),
	}
}

// round rounds rl down to the steps; other resources are rounded down to
// whole units. It returns false when the result is below the minimums.
func (o ShapeOptions) round(rl corev1.ResourceList) (corev1.ResourceList, bool) {
	out := corev1.ResourceList{}
	for k, v := range rl {
		switch k {
		case corev1.ResourceCPU:
			out[k] = floorTo(v, o.CPUStep, true)
		case corev1.ResourceMemory:
			out[k] = floorTo(v, o.MemoryStep, false)
		case corev1.ResourcePods:
			n := v.Value()
			if o.PodsStep > 1 && n >= o.PodsStep {
				n -= n % o.PodsStep
			}
			out[k] = *resource.NewQuantity(max(n, 0), resource.DecimalSI)
		default:
			out[k] = *resource.NewQuantity(max(v.Value(), 0), v.Format)
		}
	}
	for k, v := range out {
		if v.Sign() <= 0 && k != corev1.ResourceCPU && k != corev1.ResourceMemory {
			delete(out, k)
		}
	}
	cpu, mem := out[corev1.ResourceCPU], out[corev1.ResourceMemory]
	if cpu.Sign() <= 0 || mem.Sign() <= 0 || cpu.Cmp(o.MinCPU) < 0 || mem.Cmp(o.MinMemory) < 0 {
		return nil, false
	}
	if pods, ok := rl[corev1.ResourcePods]; ok && pods.Value() < 1 {
		return nil, false
	}
	return out, true
}

// floorTo rounds v down to a multiple of step (in milli-units for CPU).
func floorTo(v, step resource.Quantity, milli bool) resource.Quantity {
	if milli {
		m, s := v.MilliValue(), step.MilliValue()
		if s > 0 {
			m -= m % s
		}
		return *resource.NewMilliQuantity(max(m, 0), resource.DecimalSI)
	}
	n, s := v.Value(), step.Value()
	if s > 0 {
		n -= n % s
	}
	return *resource.NewQuantity(max(n, 0), resource.BinarySI)
}

// ShapeName names a shape after its resources and labels, for example
// "4cpu-16gi-110p-amd64"; equal shapes have equal names. A name that
// would be longer than a DNS label ends in a hash instead.
func ShapeName(rl corev1.ResourceList, labels map[string]string) string {
	cpu, mem := rl[corev1.ResourceCPU], rl[corev1.ResourceMemory]
	parts := []string{compact(cpu) + "cpu", compact(mem)}
	if p, ok := rl[corev1.ResourcePods]; ok {
		parts = append(parts, fmt.Sprintf("%dp", p.Value()))
	}
	var extra []string
	for k, v := range rl {
		if k != corev1.ResourceCPU && k != corev1.ResourceMemory && k != corev1.ResourcePods {
			extra = append(extra, string(k)+"="+v.String())
		}
	}
	for _, k := range ShapeLabels {
		if v := labels[k]; v != "" {
			parts = append(parts, v)
		}
	}
	name := sanitize(strings.Join(parts, "-"))
	if len(extra) > 0 {
		sort.Strings(extra)
		name += "-x" + hash(strings.Join(extra, ","))[:8]
	}
	if len(name) > 63 {
		name = strings.TrimRight(name[:50], "-") + "-" + hash(name)[:12]
	}
	return name
}

func compact(q resource.Quantity) string { return strings.ToLower(q.String()) }

func sanitize(s string) string {
	b := []byte(strings.ToLower(s))
	for i, c := range b {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
			b[i] = '-'
		}
	}
	return strings.Trim(string(b), "-")
}

func hash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// unit is one node's slice offered as one unit of a shape.
type unit struct {
	node      string
	shape     string
	resources corev1.ResourceList
	labels    map[string]string
}

// group turns units into advertised shapes, larger shapes (more CPU, then
// more memory) first, ties by name.
func group(units []unit) []sharingv1alpha1.NodeShape {
	byName := map[string]*sharingv1alpha1.NodeShape{}
	for _, u := range units {
		s, ok := byName[u.shape]
		if !ok {
			s = &sharingv1alpha1.NodeShape{Name: u.shape, Resources: u.resources.DeepCopy(), Labels: u.labels}
			byName[u.shape] = s
		}
		s.Count++
	}
	out := make([]sharingv1alpha1.NodeShape, 0, len(byName))
	for _, s := range byName {
		out = append(out, *s)
	}
	sortShapes(out)
	return out
}

func sortShapes(shapes []sharingv1alpha1.NodeShape) {
	sort.Slice(shapes, func(i, j int) bool {
		a, b := shapes[i].Resources, shapes[j].Resources
		if c := a[corev1.ResourceCPU]; c.Cmp(b[corev1.ResourceCPU]) != 0 {
			return c.Cmp(b[corev1.ResourceCPU]) > 0
		}
		if m := a[corev1.ResourceMemory]; m.Cmp(b[corev1.ResourceMemory]) != 0 {
			return m.Cmp(b[corev1.ResourceMemory]) > 0
		}
		return shapes[i].Name < shapes[j].Name
	})
}
