package v1alpha1

import (
	"bytes"
	"encoding/json"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Provider is a cloud provider a CloudVM may run on.
// +kubebuilder:validation:Enum=azure;gcp;aws
type Provider string

// The providers Meridian renders VMs for.
const (
	ProviderAzure Provider = "azure"
	ProviderGCP   Provider = "gcp"
	ProviderAWS   Provider = "aws"
)

// Residency is a jurisdiction a CloudVM's data must stay in.
// +kubebuilder:validation:Enum=EU
type Residency string

// ResidencyEU keeps a VM in regions of the European Union and the EEA.
const ResidencyEU Residency = "EU"

// ImageFamily is the operating system a CloudVM boots; each provider's chart
// maps it to that provider's image.
// +kubebuilder:validation:Enum=ubuntu-24.04;ubuntu-22.04;debian-12
type ImageFamily string

// CloudVMSpec is what a user asks of a VM: its needs, not its place.
//
// +kubebuilder:validation:XValidation:rule="quantity(self.cpu).isGreaterThan(quantity('0'))",message="cpu must be greater than zero",fieldPath=".cpu"
// +kubebuilder:validation:XValidation:rule="quantity(self.memory).isGreaterThan(quantity('0'))",message="memory must be greater than zero",fieldPath=".memory"
// +kubebuilder:validation:XValidation:rule="duration(self.duration) > duration('0s')",message="duration must be greater than zero, e.g. 2h",fieldPath=".duration"
// +kubebuilder:validation:XValidation:rule="!has(self.maxLatency) || duration(self.maxLatency) >= duration('1ms')",message="maxLatency must be at least 1ms",fieldPath=".maxLatency"
// +kubebuilder:validation:XValidation:rule="!has(self.maxLatency) || has(self.originRegion)",message="maxLatency needs originRegion, the region latency is measured from",fieldPath=".maxLatency"
// +kubebuilder:validation:XValidation:rule="!has(self.deadline) || !has(self.pin) || !has(self.pin.start) || timestamp(self.pin.start) + duration(self.duration) <= timestamp(self.deadline)",message="pin.start plus duration must not be after the deadline",fieldPath=".deadline"
// +kubebuilder:validation:XValidation:rule="!has(self.pin) || !has(self.pin.provider) || !has(self.providers) || self.pin.provider in self.providers",message="pin.provider must be one of providers",fieldPath=".pin.provider"
type CloudVMSpec struct {
	// cpu is the number of virtual CPUs the VM needs, e.g. "2".
	// +required
	CPU resource.Quantity `json:"cpu"`

	// memory is the memory the VM needs, e.g. "8Gi".
	// +required
	Memory resource.Quantity `json:"memory"`

	// duration is how long the VM runs once started, e.g. "3h". The VM is
	// deleted at its start plus this duration.
	// +required
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|ms|s|m|h))+$`
	Duration metav1.Duration `json:"duration"`

	// deadline is when the VM must have finished, when set: the scheduler
	// only chooses starts that end by it, and a VM that cannot is Failed,
	// never started late.
	// +optional
	Deadline *metav1.Time `json:"deadline,omitempty"`

	// originRegion is the provider region nearest the VM's users (any
	// provider's region name, e.g. "westeurope"); latency limits are
	// measured from it.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	OriginRegion string `json:"originRegion,omitempty"`

	// maxLatency is the largest round-trip time allowed between the origin
	// region and the VM's region, e.g. "30ms"; it needs originRegion.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|ms|s|m|h))+$`
	MaxLatency *metav1.Duration `json:"maxLatency,omitempty"`

	// residency keeps the VM, when set, in that jurisdiction's regions.
	// +optional
	Residency Residency `json:"residency,omitempty"`

	// providers are, when set, the only providers the VM may run on; when
	// empty every provider the policies allow is compared.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=3
	Providers []Provider `json:"providers,omitempty"`

	// image is the operating system family the VM boots.
	// +optional
	// +kubebuilder:default=ubuntu-24.04
	Image ImageFamily `json:"image,omitempty"`

	// pin fixes, when set, part of the decision: the policies still check a
	// pinned provider and region, and a pinned start replaces the carbon
	// scheduler's choice of time.
	// +optional
	Pin *CloudVMPin `json:"pin,omitempty"`

	// sshPublicKey is the public key installed for the VM's admin user.
	// +optional
	// +kubebuilder:validation:MaxLength=16384
	SSHPublicKey string `json:"sshPublicKey,omitempty"`

	// credentialsSecretRef names a Secret in the VM's namespace that the
	// provider's operator reads credentials from (Azure Service Operator's
	// per-namespace credential). Credentials are never inline.
	// +optional
	CredentialsSecretRef *SecretReference `json:"credentialsSecretRef,omitempty"`

	// schedule is the admission webhook's decision: where and when the VM
	// runs and how the policies narrowed the regions down. The webhook
	// sets it on CREATE, re-plans it on an UPDATE of the spec before the
	// start, and otherwise keeps it as it is: what a user writes here is
	// replaced. It is spec, not status, because nothing can reconstruct it
	// by observation (the same policies and forecasts decide differently an
	// hour later), and because the API server drops status written by
	// admission.
	// +optional
	Schedule *CloudVMSchedule `json:"schedule,omitempty"`
}

