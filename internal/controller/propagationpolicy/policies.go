package propagationpolicy

import (
	"context"
	"fmt"
	"slices"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/selection"
)

// policy is one propagation policy as read: for selection, the object to
// write status to, and what is wrong with its selectors.
type policy struct {
	sel      selection.Policy
	obj      client.Object
	status   *multiclusterv1alpha1.PropagationPolicyStatus
	problems []problem
}

// problem is a selector that cannot be served.
type problem struct {
	reason, message string
}

// notPlaceable are kinds that only make sense in the cluster that made
// them, by group and kind; every kind of Meridian's own groups is placed by
// Meridian itself, not copied.
var notPlaceable = map[schema.GroupKind]string{
	{Kind: "Pod"}:                           "pods are made in members by their workloads; select the workload",
	{Kind: "Event"}:                         "events are made by each cluster",
	{Group: "events.k8s.io", Kind: "Event"}: "events are made by each cluster",
	{Kind: "Endpoints"}:                     "endpoints are made by each cluster from its pods",
	{Group: "discovery.k8s.io", Kind: "EndpointSlice"}: "endpoint slices are made by each cluster from its pods",
	{Group: "coordination.k8s.io", Kind: "Lease"}:      "leases belong to the cluster that holds them",
	{Group: "apps", Kind: "ControllerRevision"}:        "controller revisions are made by each cluster's controllers",
}

// notPlaceableClusterScoped are the cluster-scoped kinds that describe the
// cluster they are in, by group and kind.
var notPlaceableClusterScoped = map[schema.GroupKind]string{
	{Kind: "Node"}:             "nodes are the members' own machines",
	{Kind: "ComponentStatus"}:  "component statuses are each cluster's own",
	{Kind: "PersistentVolume"}: "persistent volumes are each cluster's storage, bound by its claims; place the claims",
	{Group: "certificates.k8s.io", Kind: "CertificateSigningRequest"}:           "certificate signing requests are approved by the cluster that signs them",
	{Group: "apiregistration.k8s.io", Kind: "APIService"}:                       "API services point at each cluster's own servers",
	{Group: "flowcontrol.apiserver.k8s.io", Kind: "FlowSchema"}:                 "flow schemas are each API server's own, maintained by it",
	{Group: "flowcontrol.apiserver.k8s.io", Kind: "PriorityLevelConfiguration"}: "priority levels are each API server's own, maintained by it",
}

// meridianGroups are placed by Meridian's own controllers.
var meridianGroups = []string{multiclusterv1alpha1.GroupVersion.Group, "sharing.meridian.dev", "compute.meridian.dev"}

// policies reads every propagation policy and parses its selectors.
func (r *Reconciler) policies(ctx context.Context) ([]*policy, error) {
	var pps multiclusterv1alpha1.PropagationPolicyList
	var cpps multiclusterv1alpha1.ClusterPropagationPolicyList
	if err := r.Client.List(ctx, &pps); err != nil {
		return nil, fmt.Errorf("failed to list PropagationPolicies: %w", err)
	}
	if err := r.Client.List(ctx, &cpps); err != nil {
		return nil, fmt.Errorf("failed to list ClusterPropagationPolicies: %w", err)
	}
	var out []*policy
	for i := range pps.Items {
		p := &pps.Items[i]
		if p.DeletionTimestamp.IsZero() {
			out = append(out, r.parse(p, &p.Spec, &p.Status, true))
		}
	}
	for i := range cpps.Items {
		p := &cpps.Items[i]
		if p.DeletionTimestamp.IsZero() {
			out = append(out, r.parse(p, &p.Spec, &p.Status, false))
		}
	}
	return out, nil
}

// Ref is how a ResourcePlacement and a policy's status name a policy.
func Ref(ref multiclusterv1alpha1.PolicyReference) string {
	if ref.Namespace == "" {
		return string(ref.Kind) + "/" + ref.Name
	}
	return string(ref.Kind) + "/" + ref.Namespace + "/" + ref.Name
}

