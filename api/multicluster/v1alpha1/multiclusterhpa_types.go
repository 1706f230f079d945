package v1alpha1

import (
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/api/resource"
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
	// shape. The autoscaler acts on CPU only: the first Resource metric
	// named cpu with a Utilization target sets the desired replicas from
	// the CPU usage of the target's pods in every cluster (metrics.k8s.io)
	// over their CPU requests. Other Resource metrics, memory included, are
	// not read; a metric of another type sets ScalingActive False
	// (InvalidMetricSpec) and the replicas are left as they are. Without a
	// cpu Utilization target only spec.optimizer scales.
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

	// tolerancePercent is the relative distance from the target, in percent, under
	// which the autoscaler does not act (Kubernetes' HPA uses 10).
	// +optional
	// +kubebuilder:default=10
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	TolerancePercent *int32 `json:"tolerancePercent,omitempty"`

	// optimizer scales, when set, by the price/performance optimizer's
	// advice (seed 004) once it is in production; before that the cpu
	// Utilization target of spec.metrics scales (or, without one, the
	// optimizer's bounded exploration). See docs/advisor.md.
	// +optional
	Optimizer *OptimizerSpec `json:"optimizer,omitempty"`
}

// OptimizerSpec is the optimizer mode of a MultiClusterHorizontalPodAutoscaler:
// the seed's m_opt_* PromQL queries, evaluated every interval against
// Prometheus, and its m_opt_init_* constants.
//
// +kubebuilder:validation:XValidation:rule="self.inputs.all(i, i.name != self.target.name)",message="target.name must differ from every inputs[].name",fieldPath=".target.name"
type OptimizerSpec struct {
	// prometheusURL is the base URL of the Prometheus HTTP API the queries
	// run against, such as http://prometheus.monitoring:9090; empty means
	// the controller's default, and the condition OptimizerSampled says
	// when it has none.
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:XValidation:rule="self == '' || self.matches('^https?://[^/?#]+(/[^?#]*)?$')",message="prometheusURL must be an http or https base URL without query, such as http://prometheus:9090"
	PrometheusURL string `json:"prometheusURL,omitempty"`

	// inputs are the system metrics (the seed's m_opt_input_NAME queries),
	// each a PromQL query that yields one number: a scalar or a vector of
	// one series (wrap it in sum() otherwise).
	// +required
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	Inputs []OptimizerQuery `json:"inputs"`

	// target is the target metric (m_opt_target_query_NAME) and the band
	// it must stay in (m_opt_target_minth_NAME, m_opt_target_maxth_NAME).
	// +required
	Target OptimizerTarget `json:"target"`

	// trainingSamplesRequired is the fewest samples before production
	// (m_opt_init_training_samples_required); production also needs the
	// held-out error below its limit.
	// +optional
	// +kubebuilder:default=60
	// +kubebuilder:validation:Minimum=10
	// +kubebuilder:validation:Maximum=1000
	TrainingSamplesRequired *int32 `json:"trainingSamplesRequired,omitempty"`

	// maxUpscaleDelta bounds how many replicas one advice adds
	// (m_opt_init_max_upscale_delta).
	// +optional
	// +kubebuilder:default=6
	// +kubebuilder:validation:Minimum=1
	MaxUpscaleDelta *int32 `json:"maxUpscaleDelta,omitempty"`

	// maxDownscaleDelta bounds how many replicas one advice removes
	// (m_opt_init_max_downscale_delta).
	// +optional
	// +kubebuilder:default=6
	// +kubebuilder:validation:Minimum=1
	MaxDownscaleDelta *int32 `json:"maxDownscaleDelta,omitempty"`

	// adviceFreezeInterval is how long an advised count holds before a
	// different one may be advised (m_opt_init_advice_freeze_interval).
	// +optional
	// +kubebuilder:default="0s"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=duration
	AdviceFreezeInterval *metav1.Duration `json:"adviceFreezeInterval,omitempty"`

	// clusters price the advice: the cheapest clusters are counted first,
	// and status.optimizer.lastAdvice.costPerHour is the advice's cost.
	// Prices are added and compared, so every cluster's pricePerHour is in
	// one currency.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:XValidation:rule="self.all(c, c.pricePerHour.currency == self[0].pricePerHour.currency)",message="every clusters[].pricePerHour must be in one currency: the optimizer adds and compares them"
	Clusters []OptimizerClusterPrice `json:"clusters,omitempty"`
}

// OptimizerQuery is one named PromQL query.
type OptimizerQuery struct {
	// name names the metric in the knowledge base, as in m_opt_input_NAME.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[A-Za-z_][A-Za-z0-9_]*$`
	Name string `json:"name"`

	// query is the PromQL query; it must yield one number.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=4096
	Query string `json:"query"`
}