// CloudVMSchedule is the admission webhook's decision for a CloudVM and
// its explanation.
type CloudVMSchedule struct {
	// decision is where and when the VM runs.
	// +required
	Decision CloudVMDecision `json:"decision"`
	// explanation says how the policies narrowed the regions down.
	// +optional
	Explanation *CloudVMExplanation `json:"explanation,omitempty"`
}

// AnnotationReplan asks the admission webhook for a new decision with the
// data it has now (Day-2), without changing the spec: any change of its
// value in an UPDATE before the start re-plans, as a change of the spec
// does. Other metadata changes keep the decision as it is.
const AnnotationReplan = "compute.meridian.dev/replan"

// CloudVMPin fixes part of a CloudVM's decision.
//
// +kubebuilder:validation:XValidation:rule="!has(self.region) || has(self.provider)",message="pin.region needs pin.provider",fieldPath=".region"
type CloudVMPin struct {
	// provider pins the provider.
	// +optional
	Provider Provider `json:"provider,omitempty"`
	// region pins the region (a region of the pinned provider).
	// +optional
	// +kubebuilder:validation:MaxLength=64
	Region string `json:"region,omitempty"`
	// start pins the start time.
	// +optional
	Start *metav1.Time `json:"start,omitempty"`
}

// Money is an amount in a currency. The field that holds it says what the
// amount pays for and for how long (pricePerHour: an instance for one
// hour).
type Money struct {
	// amount is a decimal such as "0.096". The API server keeps it as a
	// quantity, which Go clients write in its canonical form ("96m").
	// +required
	Amount resource.Quantity `json:"amount"`

	// currency of the amount, an ISO 4217 code such as "USD".
	// +required
	// +kubebuilder:validation:MinLength=3
	// +kubebuilder:validation:MaxLength=3
	// +kubebuilder:validation:Pattern=`^[A-Z]{3}$`
	Currency string `json:"currency"`
}

// UnmarshalJSON reads a Money, and also a bare decimal such as "0.0960",
// the shape of a decision's price before prices carried their currency, as
// that many US dollars, the currency such a price was always in. The API
// server refuses that shape in writes; reading it lets Meridian read a
// CloudVM decided before the change and write its decision back as money.
func (m *Money) UnmarshalJSON(data []byte) error {
	if legacy := bytes.TrimSpace(data); len(legacy) > 0 && legacy[0] != '{' && !bytes.Equal(legacy, []byte("null")) {
		var q resource.Quantity
		if err := q.UnmarshalJSON(legacy); err != nil {
			return err
		}
		*m = Money{Amount: q, Currency: "USD"}
		return nil
	}
	type plain Money
	return json.Unmarshal(data, (*plain)(m))
}

