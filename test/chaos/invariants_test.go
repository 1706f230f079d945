package chaos_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/controller/resourceplacement"
)

// The invariants checked against the members after every fault.
const (
	// checkDuplicated: per member and workload at most one member object,
	// of the workload's name.
	checkDuplicated = "duplicated"
	// checkLost: every cluster a workload's status gives replicas has its
	// member object.
	checkLost = "lost"
	// checkOrphaned: no member object whose owner is gone (or was
	// replaced by a new object of the same name).
	checkOrphaned = "orphaned"
	// checkCountedTwice: member replicas add up to no more than the spec,
	// each member object carries the replicas its cluster was given, and
	// Jobs' completions and parallelism are not exceeded.
	checkCountedTwice = "counted twice"
	// checkSpec: every workload's latest generation is placed in full
	// (member replicas plus unplaced replicas equal the spec).
	checkSpec = "spec met"
)

var checks = []string{checkDuplicated, checkLost, checkOrphaned, checkCountedTwice, checkSpec}

// report is one inspection: per check, how many objects it looked at and
// what it found wrong.
type report struct {
	examined   map[string]int
	violations map[string][]string
}

func (r *report) saw(check string) { r.examined[check]++ }

func (r *report) violate(check, format string, args ...any) {
	r.violations[check] = append(r.violations[check], fmt.Sprintf(format, args...))
}

// ok reports whether no check found anything wrong.
func (r *report) ok() bool {
	for _, v := range r.violations {
		if len(v) > 0 {
			return false
		}
	}
	return true
}

// String lists the violations, one a line.
func (r *report) String() string {
	var b strings.Builder
	for _, c := range checks {
		for _, v := range r.violations[c] {
			fmt.Fprintf(&b, "%s: %s\n", c, v)
		}
	}
	return b.String()
}

// owned is a member object as the checks see it.
type owned struct {
	member   string
	kind     string
	ns, name string
	owner    string
	ownerUID string
	// replicas of a Deployment, parallelism of a Job.
	replicas    int32
	completions *int32
}

