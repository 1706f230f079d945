package sharing

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/meridian-dev/meridian/internal/placement"
)

// add adds b into a.
func add(a, b corev1.ResourceList) {
	for k, v := range b {
		q := a[k]
		q.Add(v)
		a[k] = q
	}
}

// sub subtracts b from a; a resource only in b becomes negative.
func sub(a, b corev1.ResourceList) {
	for k, v := range b {
		q := a[k]
		q.Sub(v)
		a[k] = q
	}
}

func addPods(a corev1.ResourceList, n int64) {
	q := a[corev1.ResourcePods]
	q.Add(*resourceQuantity(n))
	a[corev1.ResourcePods] = q
}

func resourceQuantity(n int64) *resource.Quantity {
	return resource.NewQuantity(n, resource.DecimalSI)
}

// minList returns, for every resource of a, the smaller of a and b; a
// resource missing from b counts as zero.
func minList(a, b corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{}
	for k, v := range a {
		w := b[k]
		if w.Cmp(v) < 0 {
			out[k] = w.DeepCopy()
		} else {
			out[k] = v.DeepCopy()
		}
	}
	return out
}

// maxList returns, for every resource of a or b, the larger of the two.
func maxList(a, b corev1.ResourceList) corev1.ResourceList {
	out := a.DeepCopy()
	if out == nil {
		out = corev1.ResourceList{}
	}
	for k, v := range b {
		if w, ok := out[k]; !ok || v.Cmp(w) > 0 {
			out[k] = v.DeepCopy()
		}
	}
	return out
}

// Fits reports whether requests fit in capacity: every requested resource
// is at most the capacity of that resource (missing means zero), in
// kube-scheduler's units (placement.NewResources) and by the placement
// framework's one test of a fit (placement.Resources.Fits).
func Fits(requests, capacity corev1.ResourceList) bool {
	return placement.NewResources(requests).Fits(placement.NewResources(capacity))
}

// scale returns every quantity of rl times percent/100, rounded down to
// the milli-unit.
func scale(rl corev1.ResourceList, percent int32) corev1.ResourceList {
	out := corev1.ResourceList{}
	for k, v := range rl {
		if k == corev1.ResourceCPU {
			out[k] = *resource.NewMilliQuantity(v.MilliValue()*int64(percent)/100, resource.DecimalSI)
			continue
		}
		out[k] = *resource.NewQuantity(v.Value()*int64(percent)/100, v.Format)
	}
	return out
}
