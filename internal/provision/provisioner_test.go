package provision

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/meridian-dev/meridian/internal/money"
	"github.com/meridian-dev/meridian/internal/placement"
)

const gi = int64(1) << 30

func cpu(milli int64) placement.Resources {
	return placement.Resources{MilliCPU: milli, Memory: milli * gi / 1000, Pods: 1}
}

func config(mode Mode) Config {
	return Config{
		Mode: mode,
		Flavors: []Flavor{
			{Name: "large", Allocatable: placement.Resources{MilliCPU: 4000, Memory: 8 * gi, Pods: 110}, PricePerHour: usd("0.2")},
			{Name: "xlarge", Allocatable: placement.Resources{MilliCPU: 8000, Memory: 16 * gi, Pods: 110}, PricePerHour: usd("0.4")},
		},
		MinNodes: 1, MaxNodes: 10,
		ClusterDelay: 5 * time.Minute, NodeDelay: 2 * time.Minute, Period: 30 * time.Second,
		ScaleDownDelay: 10 * time.Minute, ScaleDownUtilization: 0.5, DeprovisionDelay: 20 * time.Minute,
		TargetUtilization: 0.9, TrendWindow: 10 * time.Minute,
	}
}

func node(name string, requested int64, ready bool, pods ...placement.Resources) NodeState {
	return NodeState{
		Name:        name,
		Flavor:      "large",
		Allocatable: placement.Resources{MilliCPU: 4000, Memory: 8 * gi, Pods: 110},
		Requested:   placement.Resources{MilliCPU: requested, Memory: requested * gi / 1000, Pods: int64(len(pods))},
		Ready:       ready,
		Pods:        pods,
	}
}

var start = time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC)

type step struct {
	at   time.Duration
	obs  Observation
	want Decision
}

// rising is an observation of n replicas of 1 CPU asked for, all placed,
// with the members' free space.
func rising(n int64, free []placement.Resources) Observation {
	return Observation{
		Capacity: placement.Resources{MilliCPU: 70000, Memory: 220 * gi},
		Free:     free,
		Demand:   placement.Resources{MilliCPU: n * 1000, Memory: n * gi, Pods: n},
		Sizes:    []Size{{Requests: cpu(1000), Count: n}},
	}
}

// provisioningSteps are the rise of "predictive provisions for the rise
// it forecasts", 2 replicas of 1 CPU a minute, with a cloud cluster being
// provisioned with one xlarge node (8 CPU) from minute 6 (bought then in
// predictive mode, before it by someone else in reactive mode). At minute
// 8 the members are full and 4 replicas are unschedulable, which the
// coming node holds. The forecast over a node's delay (2 × 2.375 minutes
// / 0.9, and the largest) adds 7, of which 4 fit beside them.
func provisioningSteps(at6, at8 Decision) []step {
	var free []placement.Resources
	for range 10 {
		free = append(free, cpu(1000))
	}
	var steps []step
	for i, n := range []int64{40, 44, 48} {
		steps = append(steps, step{at: time.Duration(2*i) * time.Minute, obs: rising(n, free), want: Decision{Action: None, Reason: "member clusters have room"}})
	}
	steps = append(steps, step{at: 6 * time.Minute, obs: rising(52, free), want: at6})
	coming := NodeState{Name: "coming-xlarge-0", Flavor: "xlarge", Allocatable: placement.Resources{MilliCPU: 8000, Memory: 16 * gi, Pods: 110}}
	o := rising(56, nil)
	o.Unschedulable = []placement.Resources{cpu(1000), cpu(1000), cpu(1000), cpu(1000)}
	o.Cloud = &Cloud{Phase: Provisioning, Nodes: []NodeState{coming}}
	return append(steps, step{at: 8 * time.Minute, obs: o, want: at8})
}

func inCloud(o Observation, c *Cloud) Observation {
	o.Cloud = c
	return o
}

