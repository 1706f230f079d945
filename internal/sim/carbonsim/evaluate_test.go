package carbonsim

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sineScenario is 40 days of two zones with daily cycles out of phase, and
// jobs from day 30 on, after enough history for the forecaster.
func sineScenario(t *testing.T, jobs int) *Scenario {
	t.Helper()
	aa, bb := make([]float64, 40*24), make([]float64, 40*24)
	for h := range aa {
		aa[h] = 200 + 100*math.Sin(2*math.Pi*float64(h)/24) + 20*math.Sin(2*math.Pi*float64(h)/168)
		bb[h] = 250 + 80*math.Sin(2*math.Pi*float64(h+6)/24)
	}
	regions := []region{{name: "a", zone: "AA", milli: 6000}, {name: "b", zone: "BB", milli: 6000}}
	var js []job
	for i := range jobs {
		origin := []string{"a", "b"}[i%2]
		other := []string{"b", "a"}[i%2]
		js = append(js, job{arrival: 30*24*60 + i*211, duration: 30 + 37*i, slack: (i * 173) % (48 * 60), vcpu: 1 + int64(i%3), candidates: []string{origin, other}})
	}
	return handScenario(t, map[string][]float64{"AA": aa, "BB": bb}, regions, js)
}

func TestRun(t *testing.T) {
	s := sineScenario(t, 30)
	var steps []string
	r, err := Run(t.Context(), s, Oracle{}, func(p Progress) {
		if p.Done == p.Total {
			steps = append(steps, p.Step)
		}
	})
	if err != nil {
		t.Fatalf("Run() error = %v", err)
	}
	wantSteps := []string{AgnosticPolicy, RoundRobinPolicy, "temporal-only, spatial-only, meridian", MeridianPerfectPolicy, OraclePolicy}
	if diff := cmp.Diff(wantSteps, steps); diff != "" {
		t.Errorf("progress steps mismatch (-want +got):\n%s", diff)
	}
	var names []string
	for _, p := range r.Policies {
		names = append(names, p.Policy)
		// The oracle's bound is below every schedule, or it is no bound.
		if p.Grams < r.Oracle.BoundGrams*(1-1e-9) {
			t.Errorf("%s emits %.3f g, below the oracle's bound %.3f g", p.Policy, p.Grams, r.Oracle.BoundGrams)
		}
		if p.Policy != AgnosticPolicy && p.CapacityViolations != 0 {
			t.Errorf("%s: %d region-hours over capacity", p.Policy, p.CapacityViolations)
		}
	}
	wantNames := []string{AgnosticPolicy, RoundRobinPolicy, TemporalPolicy, SpatialPolicy, MeridianPolicy, MeridianPerfectPolicy, OraclePolicy}
	if diff := cmp.Diff(wantNames, names); diff != "" {
		t.Errorf("policies mismatch (-want +got):\n%s", diff)
	}
	m, perfect, agnostic := r.Policy(MeridianPolicy), r.Policy(MeridianPerfectPolicy), r.Policy(AgnosticPolicy)
	if agnostic.SavingsPercent != 0 || agnostic.OracleFraction != 0 {
		t.Errorf("carbon-agnostic saves %.2f%% (%.2f of the oracle), want 0", agnostic.SavingsPercent, agnostic.OracleFraction)
	}
	if got, want := r.RegretGrams, m.Grams-perfect.Grams; got != want {
		t.Errorf("RegretGrams = %g, want meridian - meridian-perfect = %g", got, want)
	}
	wantMet := m.OracleFraction >= Goal && m.DeadlineMisses == 0 && m.CapacityViolations == 0
	if r.GoalMet != wantMet {
		t.Errorf("GoalMet = %t, want %t (fraction %.3f, %d misses, %d over capacity)", r.GoalMet, wantMet, m.OracleFraction, m.DeadlineMisses, m.CapacityViolations)
	}

	var table, page, doc bytes.Buffer
	if err := WriteTable(&table, r, r); err != nil {
		t.Fatalf("WriteTable() error = %v", err)
	}
	for _, want := range []string{"meridian-perfect", "Regret due to forecast error", "Goal (meridian >= 90%", "Meridian across seeds"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
	if err := WriteHTML(&page, r); err != nil {
		t.Fatalf("WriteHTML() error = %v", err)
	}
	if n := strings.Count(page.String(), "<svg"); n != 3 {
		t.Errorf("HTML report has %d charts, want 3", n)
	}
	if err := WriteJSON(&doc, r); err != nil {
		t.Fatalf("WriteJSON() error = %v", err)
	}
	var parsed struct {
		Results []struct {
			Policies []struct {
				Policy string `json:"policy"`
			} `json:"policies"`
			Oracle struct {
				BoundGrams float64 `json:"boundGrams"`
			} `json:"oracle"`
		} `json:"results"`
	}
	if err := json.Unmarshal(doc.Bytes(), &parsed); err != nil {
		t.Fatalf("WriteJSON() wrote no JSON document: %v", err)
	}
	if len(parsed.Results) != 1 || len(parsed.Results[0].Policies) != len(wantNames) || parsed.Results[0].Oracle.BoundGrams != r.Oracle.BoundGrams {
		t.Errorf("JSON document = %+v, want one result with %d policies and the oracle's bound", parsed, len(wantNames))
	}
}
