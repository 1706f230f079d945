package chaos_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/testenv"
)

// Defaults of the run's size; MERIDIAN_CHAOS_KILLS and
// MERIDIAN_CHAOS_REPLICAS override them (the full run is 100 kills). Two
// replicas by default, so that a kill of the leader hands the lease over.
const (
	defaultKills    = 5
	defaultReplicas = 2
	// settleTimeout bounds the wait for the members to match the specs
	// after a restart: a killed leader's lease (15 s) runs out, the new
	// leader syncs its caches and the pending grace passes.
	settleTimeout = 3 * time.Minute
	namespace     = "chaos"
)

func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("invalid %s %q: want a positive whole number", name, v)
	}
	return n
}

// TestControllerKills kills the controller with SIGKILL at random moments
// while a driver creates, scales, moves (fills a member so that replicas
// are substituted or burst elsewhere, frees it so that the re-scheduler
// pulls them back) and deletes MultiClusterDeployments and
// MultiClusterJobs, restarts it, and after every restart (once settled)
// and at the end checks that the members hold exactly what the specs ask
// for.
func TestControllerKills(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping chaos test on real clusters in -short mode")
	}
	kills := envInt(t, "MERIDIAN_CHAOS_KILLS", defaultKills)
	replicas := envInt(t, "MERIDIAN_CHAOS_REPLICAS", defaultReplicas)
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("MERIDIAN_CHAOS_SEED"); v != "" {
		var err error
		if seed, err = strconv.ParseUint(v, 10, 64); err != nil {
			t.Fatalf("invalid MERIDIAN_CHAOS_SEED %q: %v", v, err)
		}
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	// MERIDIAN_CHAOS_JOBS=0 leaves MultiClusterJobs out of the driver.
	jobs := os.Getenv("MERIDIAN_CHAOS_JOBS") != "0"
	t.Logf("seed %d (MERIDIAN_CHAOS_SEED=%d repeats it), %d kills, %d controller replicas, MultiClusterJobs %v", seed, seed, kills, replicas, jobs)

	bin := testenv.MeridianBinary(t)
	w := startTestbed(t, 3)
	ctx := t.Context()
	var reps []*replica
	for i := range replicas {
		r := newReplica(t, w, bin, fmt.Sprintf("controller-%d", i), true)
		r.start()
		reps = append(reps, r)
	}
	if msg := waitFor(ctx, 2*time.Minute, func() string { return w.membersReady(ctx) }); msg != "" {
		t.Fatalf("members not Ready: %s", msg)
	}
	if err := w.mgmt.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}); err != nil {
		t.Fatal(err)
	}
	if err := w.startRescheduler(ctx); err != nil {
		t.Fatal(err)
	}

	d := &driver{w: w, rng: rng, jobs: jobs}
	total := newTally()
	var moves moveTally
	begin := time.Now()
	leaderKills := 0
	for k := 1; k <= kills; k++ {
		// A burst of changes, with the kill somewhere inside it, so that
		// it lands between reads and writes of a reconcile.
		ops := 2 + rng.IntN(4)
		killAt := rng.IntN(ops)
		var victim *replica
		for i := range ops {
			if i == killAt {
				time.Sleep(time.Duration(rng.IntN(1500)) * time.Millisecond)
				victim = pickVictim(reps, rng)
				if victim.leads() {
					leaderKills++
				}
				victim.kill()
			}
			if err := d.step(ctx); err != nil {
				t.Fatalf("kill %d: %v", k, err)
			}
		}
		victim.start()
		r, err := w.settle(ctx, settleTimeout)
		if err != nil {
			t.Fatalf("kill %d: %v", k, err)
		}
		total.add(fmt.Sprintf("after kill %d", k), r)
		if err := d.tallyMoves(ctx, &moves); err != nil {
			t.Fatal(err)
		}
		if !r.ok() {
			t.Errorf("after kill %d (ops so far: %d), not settled within %s:\n%s", k, d.ops, settleTimeout, r)
			break
		}
		t.Logf("kill %d settled (%d ops so far, %s)", k, d.ops, time.Since(begin).Round(time.Second))
	}
	for _, r := range reps {
		if !r.alive() {
			t.Errorf("a controller replica exited on its own; see its log")
		}
	}
	// The end: delete a few more, then everything must match the specs,
	// with the deleted workloads' member objects gone.
	for range 3 {
		if err := d.delete(ctx); err != nil {
			t.Fatal(err)
		}
	}
	r, err := w.settle(ctx, settleTimeout)
	if err != nil {
		t.Fatal(err)
	}
	total.add("at the end", r)
	total.log(t)
	t.Logf("%d of %d kills hit the leader", leaderKills, kills)
	movedBack, err := w.movedBack(ctx)
	if err != nil {
		t.Fatal(err)
	}
	moves.log(t, d.filled, d.freed, movedBack)
	t.Logf("%d kills, %d operations (%s) in %s", kills, d.ops, d.summary(), time.Since(begin).Round(time.Second))
	if !r.ok() {
		t.Errorf("at the end, not settled within %s:\n%s", settleTimeout, r)
	}
	// The replicas' logs, through every kill and restart, name no
	// credential of the members' kubeconfig Secrets.
	var logs []string
	for _, r := range reps {
		logs = append(logs, r.log)
	}
	assertNoSecretsLogged(t, w, logs...)
}

