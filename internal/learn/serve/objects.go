package serve

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/meridian-dev/meridian/internal/learn"
	"github.com/meridian-dev/meridian/internal/learn/nodeenv"
	"github.com/meridian-dev/meridian/internal/placement"
)

// The annotations Meridian's learned scoring reads.
const (
	// AnnotationSoftLatency is a pod's soft limit on its latency to the
	// users, in milliseconds ("20"): beyond it the model avoids a node.
	AnnotationSoftLatency = "learn.meridian.dev/soft-latency-ms"
	// AnnotationHardLatency is a pod's hard limit, in milliseconds: a node
	// beyond it is filtered out, by the extender's filter and the plugin's
	// Filter alike.
	AnnotationHardLatency = "learn.meridian.dev/hard-latency-ms"
	// AnnotationIdleWatts and AnnotationPeakWatts are a node's power at 0 %
	// and 100 % CPU, in watts, when no Prometheus query gives them.
	AnnotationIdleWatts = "learn.meridian.dev/idle-watts"
	AnnotationPeakWatts = "learn.meridian.dev/peak-watts"
	// LabelInstanceType names a node's type; a name of nodeenv.NodeTypes
	// gives its power.
	LabelInstanceType = corev1.LabelInstanceTypeStable
)

// UnknownLatencyMs is the latency a node without a Prometheus sample is
// taken to have: far enough that the model avoids it and beyond any hard
// limit a pod is likely to set, so that a node is never chosen for a
// latency it was not measured to have.
const UnknownLatencyMs = 100.0

// ErrInvalidAnnotation means an annotation does not hold a non-negative
// number; the message names the object, the annotation and the value.
var ErrInvalidAnnotation = errors.New("invalid annotation")

// PodState returns what the scorer sees of pod: its CPU and memory
// requests as kube-scheduler computes them (init containers, overhead) and
// its latency limits.
func PodState(pod *corev1.Pod) (learn.PodState, error) {
	req := resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{})
	p := learn.PodState{MilliCPU: req.Cpu().MilliValue(), Memory: req.Memory().Value()}
	var err error
	if p.SoftLatencyMs, err = annotationNumber(pod.Annotations, AnnotationSoftLatency); err != nil {
		return p, fmt.Errorf("pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	if p.HardLatencyMs, err = annotationNumber(pod.Annotations, AnnotationHardLatency); err != nil {
		return p, fmt.Errorf("pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	return p, nil
}

// HardLatencyMs returns pod's hard latency limit in milliseconds, 0 when
// it has none; it is all a latency filter needs of a pod.
func HardLatencyMs(pod *corev1.Pod) (float64, error) {
	v, err := annotationNumber(pod.Annotations, AnnotationHardLatency)
	if err != nil {
		return 0, fmt.Errorf("pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	return v, nil
}

// annotationNumber reads a non-negative number from annotations[key]; 0
// when it is absent.
func annotationNumber(annotations map[string]string, key string) (float64, error) {
	s, ok := annotations[key]
	if !ok {
		return 0, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%w %s=%q: want a non-negative number of the unit its name says, such as \"30\"", ErrInvalidAnnotation, key, s)
	}
	return v, nil
}

// Requested is what the pods bound to a node request, in the placement
// framework's units and with its arithmetic.
type Requested = placement.Resources

// PodRequested returns what pod adds to its node's Requested, as
// kube-scheduler counts it (placement.PodRequests).
func PodRequested(pod *corev1.Pod) Requested { return placement.PodRequests(pod) }

// NodeState returns what the scorer sees of node: its allocatable
// resources, what its pods request, and its latency and power from
// measured (Metrics.Lookup) or, missing there, as the package documentation
// says.
func NodeState(node *corev1.Node, req Requested, measured Measured) learn.NodeState {
	alloc := node.Status.Allocatable
	n := learn.NodeState{
		AllocatableMilliCPU: alloc.Cpu().MilliValue(),
		AllocatableMemory:   alloc.Memory().Value(),
		AllocatablePods:     alloc.Pods().Value(),
		RequestedMilliCPU:   req.MilliCPU,
		RequestedMemory:     req.Memory,
		RequestedPods:       req.Pods,
	}
	n.IdleWatts, n.PeakWatts = NodePower(node)
	measured.Apply(&n)
	return n
}

// Apply sets n's latency from m (UnknownLatencyMs when m has none) and its
// power when m has it.
func (m Measured) Apply(n *learn.NodeState) {
	n.LatencyMs = UnknownLatencyMs
	if m.HasLatency {
		n.LatencyMs = m.LatencyMs
	}
	if m.HasPower {
		n.IdleWatts, n.PeakWatts = m.IdleWatts, m.PeakWatts
	}
}

// NodePower returns node's idle and peak watts from its annotations, else
// its instance type, else the middle node type scaled to its vCPUs.
func NodePower(node *corev1.Node) (idle, peak float64) {
	idle, errIdle := annotationNumber(node.Annotations, AnnotationIdleWatts)
	peak, errPeak := annotationNumber(node.Annotations, AnnotationPeakWatts)
	if errIdle == nil && errPeak == nil && peak > 0 {
		return idle, peak
	}
	if name := node.Labels[LabelInstanceType]; name != "" {
		for _, t := range nodeenv.NodeTypes {
			if t.Name == name {
				return t.IdleWatts, t.PeakWatts
			}
		}
	}
	ref := nodeenv.NodeTypes[1]
	vcpus := float64(node.Status.Allocatable.Cpu().MilliValue()) / 1000
	return ref.IdleWatts / float64(ref.VCPUs) * vcpus, ref.PeakWatts / float64(ref.VCPUs) * vcpus
}