func policyRef(obj client.Object, namespaced bool) multiclusterv1alpha1.PolicyReference {
	if namespaced {
		return multiclusterv1alpha1.PolicyReference{Kind: multiclusterv1alpha1.KindPropagationPolicy, Namespace: obj.GetNamespace(), Name: obj.GetName()}
	}
	return multiclusterv1alpha1.PolicyReference{Kind: multiclusterv1alpha1.KindClusterPropagationPolicy, Name: obj.GetName()}
}

// parse turns a policy's selectors into selection's, noting each that
// cannot be served with the field it is in.
func (r *Reconciler) parse(obj client.Object, spec *multiclusterv1alpha1.PropagationPolicySpec, status *multiclusterv1alpha1.PropagationPolicyStatus, namespaced bool) *policy {
	p := &policy{obj: obj, status: status, sel: selection.Policy{
		Ref: Ref(policyRef(obj, namespaced)), Namespaced: namespaced, Name: obj.GetName(), Priority: ptr.Deref(spec.Priority, 0),
	}}
	for i, rs := range spec.ResourceSelectors {
		field := fmt.Sprintf("spec.resourceSelectors[%d]", i)
		gv, err := schema.ParseGroupVersion(rs.APIVersion)
		if err != nil {
			p.problems = append(p.problems, problem{multiclusterv1alpha1.ReasonInvalidSpec,
				fmt.Sprintf("%s.apiVersion: %q is not a group/version such as apps/v1 or v1", field, rs.APIVersion)})
			continue
		}
		gvk := gv.WithKind(rs.Kind)
		mapping, err := r.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			reason := multiclusterv1alpha1.ReasonUnknownKind
			msg := fmt.Sprintf("%s: the management cluster serves no kind %s in %s (install its CRD there, or correct apiVersion and kind)", field, rs.Kind, rs.APIVersion)
			if !apimeta.IsNoMatchError(err) {
				msg = fmt.Sprintf("%s: %v", field, err)
			}
			p.problems = append(p.problems, problem{reason, msg})
			continue
		}
		if why, ok := notPlaceable[gvk.GroupKind()]; ok {
			p.problems = append(p.problems, problem{multiclusterv1alpha1.ReasonNotPlaceable, fmt.Sprintf("%s: %s is not placed: %s", field, rs.Kind, why)})
			continue
		}
		if slices.Contains(meridianGroups, gvk.Group) {
			p.problems = append(p.problems, problem{multiclusterv1alpha1.ReasonNotPlaceable,
				fmt.Sprintf("%s: %s is Meridian's own kind, placed by Meridian's controllers, not copied to members", field, rs.Kind)})
			continue
		}
		clusterScoped := mapping.Scope.Name() != apimeta.RESTScopeNameNamespace
		switch {
		case clusterScoped && namespaced:
			p.problems = append(p.problems, problem{multiclusterv1alpha1.ReasonNotPlaceable,
				fmt.Sprintf("%s: %s is cluster-scoped; select it with a ClusterPropagationPolicy", field, rs.Kind)})
			continue
		case clusterScoped && rs.Namespace != "":
			p.problems = append(p.problems, problem{multiclusterv1alpha1.ReasonInvalidSpec,
				fmt.Sprintf("%s.namespace: %s is cluster-scoped; leave namespace empty", field, rs.Kind)})
			continue
		}
		if why, ok := notPlaceableClusterScoped[gvk.GroupKind()]; ok {
			p.problems = append(p.problems, problem{multiclusterv1alpha1.ReasonNotPlaceable, fmt.Sprintf("%s: %s is not placed: %s", field, rs.Kind, why)})
			continue
		}
		s := selection.Selector{GVK: gvk, Name: rs.Name, Namespace: rs.Namespace}
		if namespaced {
			s.Namespace = obj.GetNamespace()
		}
		if rs.LabelSelector != nil {
			ls, err := metav1.LabelSelectorAsSelector(rs.LabelSelector)
			if err != nil {
				p.problems = append(p.problems, problem{multiclusterv1alpha1.ReasonInvalidSpec, fmt.Sprintf("%s.labelSelector: %v", field, err)})
				continue
			}
			s.Labels = ls
		}
		p.sel.Selectors = append(p.sel.Selectors, s)
	}
	return p
}