// driver makes random changes to a small set of workloads.
type driver struct {
	w   *world
	rng *rand.Rand
	// jobs adds MultiClusterJobs to the changes.
	jobs bool
	ops  int
	// kinds counts the changes by kind, as the final log prints them.
	kinds map[string]int
	// filled and freed count the moves' fills and frees of a member.
	filled, freed int
}

// count records one change of kind.
func (d *driver) count(kind string) {
	if d.kinds == nil {
		d.kinds = map[string]int{}
	}
	d.kinds[kind]++
}

// summary lists the changes by kind.
func (d *driver) summary() string {
	var parts []string
	for _, k := range []string{"create", "plain", "scale", "job", "move", "delete", "unpolicy"} {
		parts = append(parts, fmt.Sprintf("%d %s", d.kinds[k], k))
	}
	return strings.Join(parts, ", ")
}

// tallyMoves adds the replicas now away from home to m.
func (d *driver) tallyMoves(ctx context.Context, m *moveTally) error {
	substitute, burst, err := d.w.awayCounts(ctx)
	if err != nil {
		return err
	}
	m.add(substitute, burst)
	return nil
}

// Workload names come from small pools, so that names are reused after a
// delete (a new object of an old name must not inherit the old one's
// member objects).
const (
	deploymentNames = 8
	jobNames        = 4
)

// step makes one random change.
func (d *driver) step(ctx context.Context) error {
	d.ops++
	switch n := d.rng.IntN(14); {
	case n < 4:
		d.count("create")
		return d.createDeployment(ctx)
	case n < 6:
		d.count("scale")
		return d.scale(ctx)
	case n < 7 && d.jobs:
		d.count("job")
		return d.createJob(ctx)
	case n < 7:
		d.count("create")
		return d.createDeployment(ctx)
	case n < 9:
		d.count("move")
		return d.move(ctx)
	case n < 11:
		d.count("delete")
		return d.delete(ctx)
	case n < 13:
		d.count("plain")
		return d.createPlain(ctx)
	default:
		return d.deletePolicy(ctx)
	}
}

// createDeployment creates a MultiClusterDeployment of a free name: pinned
// to one member with substitution (overflow moves to the nearest member),
// with bursting (replicas pending at home past the grace burst to the
// nearest member), without either (overflow stays unplaced or pending), or
// WorstFit.
func (d *driver) createDeployment(ctx context.Context) error {
	name := fmt.Sprintf("d-%d", d.rng.IntN(deploymentNames))
	mcd := &multiclusterv1alpha1.MultiClusterDeployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}}
	mcd.Spec.Replicas = ptr.To(int32(1 + d.rng.IntN(12)))
	mcd.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}
	mcd.Spec.Template = podTemplate(name, 500+250*int64(d.rng.IntN(4)))
	member := multiclusterv1alpha1.ClusterName(d.w.names[d.rng.IntN(len(d.w.names))])
	switch d.rng.IntN(4) {
	case 0:
		mcd.Spec.Placement = multiclusterv1alpha1.Placement{
			Locations:    []multiclusterv1alpha1.ClusterName{member},
			Substitution: &multiclusterv1alpha1.Substitution{Enabled: true, Policy: multiclusterv1alpha1.SubstituteNearestFirst},
		}
	case 1:
		mcd.Spec.Placement = multiclusterv1alpha1.Placement{
			Locations: []multiclusterv1alpha1.ClusterName{member},
			Bursting:  &multiclusterv1alpha1.Bursting{Enabled: true, Policy: multiclusterv1alpha1.BurstNearestFirst},
		}
	case 2:
		mcd.Spec.Placement = multiclusterv1alpha1.Placement{Locations: []multiclusterv1alpha1.ClusterName{member}}
	default:
		mcd.Spec.Placement = multiclusterv1alpha1.Placement{Policy: multiclusterv1alpha1.WorstFit}
	}
	return ignoreConflicts(d.w.mgmt.Create(ctx, mcd))
}

