package sim

import (
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/autoscale"
	"github.com/meridian-dev/meridian/internal/decide"
	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/sim/scenario"
	"github.com/meridian-dev/meridian/internal/sim/workload"
	workloadpkg "github.com/meridian-dev/meridian/internal/workload"
)

// Placer is the placement framework as the simulator (and the
// controllers' decisions) call it.
type Placer = decide.Placer

// Progress reports how far one policy's run is.
type Progress struct {
	Scenario string
	Policy   string
	// Index and Policies locate the policy among those of the scenario.
	Index, Policies int
	Done, Total     time.Duration
}

// Options change how a scenario runs.
type Options struct {
	// Seed, when set, replaces the scenario's seed.
	Seed *uint64
	// Placer, when set, replaces the placement framework (tests only).
	Placer Placer
	// Progress, when set, is called as virtual time advances.
	Progress func(Progress)
}

// Run runs every policy of the scenario on the same workload and returns
// their results, in the scenario's order.
func Run(ctx context.Context, sc *scenario.Scenario, opts Options) (*Result, error) {
	seed := *sc.Seed
	if opts.Seed != nil {
		seed = *opts.Seed
	}
	tasks, err := sc.Tasks(seed)
	if err != nil {
		return nil, err
	}
	placer := opts.Placer
	if placer == nil {
		if placer, err = newFramework(); err != nil {
			return nil, err
		}
	}
	res := &Result{
		Scenario: sc.Name, Description: sc.Description, Seed: seed,
		DurationSeconds: sc.Duration.Seconds(), Tasks: len(tasks), Services: len(sc.Workload.Services),
	}
	for i, pol := range sc.Policies {
		w, err := newWorld(ctx, sc, pol, placer)
		if err != nil {
			return nil, err
		}
		report := func(done time.Duration) {
			if opts.Progress != nil {
				opts.Progress(Progress{Scenario: sc.Name, Policy: pol.Name, Index: i, Policies: len(sc.Policies), Done: done, Total: sc.Duration})
			}
		}
		pr, err := w.run(tasks, report)
		if err != nil {
			return nil, fmt.Errorf("failed to run scenario %q with policy %q: %w", sc.Name, pol.Name, err)
		}
		res.Policies = append(res.Policies, *pr)
	}
	return res, nil
}

// run plays the workload in virtual time.
func (w *world) run(tasks []workload.Task, report func(time.Duration)) (*PolicyResult, error) {
	sc := w.sc
	for _, t := range tasks {
		w.eng.At(t.Submit, func() { w.submitTask(t) })
	}
	for _, s := range sc.Workload.Services {
		w.eng.At(s.Start, func() { w.submitService(s) })
	}
	for _, o := range sc.Outages {
		w.eng.At(o.At, func() { w.cutOff(o) })
	}
	w.eng.Every(0, sc.SampleInterval, func() bool { w.rec.sample(); return true })
	w.eng.Every(sc.Controllers.AutoscalerPeriod, sc.Controllers.AutoscalerPeriod, func() bool { w.autoscale(); return true })
	if w.prov != nil {
		// Each pass says when the next one is due (provision.Pass).
		w.eng.At(sc.Controllers.ProvisionerPeriod, w.provisioner)
	}
	step := max(sc.Duration/100, time.Second)
	for t := time.Duration(0); t < sc.Duration; t += step {
		end := min(t+step, sc.Duration)
		w.eng.RunUntil(end)
		if w.err != nil {
			return nil, w.err
		}
		if err := w.ctx.Err(); err != nil {
			return nil, err
		}
		report(end)
	}
	return &PolicyResult{Policy: w.pol.Name, Summary: w.rec.summary(), Events: w.events, Placements: w.placements(), Series: &w.rec.series}, nil
}

// placements is what the member objects of every workload that exists at
// the end ask for: a member Deployment's replicas, a member Job's parallel
// pods (a completed job keeps its member Jobs), or (for the baseline, which
// writes pods without member objects) the pods.
func (w *world) placements() map[string]map[string]int32 {
	out := map[string]map[string]int32{}
	for _, wl := range slices.Concat(w.active, w.completedJobs) {
		per := map[string]int32{}
		for name, d := range wl.deployments {
			per[name] = d.replicas
		}
		for name, j := range wl.jobs {
			per[name] = j.parallelism
		}
		if len(wl.deployments)+len(wl.jobs) == 0 {
			per = wl.counts(false)
		}
		if len(per) > 0 {
			out[wl.spec.Key] = per
		}
	}
	return out
}

func (w *world) submitTask(t workload.Task) {
	var locations []string
	if t.Location != "" {
		locations = []string{t.Location}
	}
	wl, err := w.newWorkload(t.Name, t.Kind, t.Replicas, podTemplate(t.MilliCPU, t.Memory), locations)
	if err != nil {
		w.fail(err)
		return
	}
	wl.duration = t.Duration
	w.add(wl)
	if t.Kind == placement.KindDeployment {
		w.eng.After(t.Duration, func() { w.finish(wl) })
	}
}

func (w *world) submitService(s scenario.Service) {
	wl, err := w.newWorkload(s.Name, placement.KindDeployment, s.Replicas, podTemplate(s.CPU.MilliValue(), s.Memory.Value()), s.Locations)
	if err != nil {
		w.fail(err)
		return
	}
	wl.load = s.Load
	if a := s.Autoscaler; a != nil {
		wl.hpa = autoscale.New(autoscale.Spec{
			MinReplicas: a.MinReplicas, MaxReplicas: a.MaxReplicas, TargetUtilization: a.TargetUtilization,
			Tolerance: a.Tolerance, CoolDown: a.CoolDown,
		})
	}
	w.add(wl)
	if s.Stop > 0 {
		w.eng.At(s.Stop, func() { w.finish(wl) })
	}
}

// newWorkload makes a workload as its object would be: the placement
// block from the policy, converted by workload.New as the controllers do.
func (w *world) newWorkload(name string, kind placement.WorkloadKind, replicas int32, tmpl *corev1.Pod, locations []string) (*mcWorkload, error) {
	pl := multiclusterv1alpha1.Placement{Policy: multiclusterv1alpha1.PlacementPolicy(w.pol.Placement)}
	if w.pol.Placement == scenario.PlacementPropagate {
		pl.Policy = "" // the baseline never asks the framework
	}
	for _, l := range locations {
		pl.Locations = append(pl.Locations, multiclusterv1alpha1.ClusterName(l))
	}
	if n := w.pol.NumberOfLocations; n > 0 {
		pl.NumberOfLocations = &n
	}
	if w.pol.Substitution {
		pl.Substitution = &multiclusterv1alpha1.Substitution{Enabled: true}
	}
	if w.pol.Bursting {
		pl.Bursting = &multiclusterv1alpha1.Bursting{Enabled: true}
	}
	ownerKind := "MultiClusterDeployment"
	if kind == placement.KindJob {
		ownerKind = "MultiClusterJob"
	}
	spec, err := workloadpkg.New(workloadpkg.Key(ownerKind, "default", name), kind, replicas, &tmpl.Spec, pl)
	if err != nil {
		return nil, fmt.Errorf("invalid workload %q of policy %q: %w", name, w.pol.Name, err)
	}
	return &mcWorkload{
		desired: replicas, spec: spec, deployments: map[string]*memberDeployment{}, jobs: map[string]*memberJob{}, passAt: -1,
	}, nil
}

func (w *world) add(wl *mcWorkload) {
	w.active = append(w.active, wl)
	w.byKey[wl.spec.Key] = wl
	w.wantPlacement(wl)
}
