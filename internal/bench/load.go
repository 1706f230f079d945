package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/testbed"
)

// LoadNamespace holds the load benchmark's MultiClusterDeployments.
const LoadNamespace = "meridian-load"

// LoadOptions say what the load benchmark does.
type LoadOptions struct {
	// Testbed is the running testbed to load.
	Testbed *testbed.Testbed
	// Binary is the meridian executable that runs `meridian controller`.
	Binary string
	// Burst is how many MultiClusterDeployments are created at once.
	Burst int
	// ColdStart is how many MultiClusterDeployments exist when the
	// controller starts again: the Burst ones plus ColdStart-Burst made
	// while it was stopped. Zero skips the cold start; otherwise it must be
	// more than Burst.
	ColdStart int
	// Fill is the share of the members' CPU the burst asks for (0.75 when
	// zero), so that placing anything twice would over-commit a member.
	Fill float64
	// Timeout bounds each phase.
	Timeout time.Duration
	// LogDir receives the controller's log (controller.log).
	LogDir string
	// Progress receives a line every few seconds.
	Progress io.Writer
	// Cleanup deletes the MultiClusterDeployments at the end, and waits
	// until the controller has removed them, for a testbed that stays up.
	Cleanup bool
	// Report, when set, receives the result before the cleanup, which can
	// take long.
	Report func(*LoadResult) error
}

// Check reports every setting that cannot work, naming it as the flag of
// `meridian bench load` that sets it; it needs no testbed, so a caller can
// check before starting one. Load checks again.
func (o *LoadOptions) Check() error {
	var errs []error
	if o.Burst < 1 {
		errs = append(errs, fmt.Errorf("invalid --burst %d: must be at least 1", o.Burst))
	}
	if o.ColdStart != 0 && o.ColdStart <= o.Burst {
		errs = append(errs, fmt.Errorf("invalid --cold-start %d: must be 0 (no cold start) or more than --burst (%d)", o.ColdStart, o.Burst))
	}
	if o.Fill < 0 || o.Fill > 1 {
		errs = append(errs, fmt.Errorf("invalid --fill %g: must be in (0, 1] (0 for the default, 0.75)", o.Fill))
	}
	return errors.Join(append(errs, checkTimeout(o.Timeout))...)
}

// checkTimeout refuses a benchmark's --timeout that is not positive.
func checkTimeout(d time.Duration) error {
	if d <= 0 {
		return fmt.Errorf("invalid --timeout %s: must be positive", d)
	}
	return nil
}

// checkRun refuses a benchmark run without a testbed or a meridian
// executable to run the controller.
func checkRun(tb *testbed.Testbed, binary string) error {
	var errs []error
	if tb == nil {
		errs = append(errs, errors.New("testbed: a running testbed is required"))
	}
	if binary == "" {
		errs = append(errs, errors.New("binary: the meridian executable is required"))
	}
	return errors.Join(errs...)
}