// createJob creates a MultiClusterJob of a free name, spread WorstFit.
func (d *driver) createJob(ctx context.Context) error {
	name := fmt.Sprintf("j-%d", d.rng.IntN(jobNames))
	mcj := &multiclusterv1alpha1.MultiClusterJob{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}}
	parallelism := int32(1 + d.rng.IntN(6))
	mcj.Spec.Parallelism = ptr.To(parallelism)
	mcj.Spec.Completions = ptr.To(parallelism * int32(1+d.rng.IntN(3)))
	mcj.Spec.Template = podTemplate(name, 500)
	mcj.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever
	mcj.Spec.Placement = multiclusterv1alpha1.Placement{Policy: multiclusterv1alpha1.WorstFit}
	return ignoreConflicts(d.w.mgmt.Create(ctx, mcj))
}

// scale sets a random existing MultiClusterDeployment's or plain
// Deployment's replicas anew.
func (d *driver) scale(ctx context.Context) error {
	var list multiclusterv1alpha1.MultiClusterDeploymentList
	if err := d.w.mgmt.List(ctx, &list, client.InNamespace(namespace)); err != nil {
		return fmt.Errorf("failed to list MultiClusterDeployments: %w", err)
	}
	plain, err := d.w.plainDeployments(ctx)
	if err != nil {
		return err
	}
	if len(list.Items)+len(plain) == 0 {
		return d.createDeployment(ctx)
	}
	replicas := ptr.To(int32(d.rng.IntN(16)))
	i := d.rng.IntN(len(list.Items) + len(plain))
	if i >= len(list.Items) {
		dep := &plain[i-len(list.Items)]
		patch := client.MergeFrom(dep.DeepCopy())
		dep.Spec.Replicas = replicas
		return ignoreConflicts(d.w.mgmt.Patch(ctx, dep, patch))
	}
	mcd := &list.Items[i]
	patch := client.MergeFrom(mcd.DeepCopy())
	mcd.Spec.Replicas = replicas
	return ignoreConflicts(d.w.mgmt.Patch(ctx, mcd, patch))
}

// delete deletes a random existing workload.
func (d *driver) delete(ctx context.Context) error {
	var mcds multiclusterv1alpha1.MultiClusterDeploymentList
	if err := d.w.mgmt.List(ctx, &mcds, client.InNamespace(namespace)); err != nil {
		return fmt.Errorf("failed to list MultiClusterDeployments: %w", err)
	}
	var mcjs multiclusterv1alpha1.MultiClusterJobList
	if err := d.w.mgmt.List(ctx, &mcjs, client.InNamespace(namespace)); err != nil {
		return fmt.Errorf("failed to list MultiClusterJobs: %w", err)
	}
	var objs []client.Object
	for i := range mcds.Items {
		objs = append(objs, &mcds.Items[i])
	}
	for i := range mcjs.Items {
		objs = append(objs, &mcjs.Items[i])
	}
	plain, err := d.w.plainDeployments(ctx)
	if err != nil {
		return err
	}
	for i := range plain {
		objs = append(objs, &plain[i])
	}
	if len(objs) == 0 {
		return nil
	}
	return ignoreConflicts(d.w.mgmt.Delete(ctx, objs[d.rng.IntN(len(objs))]))
}

func podTemplate(app string, milliCPU int64) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": app}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "app", Image: "registry.k8s.io/pause:3.10",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU:    *resource.NewMilliQuantity(milliCPU, resource.DecimalSI),
				corev1.ResourceMemory: resource.MustParse("256Mi"),
			}},
		}}},
	}
}

// ignoreConflicts drops the errors of a change that raced with another
// (the name taken, the object changed or already gone): the driver simply
// made no change this step.
func ignoreConflicts(err error) error {
	if apierrors.IsAlreadyExists(err) || apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// pickVictim returns the replica that holds the leader lease, so that a
// kill interrupts reconciles and hands the lease over, and a random one
// while none holds it (between a kill and the next leader's election).
func pickVictim(reps []*replica, rng *rand.Rand) *replica {
	for _, r := range reps {
		if r.leads() {
			return r
		}
	}
	return reps[rng.IntN(len(reps))]
}
