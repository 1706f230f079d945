package virtualnode

import (
	"fmt"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/sharing"
)

// NodePlan is what should become of the virtual nodes of one
// Advertisement.
type NodePlan struct {
	// Nodes are the virtual nodes that should exist, with their labels,
	// taints, capacity and Ready condition (heartbeat times left zero).
	Nodes []corev1.Node
	// Drain names the existing nodes to cordon, drain and delete: their
	// advertisement expired, was refused or deleted, or no longer
	// advertises their slice.
	Drain []string
	// Ready, Reason and Message are the nodes' Ready condition.
	Ready           bool
	Reason, Message string
	// Dropped counts slices left out by SliceOptions.MaxNodes.
	Dropped int32
	// RecheckAt is when the plan changes by itself (the advertisement's
	// expiry); zero when it does not.
	RecheckAt time.Time
}

// PlanNodes decides the virtual nodes of one advertisement: one per slice
// sharing.Slice makes of its accepted shapes while it is accepted and not
// expired, none otherwise. adv is nil when the advertisement is gone;
// peer is the Peer whose namespace holds it (nil when there is none);
// existing are the nodes made from it before. The nodes are Ready while
// the peer is reachable.
func PlanNodes(adv *sharingv1alpha1.Advertisement, peer *sharingv1alpha1.Peer, existing []corev1.Node, now time.Time, opts Options) (NodePlan, error) {
	var plan NodePlan
	switch {
	case adv == nil || !adv.DeletionTimestamp.IsZero():
		plan.Reason, plan.Message = ReasonNotAccepted, "the advertisement was deleted"
	case adv.Status.Decision != sharingv1alpha1.DecisionAccepted:
		plan.Reason, plan.Message = ReasonNotAccepted, fmt.Sprintf("the advertisement's decision is %q", adv.Status.Decision)
	case sharing.Expired(&adv.Spec, now, opts.ClockSkew):
		plan.Reason, plan.Message = ReasonExpired, fmt.Sprintf("the advertisement expired at %s", sharing.ExpiresAt(&adv.Spec).UTC().Format(time.RFC3339))
	default:
		plan.RecheckAt = sharing.ExpiresAt(&adv.Spec)
		var accepted []string
		if len(adv.Status.AcceptedShapes) > 0 {
			accepted = adv.Status.AcceptedShapes
		}
		sliced, err := sharing.Slice(adv, accepted, opts.Slice)
		if err != nil {
			return NodePlan{}, err
		}
		plan.Dropped = sliced.Dropped
		plan.Ready, plan.Reason, plan.Message = peerReady(peer)
		for _, vn := range sliced.Nodes {
			plan.Nodes = append(plan.Nodes, nodeOf(vn, adv.Namespace, plan.Ready, plan.Reason, plan.Message, opts.Kubelet))
		}
	}
	want := map[string]bool{}
	for _, n := range plan.Nodes {
		want[n.Name] = true
	}
	for _, n := range existing {
		if !want[n.Name] {
			plan.Drain = append(plan.Drain, n.Name)
		}
	}
	sort.Strings(plan.Drain)
	return plan, nil
}

// peerReady is whether the provider is reachable, as its Peer says.
func peerReady(peer *sharingv1alpha1.Peer) (bool, string, string) {
	if peer == nil {
		return false, ReasonPeerNotFound, "no Peer's namespace holds the advertisement"
	}
	if peer.Spec.Disabled || peer.Status.Phase == sharingv1alpha1.PeerDisabled {
		return false, ReasonPeerUnreachable, fmt.Sprintf("peer %s is disabled", peer.Name)
	}
	if peer.Status.Phase == sharingv1alpha1.PeerUnreachable {
		return false, ReasonPeerUnreachable, fmt.Sprintf("peer %s is unreachable", peer.Name)
	}
	for _, c := range peer.Status.Conditions {
		if c.Type == sharingv1alpha1.PeerReady && c.Status == metav1.ConditionFalse {
			return false, ReasonPeerUnreachable, fmt.Sprintf("peer %s is not ready: %s", peer.Name, c.Message)
		}
	}
	return true, ReasonProviderReachable, fmt.Sprintf("peer %s answers and its advertisement holds", peer.Name)
}

// defaultPods is a virtual node's pod slots when its shape names none, as
// kubelet's default.
var defaultPods = resource.MustParse("110")

// nodeOf is the Node object of one slice, reached at kubelet.
func nodeOf(vn sharing.VirtualNode, advNamespace string, ready bool, reason, message string, kubelet KubeletEndpoint) corev1.Node {
	alloc := vn.Allocatable.DeepCopy()
	if _, ok := alloc[corev1.ResourcePods]; !ok {
		alloc[corev1.ResourcePods] = defaultPods.DeepCopy()
	}
	labels := make(map[string]string, len(vn.Labels)+3)
	for k, v := range vn.Labels {
		labels[k] = v
	}
	labels[corev1.LabelHostname] = vn.Name
	if _, ok := labels[corev1.LabelOSStable]; !ok {
		labels[corev1.LabelOSStable] = "linux"
	}
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	var addresses []corev1.NodeAddress
	var endpoints corev1.NodeDaemonEndpoints
	if kubelet.Address != "" {
		addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: kubelet.Address}}
		endpoints.KubeletEndpoint.Port = kubelet.Port
	}
	return corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:        vn.Name,
			Labels:      labels,
			Annotations: map[string]string{AnnotationAdvertisementNamespace: advNamespace},
		},
		Spec: corev1.NodeSpec{Taints: vn.Taints},
		Status: corev1.NodeStatus{
			Capacity:        alloc.DeepCopy(),
			Allocatable:     alloc,
			Phase:           corev1.NodeRunning,
			Conditions:      []corev1.NodeCondition{{Type: corev1.NodeReady, Status: status, Reason: reason, Message: message}},
			Addresses:       addresses,
			DaemonEndpoints: endpoints,
			NodeInfo: corev1.NodeSystemInfo{
				KubeletVersion:  "meridian-virtual-node",
				OperatingSystem: labels[corev1.LabelOSStable],
				Architecture:    labels[corev1.LabelArchStable],
			},
		},
	}
}