func (o *LoadOptions) validate() error {
	errs := []error{o.Check(), checkRun(o.Testbed, o.Binary)}
	if o.Fill == 0 {
		o.Fill = 0.75
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	return errors.Join(errs...)
}

// LoadResult is what the load benchmark measured.
type LoadResult struct {
	Burst BurstResult
	// Cold is the start over ColdStart MultiClusterDeployments of which
	// ColdStart-Burst were new; Restart the start after it, over the same
	// ones all placed. Both are zero when no cold start ran.
	Cold, Restart StartResult
	// CPUPerPod is the CPU each burst pod asked for.
	CPUPerPod resource.Quantity
}

// BurstResult is the burst phase.
type BurstResult struct {
	// MCDs were created at once, asking for Pods replicas in all.
	MCDs, Pods int
	// Created is how long creating them took; Placed, from the first
	// creation until every one said Placed with its member Deployments
	// holding the asked replicas.
	Created, Placed time.Duration
	// Running is until every pod ran (zero if they did not within the
	// timeout); Phases counts the pods by phase at the end.
	Running time.Duration
	Phases  map[corev1.PodPhase]int
	// Usage is each member's requests against its allocatable.
	Usage []usage
	// Memory is the controller's at the end.
	Memory memory
}

// StartResult is one start of the controller over existing objects.
type StartResult struct {
	MCDs int
	// Drained is from the start until the work queue was empty after every
	// object had been reconciled once; Current, until every object's
	// status was of its generation and said Placed.
	Drained, Current time.Duration
	// Reconciles and Errors are the controller's counts at Drained.
	Reconciles, Errors float64
	Memory             memory
}

// memory is a process's resident set, now and at its peak, in bytes.
type memory struct{ RSS, Peak int64 }

// Load runs the load benchmark on o.Testbed: a burst of MultiClusterDeployments
// created at once, then a cold start and a restart of the controller over
// many.
func Load(ctx context.Context, o LoadOptions) (*LoadResult, error) {
	if err := o.validate(); err != nil {
		return nil, fmt.Errorf("invalid load options: %w", err)
	}
	l, err := startLoader(ctx, o)
	if err != nil {
		return nil, err
	}
	defer l.stop()
	if err := l.prepare(ctx); err != nil {
		return nil, err
	}
	res := &LoadResult{}
	if res.Burst, res.CPUPerPod, err = l.burst(ctx); err != nil {
		return res, fmt.Errorf("burst: %w", err)
	}
	if o.ColdStart > o.Burst {
		if res.Cold, err = l.coldStart(ctx, o.ColdStart-o.Burst); err != nil {
			return res, fmt.Errorf("cold start: %w", err)
		}
		fmt.Fprintf(o.Progress, "load: restart over %d placed MultiClusterDeployments\n", o.ColdStart)
		if res.Restart, err = l.restart(ctx, o.ColdStart); err != nil {
			return res, fmt.Errorf("restart: %w", err)
		}
	}
	if o.Report != nil {
		if err := o.Report(res); err != nil {
			return res, err
		}
	}
	if o.Cleanup {
		if err := l.cleanup(ctx); err != nil {
			return res, err
		}
	}
	return res, nil
}

// loader holds the benchmark's clients and the controller it runs.
type loader struct {
	o       LoadOptions
	mgmt    client.Client
	members map[string]client.Client
	ctrl    *controllerProcess
	log     string
}

func newLoader(o LoadOptions) (*loader, error) {
	l := &loader{o: o, members: map[string]client.Client{}, log: filepath.Join(o.LogDir, "controller.log")}
	var err error
	if l.mgmt, err = fastClient(o.Testbed.Management()); err != nil {
		return nil, err
	}
	for _, m := range o.Testbed.Members() {
		if l.members[m.Name], err = fastClient(m); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// fastClient is a client of c without client-side rate limits, so that
// the benchmark creates its objects at once and its reads do not queue.
func fastClient(c *testbed.Cluster) (client.Client, error) {
	cfg := rest.CopyConfig(c.Config)
	cfg.QPS, cfg.Burst = 5000, 10000
	cl, err := client.New(cfg, client.Options{Scheme: testbed.Scheme()})
	if err != nil {
		return nil, fmt.Errorf("failed to create a client of cluster %q: %w", c.Name, err)
	}
	return cl, nil
}

// startLoader makes the benchmark's clients, starts the controller and
// waits, within o.Timeout, until it reports every member Ready. The
// caller stops the loader.
func startLoader(ctx context.Context, o LoadOptions) (*loader, error) {
	l, err := newLoader(o)
	if err != nil {
		return nil, err
	}
	if err := l.start(ctx); err != nil {
		return nil, err
	}
	if err := waitMembersReady(ctx, l.mgmt, o.Timeout); err != nil {
		l.stop()
		return nil, err
	}
	return l, nil
}

func (l *loader) start(ctx context.Context) error {
	p, err := startController(l.o.Binary, l.o.Testbed, l.log)
	if err != nil {
		return err
	}
	l.ctrl = p
	fmt.Fprintf(l.o.Progress, "load: controller started (pid %d, log %s, profiles at http://%s/debug/pprof/)\n", p.cmd.Process.Pid, l.log, p.pprof)
	return nil
}

func (l *loader) stop() {
	if l.ctrl != nil {
		l.ctrl.stop()
		l.ctrl = nil
	}
}

// prepare makes the namespace, which must hold no MultiClusterDeployment
// yet.
func (l *loader) prepare(ctx context.Context) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: LoadNamespace}}
	if err := l.mgmt.Create(ctx, ns); client.IgnoreAlreadyExists(err) != nil {
		return fmt.Errorf("failed to create namespace %s: %w", LoadNamespace, err)
	}
	var list multiclusterv1alpha1.MultiClusterDeploymentList
	if err := l.mgmt.List(ctx, &list, client.InNamespace(LoadNamespace), client.Limit(1)); err != nil {
		return fmt.Errorf("failed to list MultiClusterDeployments: %w", err)
	}
	if len(list.Items) > 0 {
		return fmt.Errorf("namespace %s already holds MultiClusterDeployments (an earlier run's?); delete them first: kubectl delete multiclusterdeployments -n %s --all", LoadNamespace, LoadNamespace)
	}
	return nil
}

