package scenario

import (
	"io/fs"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/sim/workload"
)

// Scenario is one simulation: the world, the workload, and the policies to
// compare on it.
type Scenario struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Duration is how long the run lasts in virtual time.
	Duration time.Duration `json:"duration"`
	// SampleInterval is how often the series are sampled; 10s by default.
	SampleInterval time.Duration `json:"sampleInterval,omitempty"`
	// Seed is the default seed of the workload generator; 1 by default.
	Seed     *uint64   `json:"seed,omitempty"`
	Clusters []Cluster `json:"clusters"`
	// LatencyMs is the round-trip time between clusters (and the cloud) in
	// milliseconds; one direction is enough.
	LatencyMs   map[string]map[string]float64 `json:"latencyMs,omitempty"`
	Cloud       *Cloud                        `json:"cloud,omitempty"`
	Workload    Workload                      `json:"workload"`
	Controllers Controllers                   `json:"controllers,omitempty"`
	Policies    []Policy                      `json:"policies"`
	// Outages take member clusters away from the control plane for a
	// while: failover, held replicas and the return run as in the
	// controllers.
	Outages []Outage `json:"outages,omitempty"`

	// File is where the scenario was read from.
	File string `json:"-"`

	fsys      fs.FS
	dir       string
	traceLine int
}

// Cluster is one member cluster.
type Cluster struct {
	Name     string            `json:"name"`
	Region   string            `json:"region,omitempty"`
	Provider string            `json:"provider,omitempty"`
	Labels   map[string]string `json:"labels,omitempty"`
	Nodes    []NodePool        `json:"nodes"`
}

// NodePool is a group of identical worker nodes.
type NodePool struct {
	Count  int               `json:"count"`
	CPU    resource.Quantity `json:"cpu"`
	Memory resource.Quantity `json:"memory"`
	// Pods is the pod capacity of each node; 110 by default.
	Pods int64 `json:"pods,omitempty"`
}

// Cloud is the cloud the provisioner may create a cluster in.
type Cloud struct {
	Name     string `json:"name"`
	Region   string `json:"region,omitempty"`
	Provider string `json:"provider,omitempty"`
	// ClusterDelay is how long a new cloud cluster takes to be usable;
	// NodeDelay how long an added node takes.
	ClusterDelay time.Duration `json:"clusterDelay"`
	NodeDelay    time.Duration `json:"nodeDelay"`
	Flavors      []Flavor      `json:"flavors"`
	// MinNodes is 1 and MaxNodes 20 by default.
	MinNodes int `json:"minNodes,omitempty"`
	MaxNodes int `json:"maxNodes,omitempty"`
	// ScaleDownDelay (10m), ScaleDownUtilization (0.5) and DeprovisionDelay
	// (20m) are the cluster autoscaler's; the defaults are seed 001's.
	ScaleDownDelay       time.Duration `json:"scaleDownDelay,omitempty"`
	ScaleDownUtilization float64       `json:"scaleDownUtilization,omitempty"`
	DeprovisionDelay     time.Duration `json:"deprovisionDelay,omitempty"`
}

// Flavor is a machine size of the cloud.
type Flavor struct {
	Name   string            `json:"name"`
	CPU    resource.Quantity `json:"cpu"`
	Memory resource.Quantity `json:"memory"`
	Pods   int64             `json:"pods,omitempty"`
	// PricePerHour is one node's price for an hour, as a CloudProvisioner
	// writes it: {amount: "0.16", currency: USD}.
	PricePerHour *multiclusterv1alpha1.Money `json:"pricePerHour,omitempty"`
}

// Workload is what is submitted during the run: generated tasks, tasks from
// a trace, and services.
type Workload struct {
	Generator *workload.Generator `json:"generator,omitempty"`
	// Trace is a task trace in CSV (see workload.TraceColumns), relative
	// to the scenario file.
	Trace    string    `json:"trace,omitempty"`
	Services []Service `json:"services,omitempty"`
}