// SecretReference names a Secret in the same namespace.
type SecretReference struct {
	// name is the Secret's name.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
}

// CloudVMPhase is where a CloudVM is in its life.
// +kubebuilder:validation:Enum=Scheduled;Waiting;Provisioning;Running;Completed;Failed;Unschedulable
type CloudVMPhase string

// The phases of a CloudVM.
const (
	// PhaseScheduled: the webhook decided (spec.schedule); the controller
	// has not acted on it yet.
	PhaseScheduled CloudVMPhase = "Scheduled"
	// PhaseWaiting: the start is in the future.
	PhaseWaiting CloudVMPhase = "Waiting"
	// PhaseProvisioning: the provider objects exist and are not all ready.
	PhaseProvisioning CloudVMPhase = "Provisioning"
	// PhaseRunning: every provider object is ready.
	PhaseRunning CloudVMPhase = "Running"
	// PhaseCompleted: the duration is over and the provider objects are gone.
	PhaseCompleted CloudVMPhase = "Completed"
	// PhaseFailed: the VM cannot run as asked (e.g. its deadline passed).
	PhaseFailed CloudVMPhase = "Failed"
	// PhaseUnschedulable: the VM has no decision. The webhook denies a VM
	// that no region or start satisfies, so such a VM is never created;
	// one only exists without a decision when it was created while the
	// webhook was not installed.
	PhaseUnschedulable CloudVMPhase = "Unschedulable"
)

// Condition types and reasons of a CloudVM.
const (
	// ConditionScheduled is True once a decision is recorded.
	ConditionScheduled = "Scheduled"
	// ConditionReady is True while every provider object is ready.
	ConditionReady = "Ready"

	ReasonDecided          = "Decided"
	ReasonNoRegion         = "NoEligibleRegion"
	ReasonWaitingForStart  = "WaitingForStart"
	ReasonProvisioning     = "Provisioning"
	ReasonRunning          = "Running"
	ReasonCompleted        = "Completed"
	ReasonDeadlineMissed   = "DeadlineMissed"
	ReasonRenderFailed     = "RenderFailed"
	ReasonApplyFailed      = "ApplyFailed"
	ReasonForecastFallback = "ForecastFallback"
	// ReasonNoDecision: the VM has no spec.schedule, because it was
	// created while the admission webhook was not installed.
	ReasonNoDecision = "NoDecision"
	// ReasonStartMissed: the controller reached the VM more than its start
	// slack after the planned start (it was down), so the VM was not
	// started late.
	ReasonStartMissed = "StartMissed"
	// ReasonTearingDown: the run ended and the provider objects are being
	// deleted.
	ReasonTearingDown = "TearingDown"
	// ReasonDeleting: the CloudVM is being deleted and its provider objects
	// go first.
	ReasonDeleting = "Deleting"
	// ReasonEmissionsAccounted: the run is over and status.emissions holds
	// what it emitted.
	ReasonEmissionsAccounted = "EmissionsAccounted"
	// ReasonEmissionsUnknown: no intensity of the run's grid zone could be
	// read for the hours it ran.
	ReasonEmissionsUnknown = "EmissionsUnknown"
)

// LabelCloudVM is put on every provider object of a CloudVM, with the
// CloudVM's name as its value: `kubectl get -l compute.meridian.dev/cloudvm=NAME`
// lists them, and the controller finds them by it in the CloudVM's
// namespace.
const LabelCloudVM = "compute.meridian.dev/cloudvm"

