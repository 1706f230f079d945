package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MultiClusterJobSpec is a Job's spec plus a placement block. The pods that
// run at once (parallelism) are placed; each cluster's Job gets a share of
// the completions in proportion to its share of the pods.
type MultiClusterJobSpec struct {
	// parallelism is the number of pods that run at once over all clusters.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	Parallelism *int32 `json:"parallelism,omitempty"`

	// completions is the number of pods that must succeed over all
	// clusters; unset means the Job succeeds when any pod succeeds.
	// +optional
	// +kubebuilder:validation:Minimum=0
	Completions *int32 `json:"completions,omitempty"`

	// backoffLimit is the number of retries of each cluster's Job before it
	// is marked failed.
	// +optional
	// +kubebuilder:validation:Minimum=0
	BackoffLimit *int32 `json:"backoffLimit,omitempty"`

	// activeDeadline bounds how long each cluster's Job may run: whole
	// seconds of at least 1s, written with h, m and s, such as "90s" or
	// "1h", as each member Job's activeDeadlineSeconds counts them.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+(h|m|s))+$`
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('1s')",message="activeDeadline must be at least 1s"
	ActiveDeadline *metav1.Duration `json:"activeDeadline,omitempty"`

	// ttlSecondsAfterFinished deletes the member Jobs this long after they
	// finish.
	// +optional
	// +kubebuilder:validation:Minimum=0
	TTLSecondsAfterFinished *int32 `json:"ttlSecondsAfterFinished,omitempty"`

	// template is the pod template, as in a Job; its restartPolicy must be
	// Never or OnFailure.
	// +required
	// +kubebuilder:validation:XValidation:rule="has(self.spec.restartPolicy) && (self.spec.restartPolicy == 'Never' || self.spec.restartPolicy == 'OnFailure')",message="template.spec.restartPolicy must be Never or OnFailure for a job",fieldPath=".spec.restartPolicy"
	Template corev1.PodTemplateSpec `json:"template"`

	// placement says where the pods may go.
	// +optional
	Placement Placement `json:"placement,omitempty"`

	// carbonShift lets the job wait for a greener start: before placing it,
	// Meridian's carbon scheduler chooses the start, from now to the latest
	// that still finishes by the deadline, when the grid zones of the
	// clusters that can run it are forecast to emit least over its expected
	// duration. Unset starts the job at once.
	// +optional
	CarbonShift *JobCarbonShift `json:"carbonShift,omitempty"`
}

// JobEmissions are a MultiClusterJob's emissions in grams of CO2-equivalent,
// location-based, with the carbon scheduler's energy model: each parallel
// pod draws the power of its CPU and memory requests ((vCPU x 2.12 W + GiB x
// 0.392 W) x PUE 1.135).
type JobEmissions struct {
	// expectedGrams is the carbon scheduler's forecast for the planned
	// start (jobs with spec.carbonShift), to a tenth of a gram.
	// +optional
	ExpectedGrams *resource.Quantity `json:"expectedGrams,omitempty"`

	// baselineGrams is the carbon scheduler's forecast for starting at
	// once in the best-scored cluster (jobs with spec.carbonShift).
	// +optional
	BaselineGrams *resource.Quantity `json:"baselineGrams,omitempty"`

	// realisedGrams is what the job emitted: every member's parallel pods
	// counted from the job's startTime to its completionTime at the
	// measured intensity of the member's grid zone (an upper bound when
	// pods finish before the job does).
	// +optional
	RealisedGrams *resource.Quantity `json:"realisedGrams,omitempty"`

	// energyKWh is the energy counted for realisedGrams, to a tenth of a
	// watt-hour.
	// +optional
	EnergyKWh *resource.Quantity `json:"energyKWh,omitempty"`

	// basis says how the hours' intensities were obtained, per member.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	Basis string `json:"basis,omitempty"`

	// measured says every hour of every member's zone was measured.
	// +optional
	Measured bool `json:"measured,omitempty"`

	// accountedTime is when realisedGrams was computed.
	// +optional
	AccountedTime *metav1.Time `json:"accountedTime,omitempty"`
}

