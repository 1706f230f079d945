package sim

import (
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/meridian-dev/meridian/internal/autoscale"
	"github.com/meridian-dev/meridian/internal/decide"
	"github.com/meridian-dev/meridian/internal/money"
	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/provision"
	"github.com/meridian-dev/meridian/internal/sim/cluster"
	"github.com/meridian-dev/meridian/internal/sim/engine"
	"github.com/meridian-dev/meridian/internal/sim/scenario"
	"github.com/meridian-dev/meridian/internal/sim/workload"
)

// epoch is the wall-clock time virtual time zero maps to, for the packages
// that take a time.Time.
var epoch = time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC)

// member is one member cluster of the run, on premises or in the cloud.
type member struct {
	*cluster.Cluster
	info  placement.Cluster
	cloud bool
	// scheduled counts the replicas ever bound in the cluster.
	scheduled int
	// down is true while the member is cut off (scenario.Outage), since
	// downSince.
	down      bool
	downSince time.Duration
}

// world is one policy's run of a scenario.
type world struct {
	ctx    context.Context
	sc     *scenario.Scenario
	pol    scenario.Policy
	eng    engine.Engine
	placer Placer

	members []*member // on-premises clusters, then the cloud cluster
	byName  map[string]*member
	latency placement.Latency
	cloud   *cloudState
	prov    *provision.Provisioner
	// trend is the provisioner's forecast at its last pass, as the
	// CloudProvisioner's status.demandTrend shows it.
	trend provision.Trend

	active  []*mcWorkload // in submission order
	byKey   map[string]*mcWorkload
	nextPod int64
	// version changes whenever a cluster's nodes or pods change, so a
	// snapshot of the same version can be reused.
	version uint64
	snap    *placement.Snapshot
	snapAt  time.Duration
	snapVer uint64
	// retrying says a pass of the waiting workloads is due, retryAll that
	// it is of every Deployment.
	retrying, retryAll bool
	// membersChangedAt is when a member last came, went or changed
	// readiness, which the provisioner's pass waits provision.SettleTime
	// after.
	membersChangedAt time.Time

	// assumptions and timing are the deployment controller's, as in
	// package decide.
	assumptions *placement.Assumptions
	timing      decide.Timing

	rec       *recorder
	decisions []time.Duration
	movedBack int
	leftCloud int
	// scheduledGone counts the replicas bound in clusters since removed.
	scheduledGone map[string]int
	completed     int
	// completedJobs are the jobs that ran all their completions.
	completedJobs []*mcWorkload
	evicted       int
	events        []Event
	err           error
}

// mcWorkload is one multi-cluster workload of the run: a task or a service.
type mcWorkload struct {
	// spec is the workload as workload.New makes it from the object's spec,
	// as the controllers do; generation counts the changes of its replicas.
	spec       *placement.Workload
	generation int64
	// deployments are the member Deployments of a Deployment workload,
	// jobs the member Jobs of a job.
	deployments map[string]*memberDeployment
	jobs        map[string]*memberJob
	// assumed is whether a job's placement is in the assumptions.
	assumed bool
	// lastPullBack is when the re-scheduler last considered the workload.
	lastPullBack time.Time
	// progress is what a Deployment's last pass left undone.
	progress decide.Progress
	// passAt is when the next pass of the workload's controller is due;
	// negative when none is.
	passAt time.Duration
	// desired is the replicas asked for; completed the job replicas that
	// finished (they are no longer asked for).
	desired   int32
	completed int32
	pods      []*cluster.Pod
	duration  time.Duration
	hpa       *autoscale.Autoscaler
	load      *workload.Load
	done      bool
}

// asked is how many replicas the workload asks for now.
func (w *mcWorkload) asked() int32 { return w.desired - w.completed }

// unplaced is how many replicas asked for have no pod.
func (w *mcWorkload) unplaced() int32 { return max(0, w.asked()-int32(len(w.pods))) }

// counts returns the workload's pods per cluster, all or Running only.
func (w *mcWorkload) counts(runningOnly bool) map[string]int32 {
	out := map[string]int32{}
	for _, p := range w.pods {
		if !runningOnly || p.Running() {
			out[p.Cluster.Name]++
		}
	}
	return out
}

// podState is the simulator's bookkeeping for one pod.
type podState struct {
	w *mcWorkload
	// member is the cluster the pod was created in.
	member *member
	// boundAt is when the pod was bound, used to match a completion to the
	// binding that scheduled it; createdAt when it was created.
	boundAt   time.Duration
	createdAt time.Duration
	alive     bool
}