// CloudVMDecision is where and when the VM runs, as the webhook decided it
// (spec.schedule.decision).
type CloudVMDecision struct {
	// provider the VM runs on.
	// +required
	Provider Provider `json:"provider"`

	// region of the provider the VM runs in.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	Region string `json:"region"`

	// zone is the grid zone powering the region, an Electricity Maps zone
	// key such as "NL".
	// +optional
	// +kubebuilder:validation:MaxLength=64
	Zone string `json:"zone,omitempty"`

	// instanceType is the provider's instance size that fits the VM.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=128
	InstanceType string `json:"instanceType"`

	// pricePerHour is the instance's on-demand price for an hour, in the
	// currency of the policies' price list, such as {amount: "0.096",
	// currency: USD}.
	// +optional
	// +kubebuilder:validation:XValidation:rule="!string(self.amount).startsWith('-')",message="amount must not be negative",fieldPath=".amount"
	PricePerHour *Money `json:"pricePerHour,omitempty"`

	// start of the run.
	// +required
	Start metav1.Time `json:"start"`

	// end of the run: start plus spec.duration.
	// +required
	End metav1.Time `json:"end"`

	// expectedEmissionsGrams is the forecast emissions (gCO2e) of the
	// plan, to a tenth of a gram; unset when no intensity was known.
	// +optional
	ExpectedEmissionsGrams *resource.Quantity `json:"expectedEmissionsGrams,omitempty"`

	// baselineEmissionsGrams is the forecast emissions (gCO2e) of starting
	// at once in the first eligible region; unset when no intensity was
	// known.
	// +optional
	BaselineEmissionsGrams *resource.Quantity `json:"baselineEmissionsGrams,omitempty"`

	// intensitySource names where the carbon intensities came from.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	IntensitySource string `json:"intensitySource,omitempty"`

	// fallback says, when set, that the forecasts were missing or stale and
	// what was done instead.
	// +optional
	// +kubebuilder:validation:MaxLength=32768
	Fallback string `json:"fallback,omitempty"`

	// reason says why this region and start were chosen.
	// +optional
	// +kubebuilder:validation:MaxLength=32768
	Reason string `json:"reason,omitempty"`

	// policyRevision is the policy bundle revision the decision used.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	PolicyRevision string `json:"policyRevision,omitempty"`

	// decisionID is the decision's entry in the decision log, to replay it.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	DecisionID string `json:"decisionID,omitempty"`

	// decidedTime is when the decision was made.
	// +required
	DecidedTime metav1.Time `json:"decidedTime"`
}

// CloudVMExplanation says how the policies narrowed the regions down.
type CloudVMExplanation struct {
	// steps are the policies in the order they ran, with how many regions
	// each left and, when few, which.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	Steps []PolicyStep `json:"steps,omitempty"`

	// removed names, for every region removed, the policy that removed it
	// and why.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=1024
	Removed []RegionRemoval `json:"removed,omitempty"`
}

// PolicyStep is one policy and the regions it left.
type PolicyStep struct {
	// policy is the policy's name, e.g. "latency".
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Policy string `json:"policy"`

	// leftCount is how many regions were left after this policy.
	// +required
	// +kubebuilder:validation:Minimum=0
	LeftCount int32 `json:"leftCount"`

	// left lists them ("provider/region"), up to 64.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=128
	Left []string `json:"left,omitempty"`
}

// RegionRemoval is one region a policy removed.
type RegionRemoval struct {
	// provider of the region.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	Provider string `json:"provider"`

	// region removed.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	Region string `json:"region"`

	// policy that removed it.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Policy string `json:"policy"`

	// reason the policy gave.
	// +required
	// +kubebuilder:validation:MaxLength=32768
	Reason string `json:"reason"`
}

// RenderedObject is one provider object the controller applied.
type RenderedObject struct {
	// apiVersion of the provider object.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	APIVersion string `json:"apiVersion"`

	// kind of the provider object.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Kind string `json:"kind"`

	// name of the provider object, in the CloudVM's namespace.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// ready says whether the provider's operator reports it ready.
	// +required
	Ready bool `json:"ready"`

	// message is the operator's last word on it.
	// +optional
	// +kubebuilder:validation:MaxLength=32768
	Message string `json:"message,omitempty"`
}

