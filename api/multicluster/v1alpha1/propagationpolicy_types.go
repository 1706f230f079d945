package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// ResourceSelector selects resource templates of one kind: all of them,
// one by name, or those whose labels match.
//
// +kubebuilder:validation:XValidation:rule="!(has(self.name) && has(self.labelSelector))",message="give name or labelSelector, not both",fieldPath=".labelSelector"
type ResourceSelector struct {
	// apiVersion of the selected objects, for example apps/v1 or v1.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	APIVersion string `json:"apiVersion"`

	// kind of the selected objects, for example Deployment.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Kind string `json:"kind"`

	// namespace of the selected objects, in a ClusterPropagationPolicy
	// only; empty selects in every namespace. A PropagationPolicy selects
	// in its own namespace.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Namespace string `json:"namespace,omitempty"`

	// name selects the one object of that name.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name,omitempty"`

	// labelSelector selects the objects whose labels match.
	// +optional
	LabelSelector *metav1.LabelSelector `json:"labelSelector,omitempty"`
}

// DependencyMode says whether what a selected pod template names goes with
// it.
// +kubebuilder:validation:Enum=Follow;None
type DependencyMode string

const (
	// DependenciesFollow copies the ConfigMaps, Secrets, ServiceAccount and
	// PersistentVolumeClaims a selected pod template names to the clusters
	// that run it.
	DependenciesFollow DependencyMode = "Follow"
	// DependenciesNone copies nothing the policy does not select itself.
	DependenciesNone DependencyMode = "None"
)

// PropagationPolicySpec selects resource templates and says where they go.
type PropagationPolicySpec struct {
	// resourceSelectors say which objects the policy places; an object
	// any of them selects is placed.
	// +required
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	ResourceSelectors []ResourceSelector `json:"resourceSelectors"`

	// placement is where the selected objects go, as for a
	// MultiClusterDeployment: replicated kinds have their replicas divided
	// over the clusters, other kinds are copied to each chosen cluster.
	// +required
	Placement Placement `json:"placement"`

	// priority decides between two policies of the same kind that select
	// one object: the higher wins. A PropagationPolicy always wins over a
	// ClusterPropagationPolicy; at equal priority the more specific
	// selector wins (name over labelSelector over kind alone), then the
	// first by name (Karmada's order, so that its policies keep their
	// meaning).
	// +optional
	// +kubebuilder:validation:Minimum=-1000
	// +kubebuilder:validation:Maximum=1000
	Priority *int32 `json:"priority,omitempty"`

	// dependencies says whether the ConfigMaps, Secrets, ServiceAccount and
	// PersistentVolumeClaims a selected pod template names go with it
	// (Follow, the default) or not (None).
	// +optional
	// +kubebuilder:default=Follow
	Dependencies DependencyMode `json:"dependencies,omitempty"`

	// overrides change the member objects per cluster when they are
	// written, rule after rule, each on the clusters it targets.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=64
	Overrides []OverrideRule `json:"overrides,omitempty"`
}