// inspect reads the workloads of the management cluster and the member
// objects Meridian made, and checks every invariant.
func (w *world) inspect(ctx context.Context) (*report, error) {
	r := &report{examined: map[string]int{}, violations: map[string][]string{}}
	var mcds multiclusterv1alpha1.MultiClusterDeploymentList
	if err := w.mgmt.List(ctx, &mcds); err != nil {
		return nil, fmt.Errorf("failed to list MultiClusterDeployments: %w", err)
	}
	var mcjs multiclusterv1alpha1.MultiClusterJobList
	if err := w.mgmt.List(ctx, &mcjs); err != nil {
		return nil, fmt.Errorf("failed to list MultiClusterJobs: %w", err)
	}
	var rps multiclusterv1alpha1.ResourcePlacementList
	if err := w.mgmt.List(ctx, &rps); err != nil {
		return nil, fmt.Errorf("failed to list ResourcePlacements: %w", err)
	}
	objs, err := w.memberObjects(ctx)
	if err != nil {
		return nil, err
	}

	// owners maps kind/namespace/name to the owner's UID; memberName to the
	// name its member objects have (the workload's, or a placement's
	// template's).
	owners, memberName := map[string]string{}, map[string]string{}
	for _, d := range mcds.Items {
		k := ownerKey("MultiClusterDeployment", d.Namespace, d.Name)
		owners[k], memberName[k] = string(d.UID), d.Name
	}
	for _, j := range mcjs.Items {
		k := ownerKey("MultiClusterJob", j.Namespace, j.Name)
		owners[k], memberName[k] = string(j.UID), j.Name
	}
	for _, p := range rps.Items {
		k := ownerKey(resourceplacement.Kind, p.Namespace, p.Name)
		owners[k], memberName[k] = string(p.UID), p.Spec.Resource.Name
	}

	// byOwner groups member objects per owner and member.
	byOwner := map[string]map[string][]owned{}
	for _, o := range objs {
		r.saw(checkOrphaned)
		uid, found := owners[o.owner]
		switch {
		case !found:
			r.violate(checkOrphaned, "%s %s/%s in %s: owner %s is gone", o.kind, o.ns, o.name, o.member, o.owner)
			continue
		case o.ownerUID != uid:
			r.violate(checkOrphaned, "%s %s/%s in %s: made for owner UID %s, the owner now is %s", o.kind, o.ns, o.name, o.member, o.ownerUID, uid)
			continue
		}
		if byOwner[o.owner] == nil {
			byOwner[o.owner] = map[string][]owned{}
		}
		byOwner[o.owner][o.member] = append(byOwner[o.owner][o.member], o)
	}
	for owner, per := range byOwner {
		for member, list := range per {
			r.saw(checkDuplicated)
			if len(list) > 1 {
				var names []string
				for _, o := range list {
					names = append(names, o.name)
				}
				r.violate(checkDuplicated, "%s has %d objects in %s: %s", owner, len(list), member, strings.Join(names, ", "))
			}
			for _, o := range list {
				if o.name != memberName[owner] {
					r.violate(checkDuplicated, "%s has %s %s/%s in %s, not of its name", owner, o.kind, o.ns, o.name, member)
				}
			}
		}
	}

	for i := range mcds.Items {
		d := &mcds.Items[i]
		if d.DeletionTimestamp != nil {
			continue
		}
		per := byOwner[ownerKey("MultiClusterDeployment", d.Namespace, d.Name)]
		checkPlacement(r, "MultiClusterDeployment "+d.Namespace+"/"+d.Name, d.Generation, d.Status.ObservedGeneration,
			ptr.Deref(d.Spec.Replicas, 1), d.Status.UnplacedReplicas, d.Status.Clusters, per)
	}
	for i := range mcjs.Items {
		j := &mcjs.Items[i]
		if j.DeletionTimestamp != nil {
			continue
		}
		name := "MultiClusterJob " + j.Namespace + "/" + j.Name
		per := byOwner[ownerKey("MultiClusterJob", j.Namespace, j.Name)]
		checkPlacement(r, name, j.Generation, j.Status.ObservedGeneration,
			ptr.Deref(j.Spec.Parallelism, 1), j.Status.UnplacedReplicas, j.Status.Clusters, per)
		if j.Spec.Completions != nil {
			var sum int32
			for _, list := range per {
				for _, o := range list {
					sum += ptr.Deref(o.completions, 0)
				}
			}
			r.saw(checkCountedTwice)
			if sum > *j.Spec.Completions {
				r.violate(checkCountedTwice, "%s: member Jobs ask for %d completions, the spec for %d", name, sum, *j.Spec.Completions)
			}
		}
	}
	if err := w.inspectPlain(ctx, r, rps.Items, byOwner); err != nil {
		return nil, err
	}
	return r, nil
}

// checkPlacement checks one workload's status against its member objects
// per: replicas (a Job's parallelism) as the spec asks, each cluster's in
// its member object, none twice.
func checkPlacement(r *report, name string, generation, observed int64, want, unplaced int32, decided []multiclusterv1alpha1.ClusterDecision, per map[string][]owned) {
	var placed int32
	for _, list := range per {
		for _, o := range list {
			placed += o.replicas
		}
	}
	r.saw(checkCountedTwice)
	if placed > want {
		r.violate(checkCountedTwice, "%s: %d replicas in members, the spec asks for %d", name, placed, want)
	}
	r.saw(checkSpec)
	if observed != generation {
		r.violate(checkSpec, "%s: generation %d not observed (status at %d)", name, generation, observed)
		return
	}
	if placed+unplaced != want {
		r.violate(checkSpec, "%s: %d replicas in members and %d unplaced, the spec asks for %d", name, placed, unplaced, want)
	}
	given := map[string]int32{}
	for _, c := range decided {
		given[string(c.Name)] = c.Replicas
		if c.Replicas == 0 {
			continue
		}
		r.saw(checkLost)
		if len(per[string(c.Name)]) == 0 {
			r.violate(checkLost, "%s: status places %d replicas in %s, which has no member object", name, c.Replicas, c.Name)
		}
	}
	for member, list := range per {
		for _, o := range list {
			r.saw(checkCountedTwice)
			if o.replicas != given[member] {
				r.violate(checkCountedTwice, "%s: %s in %s runs %d replicas, its status gives that cluster %d", name, o.kind, member, o.replicas, given[member])
			}
		}
	}
}

