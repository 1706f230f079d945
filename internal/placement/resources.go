package placement

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"
)

// NewResources converts a resource list (a node's allocatable, a pod's
// requests) into Resources: cpu in millicores, memory in bytes, pods as a
// count, and every other resource (extended resources, hugepages,
// ephemeral-storage) into Scalar by name, as kube-scheduler's NodeResourcesFit
// does. Zero quantities are left out of Scalar.
func NewResources(list corev1.ResourceList) Resources {
	var r Resources
	for name, q := range list {
		switch name {
		case corev1.ResourceCPU:
			r.MilliCPU = q.MilliValue()
		case corev1.ResourceMemory:
			r.Memory = q.Value()
		case corev1.ResourcePods:
			r.Pods = q.Value()
		default:
			if v := q.Value(); v != 0 {
				if r.Scalar == nil {
					r.Scalar = make(map[corev1.ResourceName]int64)
				}
				r.Scalar[name] = v
			}
		}
	}
	return r
}

// PodRequests returns the request of one pod exactly as kube-scheduler
// computes it for filtering: the library k8s.io/component-helpers/resource
// sums the containers, takes the maximum with each init container (counting
// restartable sidecars that started before it), honours pod-level resources
// (on by default since Kubernetes 1.34) and adds the pod overhead. Pods is
// always 1: one replica is one pod.
func PodRequests(pod *corev1.Pod) Resources {
	r := NewResources(resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{}))
	r.Pods = 1
	return r
}

// Add returns r + o, amount by amount, extended resources by name.
func (r Resources) Add(o Resources) Resources {
	r = r.Clone()
	r.addTimes(&o, 1, false)
	return r
}

// Sub returns r - o, amount by amount, extended resources by name; an
// amount may go below zero (an overcommitted node's free room).
func (r Resources) Sub(o Resources) Resources {
	r = r.Clone()
	r.addTimes(&o, -1, false)
	return r
}

// Remaining returns what is left of r once used is taken: r - used with
// every amount at least zero, as a node's free room is read from its
// allocatable and the requests of its pods.
func (r Resources) Remaining(used Resources) Resources {
	r = r.Clone()
	r.addTimes(&used, -1, true)
	return r
}

// Fits reports whether r fits in free: every amount r holds, pods and
// extended resources included, is at most what free holds of it, as
// kube-scheduler's NodeResourcesFit tests a pod against a node's room.
func (r Resources) Fits(free Resources) bool {
	if r.MilliCPU > free.MilliCPU || r.Memory > free.Memory || r.Pods > free.Pods {
		return false
	}
	for name, v := range r.Scalar {
		if v > free.Scalar[name] {
			return false
		}
	}
	return true
}

// addTimes adds k times o to r in place, floored at zero when floor is
// set; an extended resource that comes to zero is left out of Scalar. r
// must own its Scalar map. Every sum and difference of Resources is this
// one loop; the snapshot's hot paths call it directly to spare the copies.
func (r *Resources) addTimes(o *Resources, k int64, floor bool) {
	r.MilliCPU += k * o.MilliCPU
	r.Memory += k * o.Memory
	r.Pods += k * o.Pods
	if floor {
		r.MilliCPU, r.Memory, r.Pods = max(r.MilliCPU, 0), max(r.Memory, 0), max(r.Pods, 0)
	}
	for name, v := range o.Scalar {
		if r.Scalar == nil {
			r.Scalar = make(map[corev1.ResourceName]int64, len(o.Scalar))
		}
		sum := r.Scalar[name] + k*v
		if floor {
			sum = max(sum, 0)
		}
		if sum == 0 {
			delete(r.Scalar, name)
		} else {
			r.Scalar[name] = sum
		}
	}
	if floor {
		for name, v := range r.Scalar {
			if v < 0 {
				delete(r.Scalar, name)
			}
		}
	}
	if r.Scalar != nil && len(r.Scalar) == 0 {
		r.Scalar = nil
	}
}

// Clone returns a copy of r that shares no map with it.
func (r Resources) Clone() Resources {
	if r.Scalar != nil {
		r.Scalar = maps.Clone(r.Scalar)
	}
	return r
}

// String formats r for people, for example "1.5 CPU, 4Gi memory, 1 pod",
// leaving out zero amounts; "nothing" when all are zero.
func (r Resources) String() string {
	var parts []string
	if r.MilliCPU != 0 {
		parts = append(parts, FormatCPU(r.MilliCPU))
	}
	if r.Memory != 0 {
		parts = append(parts, FormatMemory(r.Memory))
	}
	if r.Pods != 0 {
		parts = append(parts, formatCount(r.Pods, "pod"))
	}
	for _, name := range slices.Sorted(maps.Keys(r.Scalar)) {
		if v := r.Scalar[name]; v != 0 {
			parts = append(parts, FormatScalar(name, v))
		}
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}

// FormatCPU formats millicores as cores, for example "1.5 CPU" or "0.25 CPU".
func FormatCPU(milli int64) string {
	return strconv.FormatFloat(float64(milli)/1000, 'f', -1, 64) + " CPU"
}

// FormatMemory formats bytes as a Kubernetes binary quantity, for example
// "4Gi memory" or "1536Mi memory".
func FormatMemory(bytes int64) string {
	return resource.NewQuantity(bytes, resource.BinarySI).String() + " memory"
}

// FormatScalar formats an amount of an extended resource, for example
// "1 nvidia.com/gpu"; ephemeral-storage and hugepages use binary quantities.
func FormatScalar(name corev1.ResourceName, v int64) string {
	if name == corev1.ResourceEphemeralStorage || strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix) {
		return resource.NewQuantity(v, resource.BinarySI).String() + " " + string(name)
	}
	return strconv.FormatInt(v, 10) + " " + string(name)
}

func formatCount(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.FormatInt(n, 10) + " " + noun + "s"
}