// CloudVMStatus is what Meridian decided and did for a CloudVM.
type CloudVMStatus struct {
	// conditions of the object: Scheduled and Ready.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// phase is where the VM is in its life. The decision it acts on is
	// spec.schedule.
	// +optional
	Phase CloudVMPhase `json:"phase,omitempty"`

	// objects are the provider objects applied for the VM.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	Objects []RenderedObject `json:"objects,omitempty"`

	// startedTime is when the provider objects were applied.
	// +optional
	StartedTime *metav1.Time `json:"startedTime,omitempty"`

	// completedTime is when the provider objects were deleted.
	// +optional
	CompletedTime *metav1.Time `json:"completedTime,omitempty"`

	// emissions is what the run emitted, accounted once it is over.
	// +optional
	Emissions *CloudVMEmissions `json:"emissions,omitempty"`

	// observedGeneration is the generation the controller last acted on.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// CloudVMEmissions is what a finished run emitted: location-based, the
// intensity of the grid zone in the hours the VM really ran (from
// status.startedTime to status.completedTime) times the power the energy
// model gives its size. spec.schedule.decision holds the forecast figures
// of the same model: expected for the plan, baseline for starting at once in
// the first eligible region.
type CloudVMEmissions struct {
	// realisedGrams is the emissions in grams of CO2-equivalent, to a
	// tenth of a gram.
	// +required
	RealisedGrams resource.Quantity `json:"realisedGrams"`

	// energyKWh is the energy the run drew, to a tenth of a watt-hour.
	// +required
	EnergyKWh resource.Quantity `json:"energyKWh"`

	// watts is the VM's power in the energy model: (vCPU x W per vCPU +
	// GiB x W per GiB) x the provider's PUE, to a hundredth of a watt.
	// +required
	Watts resource.Quantity `json:"watts"`

	// basis says how the hours' intensities were obtained, e.g. "5 h: 5
	// measured from electricitymaps"; hours not measured make the figure
	// an estimate.
	// +required
	// +kubebuilder:validation:MaxLength=32768
	Basis string `json:"basis"`

	// measured says every hour of the run was measured.
	// +required
	Measured bool `json:"measured"`

	// accountedTime is when the figure was computed.
	// +required
	AccountedTime metav1.Time `json:"accountedTime"`
}

// CloudVM is a virtual machine asked for by its needs; policies and the
// carbon scheduler choose its provider, region and start.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=cvm,categories=meridian
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Provider",type=string,JSONPath=`.spec.schedule.decision.provider`
// +kubebuilder:printcolumn:name="Region",type=string,JSONPath=`.spec.schedule.decision.region`
// +kubebuilder:printcolumn:name="Size",type=string,JSONPath=`.spec.schedule.decision.instanceType`
// +kubebuilder:printcolumn:name="Start",type=string,JSONPath=`.spec.schedule.decision.start`
// +kubebuilder:printcolumn:name="End",type=string,JSONPath=`.spec.schedule.decision.end`,priority=1
// +kubebuilder:printcolumn:name="Expected-gCO2e",type=string,JSONPath=`.spec.schedule.decision.expectedEmissionsGrams`,priority=1
// +kubebuilder:printcolumn:name="Realised-gCO2e",type=string,JSONPath=`.status.emissions.realisedGrams`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type CloudVM struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is what the user asks of the VM, and the webhook's schedule.
	// +required
	Spec CloudVMSpec `json:"spec"`

	// status is what Meridian decided and did.
	// +optional
	Status CloudVMStatus `json:"status,omitempty"`
}

// CloudVMList is a list of CloudVMs.
//
// +kubebuilder:object:root=true
type CloudVMList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the CloudVMs.
	Items []CloudVM `json:"items"`
}