// memberObjects lists every Deployment and Job Meridian made in the
// members, in member order.
func (w *world) memberObjects(ctx context.Context) ([]owned, error) {
	managed := client.MatchingLabels{multiclusterv1alpha1.LabelManagedBy: multiclusterv1alpha1.ManagedByMeridian}
	var out []owned
	for _, member := range w.names {
		c := w.members[member]
		var deps appsv1.DeploymentList
		if err := c.List(ctx, &deps, managed); err != nil {
			return nil, fmt.Errorf("failed to list Deployments of member %q: %w", member, err)
		}
		for _, d := range deps.Items {
			if d.DeletionTimestamp != nil {
				continue
			}
			out = append(out, ownedOf(member, "Deployment", &d.ObjectMeta, ptr.Deref(d.Spec.Replicas, 1), nil))
		}
		var jobs batchv1.JobList
		if err := c.List(ctx, &jobs, managed); err != nil {
			return nil, fmt.Errorf("failed to list Jobs of member %q: %w", member, err)
		}
		for _, j := range jobs.Items {
			if j.DeletionTimestamp != nil {
				continue
			}
			out = append(out, ownedOf(member, "Job", &j.ObjectMeta, ptr.Deref(j.Spec.Parallelism, 1), j.Spec.Completions))
		}
	}
	return out, nil
}

func ownedOf(member, kind string, m *metav1.ObjectMeta, replicas int32, completions *int32) owned {
	l := m.Labels
	return owned{
		member: member, kind: kind, ns: m.Namespace, name: m.Name,
		owner:       ownerKey(l[multiclusterv1alpha1.LabelOwnerKind], l[multiclusterv1alpha1.LabelOwnerNamespace], l[multiclusterv1alpha1.LabelOwnerName]),
		ownerUID:    m.Annotations[multiclusterv1alpha1.AnnotationOwnerUID],
		replicas:    replicas,
		completions: completions,
	}
}

func ownerKey(kind, ns, name string) string { return kind + " " + ns + "/" + name }

// tally adds up the reports of a run.
type tally struct {
	inspections int
	examined    map[string]int
	violations  map[string]int
	details     []string
}

func newTally() *tally { return &tally{examined: map[string]int{}, violations: map[string]int{}} }

// add records r, taken at moment (e.g. "after kill 3").
func (t *tally) add(moment string, r *report) {
	t.inspections++
	for _, c := range checks {
		t.examined[c] += r.examined[c]
		t.violations[c] += len(r.violations[c])
		for _, v := range r.violations[c] {
			t.details = append(t.details, fmt.Sprintf("%s: %s: %s", moment, c, v))
		}
	}
}

// log prints the table of counts per check.
func (t *tally) log(tb testing.TB) {
	tb.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "%d inspections\n%-14s %9s %10s\n", t.inspections, "check", "examined", "violations")
	for _, c := range checks {
		fmt.Fprintf(&b, "%-14s %9d %10d\n", c, t.examined[c], t.violations[c])
	}
	tb.Logf("invariants:\n%s", b.String())
}

// settle inspects the members every second until nothing is wrong or
// timeout passes, and returns the last inspection.
func (w *world) settle(ctx context.Context, timeout time.Duration) (*report, error) {
	deadline := time.Now().Add(timeout)
	for {
		r, err := w.inspect(ctx)
		if err == nil && r.ok() || time.Now().After(deadline) {
			return r, err
		}
		select {
		case <-ctx.Done():
			return r, ctx.Err()
		case <-time.After(time.Second):
		}
	}
}
