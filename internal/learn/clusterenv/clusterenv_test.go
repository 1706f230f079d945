package clusterenv

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/meridian-dev/meridian/internal/learn"
	"github.com/meridian-dev/meridian/internal/sim/scenario"
)

func TestRunIsDeterministic(t *testing.T) {
	m, err := learn.NewClusterModel(learn.DefaultClusterHidden, 3)
	if err != nil {
		t.Fatal(err)
	}
	sc := TrainingScenario(11, 20*time.Minute)
	for _, policy := range []string{PolicyLearned, PolicyWorstFit, PolicyBestFit} {
		t.Run(policy, func(t *testing.T) {
			fw, err := NewFramework(policy, m)
			if err != nil {
				t.Fatal(err)
			}
			a, _, err := Run(sc, 11, fw)
			if err != nil {
				t.Fatal(err)
			}
			b, _, err := Run(sc, 11, fw)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(a, b, cmp.AllowUnexported(Metrics{})); diff != "" {
				t.Errorf("second run's metrics (-want +got):\n%s", diff)
			}
			if a.Decisions == 0 {
				t.Errorf("no decisions")
			}
		})
	}
}

// TestPoliciesDiffer checks that the environment sees what a ranking
// does: spreading (WorstFit) leaves the members more even than packing
// (BestFit).
func TestPoliciesDiffer(t *testing.T) {
	sc := TrainingScenario(12, 30*time.Minute)
	metrics := map[string]Metrics{}
	for _, policy := range []string{PolicyWorstFit, PolicyBestFit} {
		fw, err := NewFramework(policy, nil)
		if err != nil {
			t.Fatal(err)
		}
		if metrics[policy], _, err = Run(sc, 12, fw); err != nil {
			t.Fatal(err)
		}
	}
	if wf, bf := metrics[PolicyWorstFit].Imbalance, metrics[PolicyBestFit].Imbalance; wf >= bf {
		t.Errorf("imbalance: WorstFit %.3f, BestFit %.3f; want WorstFit's lower", wf, bf)
	}
}

func TestTrainingIsDeterministic(t *testing.T) {
	if testing.Short() {
		t.Skip("trains for seconds")
	}
	cfg := DefaultTrainConfig()
	cfg.Steps, cfg.WarmUp, cfg.Replay = 1500, 200, 1500
	cur := DefaultCurriculum()
	cur.Window = 10 * time.Minute
	a, err := Train(cfg, cur, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Train(cfg, cur, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(a.Net.Params, b.Net.Params); diff != "" {
		t.Fatalf("second training's weights differ (-want +got):\n%s", diff)
	}
	untrained, _ := learn.NewClusterModel(cfg.Hidden, cfg.Seed)
	if cmp.Equal(a.Net.Params, untrained.Net.Params) {
		t.Errorf("training left the weights as they were")
	}
	if lo, hi, ok := SeedsOf(a); !ok || lo != cur.FirstSeed || hi < lo {
		t.Errorf("SeedsOf = %d, %d, %v; want the range from %d", lo, hi, ok, cur.FirstSeed)
	}
}

// TestEvaluateInSimulator runs the learned plugin as the placer of
// `meridian sim`'s simulator: it places through the framework there (the
// decisions are counted by the simulator), and the run is reproducible.
func TestEvaluateInSimulator(t *testing.T) {
	sc, err := scenario.Load("vi-b")
	if err != nil {
		t.Fatal(err)
	}
	sc.Duration = 20 * time.Minute
	sc.Workload.Generator.Tasks = 200
	sc.Workload.Generator.Window = 15 * time.Minute
	m, err := learn.NewClusterModel(learn.DefaultClusterHidden, 5)
	if err != nil {
		t.Fatal(err)
	}
	a, err := Evaluate(t.Context(), sc, 3, m, nil)
	if err != nil {
		t.Fatal(err)
	}
	var policies []string
	for _, r := range a {
		policies = append(policies, r.Policy)
		if r.Decisions == 0 {
			t.Errorf("%s: the simulator counted no decisions", r.Policy)
		}
	}
	if diff := cmp.Diff([]string{PolicyLearned, PolicyWorstFit, PolicyBestFit}, policies); diff != "" {
		t.Errorf("policies (-want +got):\n%s", diff)
	}
	b, err := Evaluate(t.Context(), sc, 3, m, nil)
	if err != nil {
		t.Fatal(err)
	}
	ignoreTimes := cmpopts.IgnoreFields(Result{}, "DecisionP50", "DecisionP99")
	if diff := cmp.Diff(a, b, ignoreTimes); diff != "" {
		t.Errorf("second evaluation (-want +got):\n%s", diff)
	}
	if cmp.Equal(a[0], a[1], ignoreTimes, cmpopts.IgnoreFields(Result{}, "Policy")) {
		t.Errorf("Learned and WorstFit ran alike: %+v", a[0])
	}
}