// JobCarbonShift is the window a MultiClusterJob may be started in.
//
// +kubebuilder:validation:XValidation:rule="duration(self.expectedDuration) > duration('0s')",message="expectedDuration must be greater than zero, e.g. 2h",fieldPath=".expectedDuration"
type JobCarbonShift struct {
	// deadline is when the job must have finished.
	// +required
	Deadline metav1.Time `json:"deadline"`

	// expectedDuration is how long the job runs once started, e.g. "2h".
	// +required
	ExpectedDuration metav1.Duration `json:"expectedDuration"`
}

// MultiClusterJobStatus is the decision and the progress of the Jobs.
type MultiClusterJobStatus struct {
	// conditions of the object: Ready (the summary), Placed, Complete,
	// Failed.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// observedGeneration is the generation of the spec last placed.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// active pods over all clusters.
	// +optional
	Active int32 `json:"active,omitempty"`

	// succeeded pods over all clusters.
	// +optional
	Succeeded int32 `json:"succeeded,omitempty"`

	// failed pods over all clusters.
	// +optional
	Failed int32 `json:"failed,omitempty"`

	// plannedStart is the start the carbon scheduler chose for a job with
	// spec.carbonShift; the job is placed then. Set once, so a restarted
	// controller keeps it.
	// +optional
	PlannedStart *metav1.Time `json:"plannedStart,omitempty"`

	// plannedStartReason says why that start was chosen.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	PlannedStartReason string `json:"plannedStartReason,omitempty"`

	// emissions are the job's emissions (gCO2e): the carbon scheduler's
	// forecast when it chose the start, and what the job emitted once it
	// is over.
	// +optional
	Emissions *JobEmissions `json:"emissions,omitempty"`

	// startTime is when the first member Job started.
	// +optional
	StartTime *metav1.Time `json:"startTime,omitempty"`

	// completionTime is when the last member Job completed.
	// +optional
	CompletionTime *metav1.Time `json:"completionTime,omitempty"`

	// unplacedReplicas fit no cluster at the last decision.
	// +optional
	UnplacedReplicas int32 `json:"unplacedReplicas,omitempty"`

	// summary lists the clusters and their pods, for example
	// "lille=4,nantes=1".
	// +optional
	// +kubebuilder:validation:MaxLength=65536
	Summary string `json:"summary,omitempty"`

	// clusters holds the decision for every cluster considered.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=1000
	Clusters []ClusterDecision `json:"clusters,omitempty"`
}

// Job condition types, beside the workload conditions.
const (
	// ConditionComplete is True when the wanted completions succeeded.
	ConditionComplete = "Complete"
	// ConditionFailed is True when a member Job failed for good.
	ConditionFailed = "Failed"

	// ReasonMemberJobFailed means a member Job failed for good.
	ReasonMemberJobFailed = "MemberJobFailed"
	// ReasonAllMemberJobsComplete means every member Job completed.
	ReasonAllMemberJobsComplete = "AllMemberJobsComplete"
	// ReasonRunning means member Jobs are still running.
	ReasonRunning = "Running"
	// ReasonWaitingForGreenerStart means the job waits for the start the
	// carbon scheduler chose (status.plannedStart).
	ReasonWaitingForGreenerStart = "WaitingForGreenerStart"
)

// MultiClusterJob is a Job whose pods Meridian places across member
// clusters by policy.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=mcj,categories=meridian
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Parallelism",type=integer,JSONPath=`.spec.parallelism`
// +kubebuilder:printcolumn:name="Completions",type=integer,JSONPath=`.spec.completions`
// +kubebuilder:printcolumn:name="Succeeded",type=integer,JSONPath=`.status.succeeded`
// +kubebuilder:printcolumn:name="Clusters",type=string,JSONPath=`.status.summary`
// +kubebuilder:printcolumn:name="Planned-Start",type=string,JSONPath=`.status.plannedStart`,priority=1
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Complete",type=string,JSONPath=`.status.conditions[?(@.type=="Complete")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type MultiClusterJob struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the wanted job and its placement.
	// +required
	Spec MultiClusterJobSpec `json:"spec"`

	// status is the placement decision and the job's progress.
	// +optional
	Status MultiClusterJobStatus `json:"status,omitempty"`
}

// MultiClusterJobList is a list of MultiClusterJobs.
//
// +kubebuilder:object:root=true
type MultiClusterJobList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []MultiClusterJob `json:"items"`
}