// burst creates o.Burst MultiClusterDeployments at once and waits until all
// are placed and their member Deployments exist.
func (l *loader) burst(ctx context.Context) (BurstResult, resource.Quantity, error) {
	ctx, cancel := context.WithTimeout(ctx, l.o.Timeout)
	defer cancel()
	capacity, _, err := readUsage(ctx, l.members, LoadNamespace)
	if err != nil {
		return BurstResult{}, resource.Quantity{}, err
	}
	cpu, err := burstSize(capacity, l.o.Burst, l.o.Fill)
	if err != nil {
		return BurstResult{}, cpu, err
	}
	r := BurstResult{MCDs: l.o.Burst}
	objs := make([]*multiclusterv1alpha1.MultiClusterDeployment, l.o.Burst)
	for i := range objs {
		objs[i] = loadWorkload(fmt.Sprintf("load-%05d", i), burstReplicas(i), cpu)
		r.Pods += int(burstReplicas(i))
	}
	fmt.Fprintf(l.o.Progress, "load: creating %d MultiClusterDeployments at once (%d replicas of %s CPU and %s memory, BestFit)\n",
		l.o.Burst, r.Pods, cpu.String(), podMemory.String())
	begin := time.Now()
	if err := createAll(ctx, l.mgmt, objs, l.o.Progress); err != nil {
		return r, cpu, err
	}
	r.Created = time.Since(begin)
	err = l.poll(ctx, 2*time.Second, func() (bool, error) {
		p, err := readProgress(ctx, l.mgmt, l.members, LoadNamespace, true)
		if err != nil {
			return false, err
		}
		q, err := l.ctrl.readQueue(ctx)
		if err != nil {
			return false, err
		}
		fmt.Fprintf(l.o.Progress, "load: %6.1fs %s (controller: %.0f reconciles, queue depth %.0f)\n", time.Since(begin).Seconds(), p, q.Reconciles, q.Depth)
		return p.Placed == l.o.Burst && p.Deployed == l.o.Burst, nil
	})
	if err != nil {
		return r, cpu, fmt.Errorf("not all %d placed: %w", l.o.Burst, err)
	}
	r.Placed = time.Since(begin)
	if r.Usage, r.Phases, err = readUsage(ctx, l.members, LoadNamespace); err != nil {
		return r, cpu, err
	}
	for _, u := range r.Usage {
		f, which := u.utilization()
		fmt.Fprintf(l.o.Progress, "load: %s asked for %.1f%% of its %s\n", u.Member, 100*f, which)
	}
	// Pods: a member asked for no more than it holds runs them all; this
	// is the members' own word on it. Not reaching it is reported, not
	// fatal.
	_ = l.poll(ctx, 2*time.Second, func() (bool, error) {
		var err error
		if _, r.Phases, err = readUsage(ctx, l.members, LoadNamespace); err != nil {
			return false, err
		}
		fmt.Fprintf(l.o.Progress, "load: %6.1fs pods %s\n", time.Since(begin).Seconds(), phases(r.Phases))
		return r.Phases[corev1.PodRunning] == r.Pods, nil
	})
	if r.Phases[corev1.PodRunning] == r.Pods {
		r.Running = time.Since(begin)
	}
	if r.Memory.RSS, r.Memory.Peak, err = l.ctrl.memory(); err != nil {
		return r, cpu, err
	}
	return r, cpu, nil
}

// coldStart stops the controller, creates extra MultiClusterDeployments
// of no replicas, and times the controller's start over all of them.
func (l *loader) coldStart(ctx context.Context, extra int) (StartResult, error) {
	fmt.Fprintf(l.o.Progress, "load: controller stopped; creating %d more MultiClusterDeployments (0 replicas each)\n", extra)
	l.stop()
	objs := make([]*multiclusterv1alpha1.MultiClusterDeployment, extra)
	for i := range objs {
		objs[i] = loadWorkload(fmt.Sprintf("cold-%05d", i), 0, resource.MustParse("10m"))
	}
	cctx, cancel := context.WithTimeout(ctx, l.o.Timeout)
	defer cancel()
	if err := createAll(cctx, l.mgmt, objs, l.o.Progress); err != nil {
		return StartResult{}, err
	}
	return l.restart(ctx, l.o.ColdStart)
}