// OptimizerTarget is the target metric's query and its band.
//
// +kubebuilder:validation:XValidation:rule="quantity(string(self.minThreshold)).isLessThan(quantity(string(self.maxThreshold)))",message="target.minThreshold must be less than target.maxThreshold",fieldPath=".maxThreshold"
type OptimizerTarget struct {
	OptimizerQuery `json:",inline"`

	// minThreshold is the band's lower edge, in the target metric's unit,
	// such as "105" or "0.25".
	// +required
	MinThreshold resource.Quantity `json:"minThreshold"`

	// maxThreshold is the band's upper edge, such as "160".
	// +required
	MaxThreshold resource.Quantity `json:"maxThreshold"`
}

// OptimizerClusterPrice is the price of a replica-hour in one cluster.
type OptimizerClusterPrice struct {
	// name is the cluster's name.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// pricePerHour is one replica's price for an hour in this cluster,
	// such as {amount: "0.04", currency: USD}; the controller refuses a
	// negative amount.
	// +required
	PricePerHour Money `json:"pricePerHour"`

	// maxReplicas caps the replicas counted in this cluster; 0 or unset
	// means no cap.
	// +optional
	// +kubebuilder:validation:Minimum=0
	MaxReplicas int32 `json:"maxReplicas,omitempty"`
}

// OptimizerPhase is the optimizer's phase.
// +kubebuilder:validation:Enum=training;production
type OptimizerPhase string

// The optimizer's phases, as the seed names them.
const (
	OptimizerPhaseTraining   OptimizerPhase = "training"
	OptimizerPhaseProduction OptimizerPhase = "production"
)

// OptimizerStatus is what the optimizer learnt and advised last.
type OptimizerStatus struct {
	// phase is training or production.
	// +optional
	Phase OptimizerPhase `json:"phase,omitempty"`

	// phaseReason says why the optimizer is in its phase.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	PhaseReason string `json:"phaseReason,omitempty"`

	// samples is how many samples were observed, including those restored
	// from the knowledge base.
	// +optional
	Samples int32 `json:"samples,omitempty"`

	// reliability of the advice, in percent: 100 × (1 − held-out error).
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	Reliability int32 `json:"reliability,omitempty"`

	// knowledgeBase names the ConfigMap, in the autoscaler's namespace,
	// that keeps the samples across restarts of the controller.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	KnowledgeBase string `json:"knowledgeBase,omitempty"`

	// lastSampleTime is when the queries last all answered.
	// +optional
	LastSampleTime *metav1.Time `json:"lastSampleTime,omitempty"`

	// lastAdvice is the optimizer's last advice.
	// +optional
	LastAdvice *OptimizerAdvice `json:"lastAdvice,omitempty"`
}

// OptimizerAdvice is one advice of the optimizer.
type OptimizerAdvice struct {
	// replicas advised.
	// +required
	Replicas int32 `json:"replicas"`

	// valid is false when the optimizer gives no usable advice.
	// +required
	Valid bool `json:"valid"`

	// reason says how the count was chosen.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	Reason string `json:"reason,omitempty"`

	// predictedTarget is the target predicted at replicas, in production,
	// to four significant digits.
	// +optional
	PredictedTarget *resource.Quantity `json:"predictedTarget,omitempty"`

	// costPerHour is what the advised replicas cost for an hour, in the
	// currency of spec.optimizer.clusters, when they price it.
	// +optional
	CostPerHour *Money `json:"costPerHour,omitempty"`

	// time of the advice.
	// +required
	Time metav1.Time `json:"time"`
}

// MultiClusterHorizontalPodAutoscalerStatus is what the autoscaler observed
// and did last.
type MultiClusterHorizontalPodAutoscalerStatus struct {
	// conditions of the object: AbleToScale, ScalingActive (False while metrics are
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
	// +kubebuilder:validation:MaxItems=16
	CurrentMetrics []autoscalingv2.MetricStatus `json:"currentMetrics,omitempty"`

	// lastScaleTime is when the autoscaler last changed the replicas.
	// +optional
	LastScaleTime *metav1.Time `json:"lastScaleTime,omitempty"`

	// lastScaleReason says why it did.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	LastScaleReason string `json:"lastScaleReason,omitempty"`

	// optimizer is the optimizer mode's state, when spec.optimizer is set.
	// +optional
	Optimizer *OptimizerStatus `json:"optimizer,omitempty"`
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
	// ConditionOptimizerSampled is False when the optimizer's queries did
	// not all answer at the last interval; the message has Prometheus's
	// error.
	ConditionOptimizerSampled = "OptimizerSampled"
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
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.optimizer.phase`,priority=1
// +kubebuilder:printcolumn:name="Samples",type=integer,JSONPath=`.status.optimizer.samples`,priority=1
// +kubebuilder:printcolumn:name="Reliability",type=integer,JSONPath=`.status.optimizer.reliability`,priority=1
// +kubebuilder:printcolumn:name="Last Scale",type=date,JSONPath=`.status.lastScaleTime`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type MultiClusterHorizontalPodAutoscaler struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
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