// OverrideRule is one change of the member objects in the clusters it
// targets. Its parts apply in order: image, env, args, labels,
// annotations, then the JSON patch.
type OverrideRule struct {
	// name of the rule, shown in the ResourcePlacement's status where it
	// applied.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Name string `json:"name"`

	// targetClusters are the clusters the rule applies to; every cluster
	// when unset.
	// +optional
	TargetClusters *ClusterTarget `json:"targetClusters,omitempty"`

	// containers limits image, env and args to the containers (init
	// containers included) of these names; every container when empty.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MaxLength=63
	Containers []string `json:"containers,omitempty"`

	// image rewrites the containers' images: each part given replaces the
	// image's.
	// +optional
	Image *ImageOverride `json:"image,omitempty"`

	// env sets these variables in the containers, replacing those of the
	// same name.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=64
	Env []corev1.EnvVar `json:"env,omitempty"`

	// args replace the containers' args.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=4096
	Args []string `json:"args,omitempty"`

	// labels are added to the member object's, replacing those of the
	// same key.
	// +optional
	Labels map[string]string `json:"labels,omitempty"`

	// annotations are added to the member object's, replacing those of the
	// same key.
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`

	// jsonPatch is applied last to the member object (RFC 6902), for
	// anything the other parts do not change.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	JSONPatch []JSONPatchOperation `json:"jsonPatch,omitempty"`
}

// ClusterTarget selects clusters by name, labels and region; a cluster
// must match every part given.
type ClusterTarget struct {
	// names of the clusters.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=100
	Names []ClusterName `json:"names,omitempty"`

	// labelSelector matches the Clusters' labels.
	// +optional
	LabelSelector *metav1.LabelSelector `json:"labelSelector,omitempty"`

	// regions are the Clusters' spec.region values.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:items:MaxLength=63
	Regions []string `json:"regions,omitempty"`
}

// ImageOverride replaces parts of an image reference
// ([registry/]repository[:tag][@digest]).
type ImageOverride struct {
	// registry replaces the image's registry host (docker.io when it has
	// none), for example registry.eu.example.com.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Registry string `json:"registry,omitempty"`

	// repository replaces the image's repository path.
	// +optional
	// +kubebuilder:validation:MaxLength=255
	Repository string `json:"repository,omitempty"`

	// tag replaces the image's tag and drops its digest.
	// +optional
	// +kubebuilder:validation:MaxLength=128
	Tag string `json:"tag,omitempty"`
}

// JSONPatchOp is an RFC 6902 operation.
// +kubebuilder:validation:Enum=add;remove;replace;move;copy;test
type JSONPatchOp string

// JSONPatchOperation is one RFC 6902 operation.
type JSONPatchOperation struct {
	// op is the operation.
	// +required
	Op JSONPatchOp `json:"op"`

	// path is the JSON pointer the operation acts on, for example
	// /spec/template/spec/nodeSelector.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	Path string `json:"path"`

	// from is the source pointer of move and copy.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	From string `json:"from,omitempty"`

	// value is the JSON value of add, replace and test.
	// +optional
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:pruning:PreserveUnknownFields
	Value *runtime.RawExtension `json:"value,omitempty"`
}

// SelectedResource is one object a policy selects.
type SelectedResource struct {
	// apiVersion of the object.
	// +required
	// +kubebuilder:validation:MaxLength=253
	APIVersion string `json:"apiVersion"`

	// kind of the object.
	// +required
	// +kubebuilder:validation:MaxLength=63
	Kind string `json:"kind"`

	// namespace of the object.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Namespace string `json:"namespace,omitempty"`

	// name of the object.
	// +required
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// claimedBy names the policy that places the object instead of this
	// one (kind/[namespace/]name), when another wins it.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	ClaimedBy string `json:"claimedBy,omitempty"`
}

// PropagationPolicyStatus says what the policy selects.
type PropagationPolicyStatus struct {
	// conditions of the object: Ready (every selector valid and every
	// selected object placed by this policy or knowingly by another).
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// observedGeneration is the generation of the spec last acted on.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// resources are the objects the policy selects, sorted.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=1000
	Resources []SelectedResource `json:"resources,omitempty"`
}

// PropagationPolicy places unchanged resource templates of its namespace
// (Deployments, Services, ConfigMaps, instances of any CRD) across member
// clusters by policy.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=pp,categories=meridian
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Priority",type=integer,JSONPath=`.spec.priority`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="self.spec.resourceSelectors.all(s, !has(s.__namespace__) || size(s.__namespace__) == 0)",message="a PropagationPolicy selects in its own namespace: leave resourceSelectors[].namespace out (a ClusterPropagationPolicy selects in others)",fieldPath=".spec.resourceSelectors"
type PropagationPolicy struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec selects the objects and says where they go.
	// +required
	Spec PropagationPolicySpec `json:"spec"`

	// status says what the policy selects.
	// +optional
	Status PropagationPolicyStatus `json:"status,omitempty"`
}

// PropagationPolicyList is a list of PropagationPolicies.
//
// +kubebuilder:object:root=true
type PropagationPolicyList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []PropagationPolicy `json:"items"`
}

// ClusterPropagationPolicy is a PropagationPolicy that selects in every
// namespace (or the one each selector names).
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=cpp,categories=meridian
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Priority",type=integer,JSONPath=`.spec.priority`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type ClusterPropagationPolicy struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec selects the objects and says where they go.
	// +required
	Spec PropagationPolicySpec `json:"spec"`

	// status says what the policy selects.
	// +optional
	Status PropagationPolicyStatus `json:"status,omitempty"`
}

// ClusterPropagationPolicyList is a list of ClusterPropagationPolicies.
//
// +kubebuilder:object:root=true
type ClusterPropagationPolicyList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ClusterPropagationPolicy `json:"items"`
}

// PolicyKind names a kind of propagation policy.
// +kubebuilder:validation:Enum=PropagationPolicy;ClusterPropagationPolicy
type PolicyKind string

// The propagation policy kinds.
const (
	KindPropagationPolicy        PolicyKind = "PropagationPolicy"
	KindClusterPropagationPolicy PolicyKind = "ClusterPropagationPolicy"
)

// Propagation policy condition reasons.
const (
	// ReasonSelected means every selector is valid and every object it
	// selects has its ResourcePlacement.
	ReasonSelected = "Selected"
	// ReasonUnknownKind means a selector names a kind the management
	// cluster does not serve; the message names the selector.
	ReasonUnknownKind = "UnknownKind"
	// ReasonNotPlaceable means a selector names a kind Meridian does not
	// place (cluster-scoped kinds, and the kinds that only make sense in
	// the cluster that made them); the message names the selector.
	ReasonNotPlaceable = "NotPlaceable"
	// ReasonClaimedByOther means another policy places some of the
	// selected objects; status.resources says which.
	ReasonClaimedByOther = "ClaimedByOther"
)

// ResourceReference names a resource template in the ResourcePlacement's
// namespace.
type ResourceReference struct {
	// apiVersion of the object.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	APIVersion string `json:"apiVersion"`

	// kind of the object.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Kind string `json:"kind"`

	// name of the object.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
}

// PolicyReference names the policy a ResourcePlacement follows.
type PolicyReference struct {
	// kind of the policy.
	// +required
	Kind PolicyKind `json:"kind"`

	// namespace of a PropagationPolicy; empty for a
	// ClusterPropagationPolicy.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Namespace string `json:"namespace,omitempty"`

	// name of the policy.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
}

// ResourcePlacementSpec is the object placed and the policy that places it;
// the policy controller writes it.
type ResourcePlacementSpec struct {
	// resource is the placed object.
	// +required
	Resource ResourceReference `json:"resource"`

	// policy is the policy that won the object.
	// +required
	Policy PolicyReference `json:"policy"`
}

// ResourcePlacementStatus is the decision for the object and what was
// observed of it.
type ResourcePlacementStatus struct {
	// conditions of the object: Ready (the summary), Placed, Propagated.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// observedGeneration is the generation of the object's template last
	// placed.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// summary lists the clusters and their replicas (or, for a kind copied
	// whole, the clusters), for example "nantes=3,rennes=2".
	// +optional
	// +kubebuilder:validation:MaxLength=65536
	Summary string `json:"summary,omitempty"`

	// clusters holds the decision for every cluster considered.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=1000
	Clusters []ClusterDecision `json:"clusters,omitempty"`

	// overrides lists, per cluster, the policy's override rules that
	// changed the member object written there.
	// +optional
	// +listType=map
	// +listMapKey=cluster
	// +kubebuilder:validation:MaxItems=1000
	Overrides []AppliedOverrides `json:"overrides,omitempty"`
}

// AppliedOverrides are the override rules applied to one cluster's member
// object.
type AppliedOverrides struct {
	// cluster the member object is in.
	// +required
	Cluster ClusterName `json:"cluster"`

	// rules applied, in order.
	// +required
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=63
	Rules []string `json:"rules"`
}

// ReasonOverrideFailed means an override rule does not apply to a member
// object; the message names the rule's field. The member keeps the object
// it has.
const ReasonOverrideFailed = "OverrideFailed"

// ResourcePlacement is where one resource template a propagation policy
// selects goes, and why: the policy controller creates it beside the
// object, owned by it, and the placement pass writes its status.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=rp,categories=meridian
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Kind",type=string,JSONPath=`.spec.resource.kind`
// +kubebuilder:printcolumn:name="Resource",type=string,JSONPath=`.spec.resource.name`
// +kubebuilder:printcolumn:name="Policy",type=string,JSONPath=`.spec.policy.name`
// +kubebuilder:printcolumn:name="Clusters",type=string,JSONPath=`.status.summary`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type ResourcePlacement struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the object placed and its policy.
	// +required
	Spec ResourcePlacementSpec `json:"spec"`

	// status is the decision and what was observed of it.
	// +optional
	Status ResourcePlacementStatus `json:"status,omitempty"`
}

// ResourcePlacementList is a list of ResourcePlacements.
//
// +kubebuilder:object:root=true
type ResourcePlacementList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ResourcePlacement `json:"items"`
}