// restart stops the controller if it runs, starts it, and times until its
// queue is drained and every object's status is current.
func (l *loader) restart(ctx context.Context, total int) (StartResult, error) {
	ctx, cancel := context.WithTimeout(ctx, l.o.Timeout)
	defer cancel()
	l.stop()
	r := StartResult{MCDs: total}
	begin := time.Now()
	if err := l.start(ctx); err != nil {
		return r, err
	}
	err := l.poll(ctx, 2*time.Second, func() (bool, error) {
		q, err := l.ctrl.readQueue(ctx)
		if err != nil {
			fmt.Fprintf(l.o.Progress, "load: %6.1fs metrics not ready: %v\n", time.Since(begin).Seconds(), err)
			return false, nil
		}
		fmt.Fprintf(l.o.Progress, "load: %6.1fs reconciled %.0f (%.0f errors), queue depth %.0f\n", time.Since(begin).Seconds(), q.Reconciles, q.Errors, q.Depth)
		if q.drained() && q.Reconciles >= float64(total) {
			r.Drained, r.Reconciles, r.Errors = time.Since(begin), q.Reconciles, q.Errors
			return true, nil
		}
		return false, nil
	})
	if err != nil {
		return r, fmt.Errorf("queue not drained: %w", err)
	}
	err = l.poll(ctx, 2*time.Second, func() (bool, error) {
		p, err := readProgress(ctx, l.mgmt, l.members, LoadNamespace, false)
		if err != nil {
			return false, err
		}
		fmt.Fprintf(l.o.Progress, "load: %6.1fs %s\n", time.Since(begin).Seconds(), p)
		return p.Total == total && p.Current == total && p.Placed == total, nil
	})
	if err != nil {
		return r, fmt.Errorf("not every status current: %w", err)
	}
	r.Current = time.Since(begin)
	var errMem error
	r.Memory.RSS, r.Memory.Peak, errMem = l.ctrl.memory()
	return r, errMem
}