func TestProvisioner(t *testing.T) {
	capacity := placement.Resources{MilliCPU: 70000, Memory: 220 * gi}
	var free []placement.Resources
	for range 10 {
		free = append(free, cpu(1000))
	}
	ready := func(workloads int, nodes ...NodeState) *Cloud {
		return &Cloud{Phase: Ready, Nodes: nodes, Workloads: workloads}
	}
	// busy is 75% requested; its pod fits in what roomy, an xlarge node
	// 56% requested, has free.
	busy := node("busy", 3000, true, cpu(3000))
	roomy := NodeState{
		Name: "roomy", Flavor: "xlarge", Ready: true,
		Allocatable: placement.Resources{MilliCPU: 8000, Memory: 16 * gi, Pods: 110},
		Requested:   placement.Resources{MilliCPU: 4500, Memory: 4500 * gi / 1000, Pods: 1},
		Pods:        []placement.Resources{cpu(4500)},
	}
	// Each of big (8 CPU, 2 requested) and small (4 CPU, 1 requested) holds
	// the other's pods: removing big saves more.
	big := NodeState{
		Name: "big", Flavor: "xlarge", Ready: true,
		Allocatable: placement.Resources{MilliCPU: 8000, Memory: 16 * gi, Pods: 110},
		Requested:   placement.Resources{MilliCPU: 2000, Memory: 2 * gi, Pods: 1},
		Pods:        []placement.Resources{cpu(2000)},
	}
	small := node("small", 1000, true, cpu(1000))
	tests := []struct {
		name  string
		mode  Mode
		steps []step
	}{
		{
			name: "reactive provisions for what is unschedulable, bin-packed",
			mode: Reactive,
			steps: []step{
				{0, Observation{Capacity: capacity, Demand: cpu(60000)}, Decision{Action: None, Reason: "member clusters have room"}},
				{time.Minute, Observation{Capacity: capacity, Demand: cpu(72000), Unschedulable: []placement.Resources{cpu(3000), cpu(3000), cpu(1000)}},
					Decision{Action: ProvisionCluster, Add: []NodeGroup{{Flavor: "xlarge", Nodes: 1}}, Reason: "3 replicas unschedulable (0.40 USD/h)"}},
			},
		},
		{
			name: "predictive provisions for the rise it forecasts before the clusters are full",
			mode: Predictive,
			steps: []step{
				{0, rising(40, free), Decision{Action: None, Reason: "member clusters have room"}},
				{2 * time.Minute, rising(44, free), Decision{Action: None, Reason: "member clusters have room"}},
				{4 * time.Minute, rising(48, free), Decision{Action: None, Reason: "member clusters have room"}},
				// 2 replicas/min × 7.375 min (the cluster's and a node's
				// delay, and three quarters of the period) = 14.75, / 0.9
				// = 17, and room for the largest: 18 replicas of 1 CPU, 10
				// of which fit in the free space of the members.
				{6 * time.Minute, rising(52, free),
					Decision{Action: ProvisionCluster, Add: []NodeGroup{{Flavor: "xlarge", Nodes: 1}}, Reason: "forecast needs room for 8 more (0.40 USD/h)"}},
			},
		},
		{
			name: "predictive grows a cluster being provisioned when the forecast outgrows it",
			mode: Predictive,
			steps: provisioningSteps(
				Decision{Action: ProvisionCluster, Add: []NodeGroup{{Flavor: "xlarge", Nodes: 1}}, Reason: "forecast needs room for 8 more (0.40 USD/h)"},
				Decision{Action: AddNodes, Add: []NodeGroup{{Flavor: "large", Nodes: 1}}, Reason: "4 replicas unschedulable, forecast needs room for 3 more (0.20 USD/h)"}),
		},
		{
			name: "reactive waits for the cluster being provisioned",
			mode: Reactive,
			steps: provisioningSteps(
				Decision{Action: None, Reason: "member clusters have room"},
				Decision{Action: None, Reason: "cloud cluster is being provisioned"}),
		},
		{
			name: "nothing is decided while the cloud cluster is unreachable",
			mode: Predictive,
			steps: []step{
				{0, Observation{Capacity: capacity, Unschedulable: []placement.Resources{cpu(2000)}, Cloud: &Cloud{Phase: Unreachable}},
					Decision{Action: None, Reason: "cloud cluster is unreachable"}},
			},
		},
		{
			name: "unschedulable replicas that fit in nodes being added need nothing more",
			mode: Reactive,
			steps: []step{
				{0, Observation{Capacity: capacity, Unschedulable: []placement.Resources{cpu(2000), cpu(2000)},
					Cloud: ready(1, node("n1", 3000, true, cpu(3000)), node("n2", 0, false))}, Decision{Action: None}},
				{time.Minute, Observation{Capacity: capacity, Unschedulable: []placement.Resources{cpu(2000), cpu(2000), cpu(2000)},
					Cloud: ready(1, node("n1", 3000, true, cpu(3000)), node("n2", 0, false))},
					Decision{Action: AddNodes, Add: []NodeGroup{{Flavor: "large", Nodes: 1}}, Reason: "3 replicas unschedulable (0.20 USD/h)"}},
			},
		},
		{
			name: "an empty node goes after the scale-down delay, the last one stays",
			mode: Reactive,
			steps: []step{
				{0, Observation{Capacity: capacity, Cloud: ready(1, node("n1", 1000, true, cpu(1000)), node("n2", 0, true), node("n3", 0, true))}, Decision{Action: None}},
				{5 * time.Minute, Observation{Capacity: capacity, Cloud: ready(1, node("n1", 1000, true, cpu(1000)), node("n2", 0, true), node("n3", 0, true))}, Decision{Action: None}},
				{10 * time.Minute, Observation{Capacity: capacity, Cloud: ready(1, node("n1", 1000, true, cpu(1000)), node("n2", 0, true), node("n3", 0, true))},
					Decision{Action: RemoveNodes, Remove: []string{"n2", "n3"}, Reason: "pods fit on the other cloud nodes for 10m0s"}},
				{11 * time.Minute, Observation{Capacity: capacity, Cloud: ready(1, node("n1", 1000, true, cpu(1000)))}, Decision{Action: None}},
				{25 * time.Minute, Observation{Capacity: capacity, Cloud: ready(1, node("n1", 1000, true, cpu(1000)))}, Decision{Action: None}},
			},
		},
		{
			name: "a busy node stays",
			mode: Reactive,
			steps: []step{
				{0, Observation{Capacity: capacity, Cloud: ready(2, node("n1", 3000, true, cpu(3000)), node("n2", 3000, true, cpu(3000)))}, Decision{Action: None}},
				{20 * time.Minute, Observation{Capacity: capacity, Cloud: ready(2, node("n1", 3000, true, cpu(3000)), node("n2", 3000, true, cpu(3000)))}, Decision{Action: None}},
			},
		},
		{
			name: "an idle cloud cluster is removed after the de-provisioning delay",
			mode: Predictive,
			steps: []step{
				{0, Observation{Capacity: capacity, Demand: cpu(20000), Cloud: ready(0, node("n1", 0, true))}, Decision{Action: None}},
				{19 * time.Minute, Observation{Capacity: capacity, Demand: cpu(20000), Cloud: ready(0, node("n1", 0, true))}, Decision{Action: None}},
				{20 * time.Minute, Observation{Capacity: capacity, Demand: cpu(20000), Cloud: ready(0, node("n1", 0, true))},
					Decision{Action: RemoveCluster, Reason: "no workload in the cloud cluster for 20m0s"}},
			},
		},
		{
			name: "nothing goes while a node is coming, then what stayed unneeded goes",
			mode: Reactive,
			steps: []step{
				{0, Observation{Capacity: capacity, Cloud: ready(1, node("n1", 3000, true, cpu(3000)), node("n2", 0, true), node("n3", 0, false))}, Decision{Action: None}},
				{10 * time.Minute, Observation{Capacity: capacity, Cloud: ready(1, node("n1", 3000, true, cpu(3000)), node("n2", 0, true), node("n3", 0, false))}, Decision{Action: None}},
				{11 * time.Minute, Observation{Capacity: capacity, Cloud: ready(1, node("n1", 3000, true, cpu(3000)), node("n2", 0, true), node("n3", 0, true))},
					Decision{Action: RemoveNodes, Remove: []string{"n2"}, Reason: "pods fit on the other cloud nodes for 10m0s"}},
			},
		},
		{
			name: "predictive lets a node the forecast does not need go after the node delay",
			mode: Predictive,
			steps: []step{
				{0, inCloud(rising(40, nil), ready(1, node("n1", 0, true), node("n2", 3000, true, cpu(3000)))), Decision{Action: None}},
				{time.Minute, inCloud(rising(40, nil), ready(1, node("n1", 0, true), node("n2", 3000, true, cpu(3000)))), Decision{Action: None}},
				{2 * time.Minute, inCloud(rising(40, nil), ready(1, node("n1", 0, true), node("n2", 3000, true, cpu(3000)))),
					Decision{Action: RemoveNodes, Remove: []string{"n1"}, Reason: "pods fit on the other cloud nodes for 2m0s"}},
			},
		},
		{
			name: "predictive keeps a node the rising demand needs, and lets it go when the demand stops rising",
			mode: Predictive,
			steps: []step{
				{0, inCloud(rising(40, nil), ready(1, node("n2", 3000, true, cpu(3000)))), Decision{Action: None}},
				{4 * time.Minute, inCloud(rising(44, nil), ready(1, node("n2", 3000, true, cpu(3000)))), Decision{Action: None}},
				// 1 replica/min: the forecast over the node delay and a
				// period wants room for 3 more and the largest, which only
				// n1 has.
				{10 * time.Minute, inCloud(rising(50, nil), ready(1, node("n1", 0, true), node("n2", 3000, true, cpu(3000)))), Decision{Action: None}},
				{14 * time.Minute, inCloud(rising(52, nil), ready(1, node("n1", 0, true), node("n2", 3000, true, cpu(3000)))), Decision{Action: None}},
				{18 * time.Minute, inCloud(rising(52, nil), ready(1, node("n1", 0, true), node("n2", 3000, true, cpu(3000)))), Decision{Action: None}},
				// Flat over the window that starts at 12 minutes (samples at
				// 14, 18, 22): n1 is a candidate from 22 minutes on.
				{22 * time.Minute, inCloud(rising(52, nil), ready(1, node("n1", 0, true), node("n2", 3000, true, cpu(3000)))), Decision{Action: None}},
				{23 * time.Minute, inCloud(rising(52, nil), ready(1, node("n1", 0, true), node("n2", 3000, true, cpu(3000)))), Decision{Action: None}},
				{24 * time.Minute, inCloud(rising(52, nil), ready(1, node("n1", 0, true), node("n2", 3000, true, cpu(3000)))),
					Decision{Action: RemoveNodes, Remove: []string{"n1"}, Reason: "pods fit on the other cloud nodes for 2m0s"}},
			},
		},
		{
			name: "reactive keeps a node above the scale-down utilization although its pods fit elsewhere",
			mode: Reactive,
			steps: []step{
				{0, inCloud(rising(40, free), ready(2, busy, roomy)), Decision{Action: None}},
				{20 * time.Minute, inCloud(rising(40, free), ready(2, busy, roomy)), Decision{Action: None}},
			},
		},
		{
			name: "predictive drains a busy node whose pods fit elsewhere once the demand is settled",
			mode: Predictive,
			steps: []step{
				{0, inCloud(rising(40, free), ready(2, busy, roomy)), Decision{Action: None}},
				{time.Minute, inCloud(rising(40, free), ready(2, busy, roomy)), Decision{Action: None}},
				{2 * time.Minute, inCloud(rising(40, free), ready(2, busy, roomy)),
					Decision{Action: RemoveNodes, Drain: []string{"busy"}, Reason: "pods fit on the other cloud nodes for 2m0s"}},
			},
		},
		{
			name: "predictive keeps a busy node while the demand rises, though the forecast fits without it",
			mode: Predictive,
			steps: []step{
				{0, rising(40, free), Decision{Action: None, Reason: "member clusters have room"}},
				{2 * time.Minute, rising(42, free), Decision{Action: None, Reason: "member clusters have room"}},
				{4 * time.Minute, rising(44, free), Decision{Action: None, Reason: "member clusters have room"}},
				// 1 replica/min: room for 4 more of 1 CPU, which the
				// members' free space holds with or without the busy node.
				{6 * time.Minute, inCloud(rising(46, free), ready(2, busy, roomy)), Decision{Action: None}},
				{8 * time.Minute, inCloud(rising(48, free), ready(2, busy, roomy)), Decision{Action: None}},
				{12 * time.Minute, inCloud(rising(52, free), ready(2, busy, roomy)), Decision{Action: None}},
			},
		},
		{
			name: "predictive drains the node that frees the most room first",
			mode: Predictive,
			steps: []step{
				{0, inCloud(rising(40, free), ready(2, big, small)), Decision{Action: None}},
				{2 * time.Minute, inCloud(rising(40, free), ready(2, big, small)),
					Decision{Action: RemoveNodes, Drain: []string{"big"}, Reason: "pods fit on the other cloud nodes for 2m0s"}},
			},
		},
		{
			name: "reactive drains the least requested node first",
			mode: Reactive,
			steps: []step{
				{0, inCloud(rising(40, free), ready(2, big, small)), Decision{Action: None}},
				{10 * time.Minute, inCloud(rising(40, free), ready(2, big, small)),
					Decision{Action: RemoveNodes, Drain: []string{"small"}, Reason: "pods fit on the other cloud nodes for 10m0s"}},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { decideSteps(t, New(config(tc.mode)), tc.steps) })
	}
}

// decideSteps has p decide on each step's observation at its time, in
// order, and reports the decisions that differ from the step's; the
// trend is TestTrend's.
func decideSteps(t *testing.T, p *Provisioner, steps []step) {
	t.Helper()
	for _, s := range steps {
		s.obs.Now = start.Add(s.at)
		got := p.Decide(s.obs)
		got.Trend = ""
		if diff := cmp.Diff(s.want, got); diff != "" {
			t.Errorf("at %v (-want +got):\n%s", s.at, diff)
		}
	}
}

// TestTrend checks the trend a decision reports: none in reactive mode or
// before the history spans half the window, Rising while the forecast
// expects a rise over the node delay, Settled once it does not.
func TestTrend(t *testing.T) {
	var free []placement.Resources
	for range 10 {
		free = append(free, cpu(1000))
	}
	demand := []int64{40, 44, 48, 52, 52, 52, 52, 52, 52, 52, 52, 52, 52}
	want := map[Mode][]Trend{
		Reactive: {"", "", "", "", "", "", "", "", "", "", "", "", ""},
		// The slope is the lower of the window's and its last half's: the
		// demand is settled once the last half (three samples) is flat, at
		// minute 10, though the 10-minute window rises until minute 16.
		Predictive: {"", "", "", Rising, Rising, Settled, Settled, Settled, Settled, Settled, Settled, Settled, Settled},
	}
	for mode, trends := range want {
		p := New(config(mode))
		var got []Trend
		for i, n := range demand {
			o := rising(n, free)
			o.Now = start.Add(time.Duration(i) * 2 * time.Minute)
			got = append(got, p.Decide(o).Trend)
		}
		if diff := cmp.Diff(trends, got); diff != "" {
			t.Errorf("%s: trends every 2 minutes (-want +got):\n%s", mode, diff)
		}
	}
}

func TestValidate(t *testing.T) {
	bad := config(Predictive)
	bad.TargetUtilization = 0
	mixed := config(Reactive)
	mixed.Flavors[1].PricePerHour = money.New(resource.MustParse("0.4"), "EUR")
	unpriced := config(Reactive)
	unpriced.Flavors[0].PricePerHour = money.Money{}
	negative := config(Reactive)
	negative.Flavors[1].PricePerHour = usd("-0.4")
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"valid", config(Predictive), ""},
		{"mode", Config{Mode: "Sometimes"}, `mode "Sometimes": must be "Reactive" or "Predictive"`},
		{"target utilization", bad, "targetUtilization 0: must be in (0, 1]"},
		{"flavors in two currencies", mixed, `flavors[1] "xlarge": pricePerHour is in EUR and flavors[0] "large" in USD; flavors are compared by price, so every one must be in the same currency: ` + money.ErrMixedCurrencies.Error()},
		{"an unpriced flavor beside a priced one costs nothing", unpriced, ""},
		{"a negative price", negative, `flavors[1] "xlarge": pricePerHour -0.4000 USD must be at least 0`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ""
			if err := tc.cfg.Validate(); err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Validate (-want +got):\n%s", diff)
			}
		})
	}
}
