package carbonsim

import (
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestProductSeesNoFuture runs the forecasting policy on two worlds that are
// the same until a cut and differ after it: the jobs that arrive before the
// cut must be placed the same in both. The same scheduler on the actual
// intensities (which look 48 hours ahead) must not, or the test proves
// nothing.
func TestProductSeesNoFuture(t *testing.T) {
	const days = 40
	cut := 34 * 24
	aa, bb := make([]float64, days*24), make([]float64, days*24)
	for h := range aa {
		aa[h] = 200 + 100*math.Sin(2*math.Pi*float64(h)/24) + 20*math.Sin(2*math.Pi*float64(h)/168)
		bb[h] = 250 + 80*math.Sin(2*math.Pi*float64(h+6)/24)
	}
	changed := func(v []float64, factor float64) []float64 {
		out := append([]float64(nil), v...)
		for h := cut; h < len(out); h++ {
			out[h] *= factor
		}
		return out
	}
	regions := []region{{name: "a", zone: "AA", milli: 8000}, {name: "b", zone: "BB", milli: 8000}}
	var jobs []job
	for i := range 24 {
		// From day 30 every 6 hours and a bit, across the cut.
		jobs = append(jobs, job{arrival: 30*24*60 + i*377, duration: 60 + 45*i, slack: 47 * 60, vcpu: 1 + int64(i%4), candidates: []string{"a", "b"}})
	}
	worlds := []map[string][]float64{
		{"AA": aa, "BB": bb},
		{"AA": changed(aa, 3), "BB": changed(bb, 0.3)},
	}
	before := 0
	for _, j := range jobs {
		if time.Duration(j.arrival)*time.Minute < time.Duration(cut)*time.Hour {
			before++
		}
	}
	placements := func(p *Product) [2]string {
		var out [2]string
		for w, zones := range worlds {
			s := handScenario(t, zones, regions, jobs)
			pl, err := p.Place(t.Context(), s, nil)
			if err != nil {
				t.Fatalf("%s: Place() error = %v", p.Name(), err)
			}
			out[w] = wheres(pl[:before])
		}
		return out
	}
	got := placements(&Product{PolicyName: MeridianPolicy})
	if diff := cmp.Diff(got[0], got[1]); diff != "" {
		t.Errorf("forecast-fed placements before the cut depend on the hours after it (-world 1 +world 2):\n%s", diff)
	}
	perfect := placements(&Product{PolicyName: MeridianPerfectPolicy, Perfect: true})
	if perfect[0] == perfect[1] {
		t.Errorf("with actual intensities the placements before the cut are the same in both worlds (%s): the worlds do not differ where a decision looks", perfect[0])
	}
}