// cleanup deletes every MultiClusterDeployment of the load namespace and
// waits until the controller has removed them and their member objects.
func (l *loader) cleanup(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, l.o.Timeout)
	defer cancel()
	// One request each, many in flight: a collection delete of thousands
	// outlasts the API server's request timeout.
	var list multiclusterv1alpha1.MultiClusterDeploymentList
	if err := l.mgmt.List(ctx, &list, client.InNamespace(LoadNamespace)); err != nil {
		return fmt.Errorf("failed to list the MultiClusterDeployments to delete: %w", err)
	}
	objs := make([]*multiclusterv1alpha1.MultiClusterDeployment, len(list.Items))
	for i := range list.Items {
		objs[i] = &list.Items[i]
	}
	err := inParallel(ctx, objs, l.o.Progress, "load: deleted", func(d *multiclusterv1alpha1.MultiClusterDeployment) error {
		if err := client.IgnoreNotFound(l.mgmt.Delete(ctx, d)); err != nil {
			return fmt.Errorf("failed to delete MultiClusterDeployment %s: %w", d.Name, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return l.poll(ctx, 2*time.Second, func() (bool, error) {
		p, err := readProgress(ctx, l.mgmt, l.members, LoadNamespace, false)
		if err != nil {
			return false, err
		}
		fmt.Fprintf(l.o.Progress, "load: cleaning up, %d MultiClusterDeployments left\n", p.Total)
		return p.Total == 0, nil
	})
}

// poll calls check every interval until it says done, fails, the
// controller exits or ctx ends.
func (l *loader) poll(ctx context.Context, interval time.Duration, check func() (bool, error)) error {
	for {
		done, err := check()
		if err != nil || done {
			return err
		}
		if err := l.ctrl.exited(); err != nil {
			return fmt.Errorf("%w (see %s)", err, l.log)
		}
		if err := sleep(ctx, interval); err != nil {
			return err
		}
	}
}

// createAll creates objs with many requests in flight, and reports every
// few seconds.
func createAll(ctx context.Context, c client.Client, objs []*multiclusterv1alpha1.MultiClusterDeployment, progress io.Writer) error {
	return inParallel(ctx, objs, progress, "load: created", func(d *multiclusterv1alpha1.MultiClusterDeployment) error {
		if err := c.Create(ctx, d); err != nil {
			return fmt.Errorf("failed to create MultiClusterDeployment %s: %w", d.Name, err)
		}
		return nil
	})
}

// inParallel calls f on every object with many calls in flight, reports
// every few seconds how many are done, and stops at the first error.
func inParallel[T any](ctx context.Context, objs []T, progress io.Writer, verb string, f func(T) error) error {
	const workers = 64
	var (
		next, done atomic.Int64
		wg         sync.WaitGroup
		errs       = make([]error, workers)
	)
	stop := make(chan struct{})
	go func() {
		t := time.NewTicker(3 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				fmt.Fprintf(progress, "%s %d of %d\n", verb, done.Load(), len(objs))
			}
		}
	}()
	defer close(stop)
	for w := range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(objs) || ctx.Err() != nil {
					return
				}
				if err := f(objs[i]); err != nil {
					errs[w] = err
					next.Add(int64(len(objs))) // the others stop too
					return
				}
				done.Add(1)
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// podMemory is the memory each load pod asks for.
var podMemory = resource.MustParse("32Mi")

// burstReplicas is the i-th burst workload's size: 1, 2 or 3.
func burstReplicas(i int) int32 { return int32(1 + i%3) }

// burstSize returns the CPU each burst pod asks for so that the burst
// fills fill of the members' CPU, and refuses a burst the members cannot
// hold.
func burstSize(capacity []usage, n int, fill float64) (resource.Quantity, error) {
	var cpu, pods, mem int64
	for _, u := range capacity {
		cpu += ptr.To(u.Allocatable[corev1.ResourceCPU]).MilliValue()
		pods += ptr.To(u.Allocatable[corev1.ResourcePods]).Value()
		mem += ptr.To(u.Allocatable[corev1.ResourceMemory]).Value()
	}
	var want int64
	for i := range n {
		want += int64(burstReplicas(i))
	}
	per := int64(fill * float64(cpu) / float64(want))
	switch {
	case want > pods*8/10:
		return resource.Quantity{}, fmt.Errorf("burst: %d MultiClusterDeployments ask for %d pods; the members hold %d pods, and the burst may fill at most 80%% of them", n, want, pods)
	case want*podMemory.Value() > mem:
		return resource.Quantity{}, fmt.Errorf("burst: %d MultiClusterDeployments ask for %d pods of %s; the members have %s of memory", n, want, podMemory.String(), resource.NewQuantity(mem, resource.BinarySI))
	case per < 1:
		return resource.Quantity{}, fmt.Errorf("burst: %d MultiClusterDeployments ask for %d pods; the members' %dm CPU leave less than 1m each", n, want, cpu)
	}
	return *resource.NewMilliQuantity(per, resource.DecimalSI), nil
}

// loadWorkload is one load MultiClusterDeployment: pods of cpu and
// podMemory, placed BestFit, which packs the fullest member that fits, so
// that room promised twice would show as an over-committed member.
func loadWorkload(name string, replicas int32, cpu resource.Quantity) *multiclusterv1alpha1.MultiClusterDeployment {
	d := &multiclusterv1alpha1.MultiClusterDeployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: LoadNamespace}}
	d.Spec.Replicas = ptr.To(replicas)
	d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}
	d.Spec.Template.Labels = map[string]string{"app": name}
	d.Spec.Template.Spec.Containers = []corev1.Container{{
		Name: "app", Image: "registry.k8s.io/pause",
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU: cpu, corev1.ResourceMemory: podMemory,
		}},
	}}
	d.Spec.Placement = multiclusterv1alpha1.Placement{Policy: multiclusterv1alpha1.BestFit}
	return d
}

func phases(p map[corev1.PodPhase]int) string {
	return fmt.Sprintf("Running %d, Pending %d, other %d", p[corev1.PodRunning], p[corev1.PodPending],
		total(p)-p[corev1.PodRunning]-p[corev1.PodPending])
}

func total(p map[corev1.PodPhase]int) int {
	n := 0
	for _, v := range p {
		n += v
	}
	return n
}
