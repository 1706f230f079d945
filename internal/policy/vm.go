package policy

import (
	"context"

	"github.com/meridian-dev/meridian/internal/carbon"
)

// VMInput is what the VM policies decide on: a cloud VM's needs. Field names
// are the same for CREATE and UPDATE.
type VMInput struct {
	// Name is namespace/name of the VM.
	Name string `json:"name"`
	// CPUMilli and MemoryMiB are the VM's size.
	CPUMilli  int64 `json:"cpuMilli"`
	MemoryMiB int64 `json:"memoryMiB"`
	// OriginRegion is where the VM's users are; MaxLatencyMs, when above
	// zero, is the largest round-trip time allowed from it.
	OriginRegion string  `json:"originRegion,omitempty"`
	MaxLatencyMs float64 `json:"maxLatencyMs,omitempty"`
	// Residency, when set, is the jurisdiction the VM must stay in ("EU").
	Residency string `json:"residency,omitempty"`
	// Providers, when set, are the only providers allowed.
	Providers []string `json:"providers,omitempty"`
	// Provider and Region, when set, pin the VM.
	Provider string `json:"provider,omitempty"`
	Region   string `json:"region,omitempty"`
}

// VMDecision is what the VM policies leave: the candidates the scheduler
// chooses among, and why every other region was removed.
type VMDecision struct {
	// Candidates are the regions left, each with its grid zone, instance
	// size, price and latency from the origin.
	Candidates []carbon.Candidate `json:"candidates"`
	// Steps are the policies in the order they ran, each with the regions
	// it left ("provider/region").
	Steps []VMStep `json:"steps"`
	// Removed names, for every region removed, the policy that removed it
	// and why.
	Removed []VMRemoval `json:"removed"`
	// UnverifiedPrices names the providers among the candidates whose
	// prices were not taken from a recorded public source (the bundle's
	// data says so), so that a decision comparing prices can say so.
	UnverifiedPrices []string `json:"unverifiedPrices,omitempty"`
	// Revision is the bundle revision the decision was made with.
	Revision string `json:"revision"`
	// DecisionID identifies the decision in the decision log.
	DecisionID string `json:"decisionID"`
}

// VMStep is one policy and the regions it left.
type VMStep struct {
	Policy string   `json:"policy"`
	Left   []string `json:"left"`
}

// VMRemoval is one region a policy removed, and why.
type VMRemoval struct {
	Provider string `json:"provider"`
	Region   string `json:"region"`
	Policy   string `json:"policy"`
	Reason   string `json:"reason"`
}

// VMPolicies decides which regions a VM may go to. The Engine implements
// it; the webhook depends only on this interface.
type VMPolicies interface {
	VM(ctx context.Context, in VMInput) (VMDecision, error)
}
