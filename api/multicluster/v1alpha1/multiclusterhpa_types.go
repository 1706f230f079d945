package v1alpha1

import (
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MultiClusterHorizontalPodAutoscalerSpec is a HorizontalPodAutoscaler's
// spec whose target is a MultiClusterDeployment.
//
// +kubebuilder:validation:XValidation:rule="!has(self.minReplicas) || self.minReplicas <= self.maxReplicas",message="minReplicas must be less than or equal to maxReplicas",fieldPath=".minReplicas"
type MultiClusterHorizontalPodAutoscalerSpec struct {
	// scaleTargetRef points at the MultiClusterDeployment to scale, in the
	// same namespace.
	// +required
	// +kubebuilder:validation:XValidation:rule="self.kind == 'MultiClusterDeployment'",message="scaleTargetRef.kind must be MultiClusterDeployment",fieldPath=".kind"
	// +kubebuilder:validation:XValidation:rule="!has(self.apiVersion) || self.apiVersion.startsWith('multicluster.meridian.dev/')",message="scaleTargetRef.apiVersion must be in group multicluster.meridian.dev",fieldPath=".apiVersion"
	ScaleTargetRef autoscalingv2.CrossVersionObjectReference `json:"scaleTargetRef"`

	// minReplicas is the fewest replicas the autoscaler scales down to.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	MinReplicas *int32 `json:"minReplicas,omitempty"`

	// maxReplicas is the most replicas the autoscaler scales up to.
	// +required
	// +kubebuilder:validation:Minimum=1
	MaxReplicas int32 `json:"maxReplicas"`

	// metrics drive the desired replicas, in the HorizontalPodAutoscaler v2
	// shape; the largest desired count of all metrics wins. Resource metrics
	// (cpu, memory) are averaged over the target's pods in every cluster.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	Metrics []autoscalingv2.MetricSpec `json:"metrics,omitempty"`

	// scaleDownCooldown is how long a lower desired count must hold before
	// the autoscaler scales down (seed 001: 10 minutes).
	// +optional
	// +kubebuilder:default="10m"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=duration
	ScaleDownCooldown *metav1.Duration `json:"scaleDownCooldown,omitempty"`

	// tolerance is the relative distance from the target, in percent, under
	// which the autoscaler does not act (Kubernetes' HPA uses 10).
	// +optional
	// +kubebuilder:default=10
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	TolerancePercent *int32 `json:"tolerancePercent,omitempty"`
}

// MultiClusterHorizontalPodAutoscalerStatus is what the autoscaler observed
// and did last.
type MultiClusterHorizontalPodAutoscalerStatus struct {
	// conditions: AbleToScale, ScalingActive (False while metrics are
	// missing), ScalingLimited.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// observedGeneration is the generation of the spec last acted on.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// currentReplicas of the target when last observed.
	// +optional
	CurrentReplicas int32 `json:"currentReplicas,omitempty"`

	// desiredReplicas the metrics ask for.
	// +optional
	DesiredReplicas int32 `json:"desiredReplicas,omitempty"`

	// currentMetrics are the last observed values of spec.metrics.
	// +optional
	// +listType=atomic
	CurrentMetrics []autoscalingv2.MetricStatus `json:"currentMetrics,omitempty"`

	// lastScaleTime is when the autoscaler last changed the replicas.
	// +optional
	LastScaleTime *metav1.Time `json:"lastScaleTime,omitempty"`

	// lastScaleReason says why it did.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	LastScaleReason string `json:"lastScaleReason,omitempty"`
}

// MultiClusterHorizontalPodAutoscaler condition types.
const (
	// ConditionAbleToScale is False when the target cannot be read or scaled.
	ConditionAbleToScale = "AbleToScale"
	// ConditionScalingActive is False when metrics are missing; the replicas
	// are then left as they are.
	ConditionScalingActive = "ScalingActive"
	// ConditionScalingLimited is True when min or max replicas capped the
	// desired count.
	ConditionScalingLimited = "ScalingLimited"
)

// MultiClusterHorizontalPodAutoscaler scales a MultiClusterDeployment on
// metrics gathered from every cluster it runs in.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=mchpa,categories=meridian
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Target",type=string,JSONPath=`.spec.scaleTargetRef.name`
// +kubebuilder:printcolumn:name="Min",type=integer,JSONPath=`.spec.minReplicas`
// +kubebuilder:printcolumn:name="Max",type=integer,JSONPath=`.spec.maxReplicas`
// +kubebuilder:printcolumn:name="Current",type=integer,JSONPath=`.status.currentReplicas`
// +kubebuilder:printcolumn:name="Desired",type=integer,JSONPath=`.status.desiredReplicas`
// +kubebuilder:printcolumn:name="Last Scale",type=date,JSONPath=`.status.lastScaleTime`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type MultiClusterHorizontalPodAutoscaler struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the target, its bounds and the metrics.
	// +required
	Spec MultiClusterHorizontalPodAutoscalerSpec `json:"spec"`

	// status is what the autoscaler observed and did.
	// +optional
	Status MultiClusterHorizontalPodAutoscalerStatus `json:"status,omitempty"`
}

// MultiClusterHorizontalPodAutoscalerList is a list of
// MultiClusterHorizontalPodAutoscalers.
//
// +kubebuilder:object:root=true
type MultiClusterHorizontalPodAutoscalerList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []MultiClusterHorizontalPodAutoscaler `json:"items"`
}