// Service is a long-running multi-cluster deployment, optionally with a
// load and a multi-cluster HPA.
type Service struct {
	Name     string            `json:"name"`
	CPU      resource.Quantity `json:"cpu"`
	Memory   resource.Quantity `json:"memory"`
	Replicas int32             `json:"replicas"`
	// Locations are the preferred clusters, most preferred first.
	Locations []string      `json:"locations,omitempty"`
	Start     time.Duration `json:"start,omitempty"`
	// Stop, when set, is when the service is deleted: its replicas go
	// from every member, as a deleted MultiClusterDeployment's do.
	Stop       time.Duration  `json:"stop,omitempty"`
	Autoscaler *Autoscaler    `json:"autoscaler,omitempty"`
	Load       *workload.Load `json:"load,omitempty"`
}

// Autoscaler is a multi-cluster HPA on CPU utilization.
type Autoscaler struct {
	MinReplicas int32 `json:"minReplicas"`
	MaxReplicas int32 `json:"maxReplicas"`
	// TargetUtilization is in percent of the request.
	TargetUtilization float64 `json:"targetUtilization"`
	// Tolerance is 0.1 and CoolDown 10m by default.
	Tolerance float64       `json:"tolerance,omitempty"`
	CoolDown  time.Duration `json:"coolDown,omitempty"`
}

// Outage is one cluster cut off from the control plane: from At, for
// For, the member answers no read or write of the controllers while its
// own nodes, pods and scheduler go on, as when its API server or the
// network to it is lost. The control plane sees it NotReady from At (the
// heartbeat's detection delay is not modelled), holds its replicas, and
// places them elsewhere once the failover grace has passed. The cloud
// cluster may be cut off too, once it has joined: the provisioner then
// finds it Unreachable and decides nothing until it is back; an outage
// that starts before it joined cuts nothing off.
type Outage struct {
	Cluster string        `json:"cluster"`
	At      time.Duration `json:"at"`
	For     time.Duration `json:"for"`
}

// Controllers are the periods of the management-plane loops.
type Controllers struct {
	// AutoscalerPeriod (30s), ProvisionerPeriod (30s), ReschedulerPeriod
	// (60s) are how often those loops run; PlacementRetry (5s) is how long
	// the placement controllers wait after a change in a member's capacity
	// before they look again (the inventory's batching of member events).
	AutoscalerPeriod  time.Duration `json:"autoscalerPeriod,omitempty"`
	ProvisionerPeriod time.Duration `json:"provisionerPeriod,omitempty"`
	ReschedulerPeriod time.Duration `json:"reschedulerPeriod,omitempty"`
	PlacementRetry    time.Duration `json:"placementRetry,omitempty"`
	// PendingGrace (30s) is how long replicas may stay Unschedulable in a
	// member before the overflow is placed elsewhere (the controller's
	// --pending-grace).
	PendingGrace time.Duration `json:"pendingGrace,omitempty"`
	// TrafficInterval (30s) is how often a TrafficAware workload's traffic
	// is read and its placement follows it (--traffic-interval).
	TrafficInterval time.Duration `json:"trafficInterval,omitempty"`
	// FailoverGrace (2m) is how long a member may be NotReady before its
	// replicas are placed elsewhere (the controller's --failover-grace).
	FailoverGrace time.Duration `json:"failoverGrace,omitempty"`
}

// Placement names how a policy places workloads.
const (
	// PlacementPropagate is the KubeFed baseline: every replica goes to the
	// first preferred cluster, without checking capacity.
	PlacementPropagate = "Propagate"
)

// Policy is one way of running the workload, compared with the others.
type Policy struct {
	Name string `json:"name"`
	// Placement is Propagate or a placement policy: ClusterAffinity,
	// WorstFit, BestFit, TrafficAware.
	Placement         string `json:"placement"`
	Substitution      bool   `json:"substitution,omitempty"`
	Bursting          bool   `json:"bursting,omitempty"`
	NumberOfLocations int32  `json:"numberOfLocations,omitempty"`
	// Provisioning is empty (no cloud), Reactive or Predictive.
	Provisioning string `json:"provisioning,omitempty"`
	// TargetUtilization and TrendWindow tune predictive provisioning;
	// zero means provision.DefaultTargetUtilization (0.8) and
	// DefaultTrendWindow (15m).
	TargetUtilization float64       `json:"targetUtilization,omitempty"`
	TrendWindow       time.Duration `json:"trendWindow,omitempty"`
	// Rescheduler pulls replicas back to their preferred clusters.
	Rescheduler bool `json:"rescheduler,omitempty"`
}