func newWorld(ctx context.Context, sc *scenario.Scenario, pol scenario.Policy, placer Placer) (*world, error) {
	w := &world{
		ctx: ctx, sc: sc, pol: pol, placer: placer,
		byName: map[string]*member{},
		byKey:  map[string]*mcWorkload{},

		scheduledGone: map[string]int{},
		assumptions:   placement.NewAssumptions(),
		timing: decide.Timing{
			PendingGrace:    sc.Controllers.PendingGrace,
			FailoverGrace:   sc.Controllers.FailoverGrace,
			Resync:          decide.DefaultTiming.Resync,
			MoveCheck:       decide.DefaultTiming.MoveCheck,
			UnplacedRetry:   decide.DefaultTiming.UnplacedRetry,
			TrafficInterval: sc.Controllers.TrafficInterval,
		},
	}
	w.latency = latencyOf(sc)
	for _, c := range sc.Clusters {
		m := &member{Cluster: cluster.New(c.Name), info: placement.Cluster{
			Name: c.Name, Labels: c.Labels, Region: c.Region, Provider: c.Provider, Ready: true,
		}}
		n := 0
		for _, pool := range c.Nodes {
			for range pool.Count {
				n++
				m.Nodes = append(m.Nodes, cluster.NewNode(fmt.Sprintf("%s-node-%d", c.Name, n), placement.Resources{
					MilliCPU: pool.CPU.MilliValue(), Memory: pool.Memory.Value(), Pods: pool.Pods,
				}))
			}
		}
		w.addMember(m)
	}
	if pol.Provisioning != "" && sc.Cloud != nil {
		w.prov = provision.New(provisionConfig(sc, pol))
		if err := w.prov.Config().Validate(); err != nil {
			return nil, fmt.Errorf("invalid provisioner configuration of policy %q: %w", pol.Name, err)
		}
	}
	w.rec = newRecorder(w)
	return w, nil
}

func (w *world) addMember(m *member) {
	m.OnBind = w.onBind
	w.members = append(w.members, m)
	w.byName[m.Name] = m
	w.version++
}

func (w *world) removeMember(m *member) {
	for i, x := range w.members {
		if x == m {
			w.members = append(w.members[:i], w.members[i+1:]...)
			break
		}
	}
	delete(w.byName, m.Name)
	w.scheduledGone[m.Name] += m.scheduled
	// The member is gone with its Deployments and the pods they made.
	for _, wl := range w.active {
		delete(wl.deployments, m.Name)
		delete(wl.jobs, m.Name)
		wl.pods = slices.DeleteFunc(wl.pods, func(p *cluster.Pod) bool {
			if p.Cluster != m.Cluster {
				return false
			}
			p.Data.(*podState).alive = false
			return true
		})
	}
	w.version++
}

func latencyOf(sc *scenario.Scenario) placement.Latency {
	l := placement.Latency{}
	set := func(a, b string, d time.Duration) {
		if l[a] == nil {
			l[a] = map[string]time.Duration{}
		}
		l[a][b] = d
	}
	for a, row := range sc.LatencyMs {
		for b, ms := range row {
			d := time.Duration(ms * float64(time.Millisecond))
			set(a, b, d)
			set(b, a, d)
		}
	}
	return l
}

func provisionConfig(sc *scenario.Scenario, pol scenario.Policy) provision.Config {
	c := sc.Cloud
	cfg := provision.Config{
		Mode:     provision.Mode(pol.Provisioning),
		MinNodes: c.MinNodes, MaxNodes: c.MaxNodes,
		ClusterDelay: c.ClusterDelay, NodeDelay: c.NodeDelay,
		Period:         sc.Controllers.ProvisionerPeriod,
		ScaleDownDelay: c.ScaleDownDelay, ScaleDownUtilization: c.ScaleDownUtilization,
		DeprovisionDelay:  c.DeprovisionDelay,
		TargetUtilization: pol.TargetUtilization,
		TrendWindow:       pol.TrendWindow,
	}
	for _, f := range c.Flavors {
		var price money.Money
		if p := f.PricePerHour; p != nil {
			price = money.New(p.Amount, p.Currency)
		}
		cfg.Flavors = append(cfg.Flavors, provision.Flavor{
			Name:         f.Name,
			Allocatable:  placement.Resources{MilliCPU: f.CPU.MilliValue(), Memory: f.Memory.Value(), Pods: f.Pods},
			PricePerHour: price,
		})
	}
	return cfg
}

// podTemplate is the pod a workload's replicas are made from, so that
// their requests go through placement.PodRequests as a real pod's would.
func podTemplate(cpuMilli, memory int64) *corev1.Pod {
	return &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{
		Name: "main",
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU:    *resourceMilli(cpuMilli),
			corev1.ResourceMemory: *resourceBytes(memory),
		}},
	}}}}
}

func (w *world) now() time.Time { return epoch.Add(w.eng.Now()) }

// fail records the first error; the run stops at the next event.
func (w *world) fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

func (w *world) event(kind, format string, args ...any) {
	w.events = append(w.events, Event{AtSeconds: seconds(w.eng.Now()), Kind: kind, Message: fmt.Sprintf(format, args...)})
}
