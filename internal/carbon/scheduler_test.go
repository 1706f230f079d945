package carbon_test

import (
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/meridian-dev/meridian/internal/carbon"
	"github.com/meridian-dev/meridian/internal/money"
)

// t0 is the decision time of the scheduler's tests, on the hour.
var t0 = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)

// kilowatt makes 1000m of CPU draw 1 kW, so that a run's grams are its
// intensity integrated over hours: hand-computable answers.
var kilowatt = carbon.EnergyModel{WattsPerVCPU: 1000, DefaultPUE: 1}

// hours returns the zone's points from t0, one per hour, average signal.
func hours(zone string, grams ...float64) []carbon.Point {
	return hoursOf(zone, carbon.Average, "test", grams...)
}

func hoursOf(zone string, signal carbon.Signal, source string, grams ...float64) []carbon.Point {
	pts := make([]carbon.Point, len(grams))
	for i, g := range grams {
		pts[i] = carbon.Point{Zone: zone, Time: t0.Add(time.Duration(i) * time.Hour), GramsPerKWh: g, Kind: carbon.Forecast, Signal: signal, Source: source}
	}
	return pts
}

func concat(pts ...[]carbon.Point) []carbon.Point {
	var out []carbon.Point
	for _, p := range pts {
		out = append(out, p...)
	}
	return out
}

func cand(region, zone string, price float64) carbon.Candidate {
	return carbon.Candidate{Provider: "azure", Region: region, Zone: zone, PricePerHour: usd(price)}
}

// usd is price US dollars; the tests draw prices as floats.
func usd(price float64) money.Money { return money.FromRat(new(big.Rat).SetFloat64(price), "USD") }

// outcome is what the tables compare of a plan.
type outcome struct {
	Region   string
	Start    time.Time
	Grams    float64
	Baseline float64
	Source   string
}

func outcomeOf(p carbon.Plan) outcome {
	return outcome{Region: p.Candidate.Region, Start: p.Start, Grams: p.ExpectedGrams, Baseline: p.BaselineGrams, Source: p.Source}
}

func TestShifterPlan(t *testing.T) {
	a, b, c := cand("a", "AA", 0.2), cand("b", "BB", 0.3), cand("c", "CC", 0.1)
	run := func(d time.Duration, deadline time.Duration, cands ...carbon.Candidate) carbon.Request {
		r := carbon.Request{Name: "ns/run", CPUMilli: 1000, Duration: d, Now: t0, Candidates: cands}
		if deadline > 0 {
			r.Deadline = t0.Add(deadline)
		}
		return r
	}
	tests := []struct {
		name         string
		points       []carbon.Point
		capacity     *carbon.Capacity
		reserved     []carbon.Reservation
		req          carbon.Request
		want         outcome
		wantFallback []string // substrings of Plan.Fallback; none means empty
		wantReason   string   // substring of Plan.Reason
		wantErr      error
	}{
		{
			name:   "a cleaner hour later wins before the deadline",
			points: hours("AA", 300, 300, 100, 100, 300),
			req:    run(2*time.Hour, 5*time.Hour, a),
			want:   outcome{Region: "a", Start: t0.Add(2 * time.Hour), Grams: 200, Baseline: 600, Source: "test"},
		},
		{
			name:   "the deadline excludes the cleaner hours",
			points: hours("AA", 300, 300, 100, 100, 300),
			req:    run(2*time.Hour, 3*time.Hour, a),
			want:   outcome{Region: "a", Start: t0.Add(time.Hour), Grams: 400, Baseline: 600, Source: "test"},
		},
		{
			name:   "without a deadline the run is not shifted in time",
			points: hours("AA", 300, 100, 100),
			req:    run(time.Hour, 0, a),
			want:   outcome{Region: "a", Start: t0, Grams: 300, Baseline: 300, Source: "test"},
		},
		{
			name:   "a cleaner region wins",
			points: concat(hours("AA", 300, 300), hours("BB", 100, 100)),
			req:    run(2*time.Hour, 0, a, b),
			want:   outcome{Region: "b", Start: t0, Grams: 200, Baseline: 600, Source: "test"},
		},
		{
			name:   "partial hours are weighted: the exact earliest start, then whole hours",
			points: hours("AA", 100, 300, 200, 50),
			req: func() carbon.Request {
				r := run(time.Hour, 3*time.Hour+30*time.Minute, a)
				r.NotBefore = t0.Add(30 * time.Minute)
				return r
			}(),
			// 10:30: 0.5x100+0.5x300 = 200; 11:00: 300; 12:00: 200 (ends 13:00); 13:00 would end after 13:30.
			want: outcome{Region: "a", Start: t0.Add(30 * time.Minute), Grams: 200, Baseline: 200, Source: "test"},
		},
		{
			name:       "capacity full: the next best",
			points:     concat(hours("AA", 300, 300), hours("BB", 100, 100)),
			capacity:   carbon.NewCapacity().Set("azure/b", 500),
			req:        run(2*time.Hour, 0, a, b),
			want:       outcome{Region: "a", Start: t0, Grams: 600, Baseline: 600, Source: "test"},
			wantReason: "1 greener options were full",
		},
		{
			name:     "reservations fill a region: the next best hour",
			points:   concat(hours("AA", 300, 300, 300), hours("BB", 100, 200, 200)),
			capacity: carbon.NewCapacity().Set("azure/b", 2000),
			reserved: []carbon.Reservation{{Name: "ns/other", Region: "azure/b", Start: t0, End: t0.Add(time.Hour), MilliCPU: 1500}},
			req:      run(time.Hour, 3*time.Hour, a, b),
			want:     outcome{Region: "b", Start: t0.Add(time.Hour), Grams: 200, Baseline: 300, Source: "test"},
		},
		{
			name:       "a zone's capacity bounds its regions together",
			points:     concat(hours("AA", 100, 100), hours("BB", 300, 300)),
			capacity:   carbon.NewCapacity().Set(carbon.ZoneKey("AA"), 1500),
			reserved:   []carbon.Reservation{{Name: "ns/other", Region: "azure/a", Zone: "AA", Start: t0, End: t0.Add(time.Hour), MilliCPU: 1000}},
			req:        run(time.Hour, 0, b, a, cand("a2", "AA", 0.2)),
			want:       outcome{Region: "b", Start: t0, Grams: 300, Baseline: 300, Source: "test"},
			wantReason: "2 greener options were full",
		},
		{
			name:     "an hour's own capacity overrides the region's",
			points:   concat(hours("AA", 300, 300), hours("BB", 100, 100)),
			capacity: carbon.NewCapacity().Set("azure/b", 4000).SetHour("azure/b", t0.Add(time.Hour), 0),
			req:      run(2*time.Hour, 0, a, b),
			want:     outcome{Region: "a", Start: t0, Grams: 600, Baseline: 600, Source: "test"},
		},
		{
			name:       "a near-tie goes to the less loaded region",
			points:     concat(hours("AA", 100, 100), hours("BB", 100.5, 100.5)),
			reserved:   []carbon.Reservation{{Name: "ns/other", Region: "azure/a", Start: t0, End: t0.Add(time.Hour), MilliCPU: 1000}},
			req:        run(time.Hour, 0, a, b),
			want:       outcome{Region: "b", Start: t0, Grams: 100.5, Baseline: 100, Source: "test"},
			wantReason: "the least loaded",
		},
		{
			name:     "outside the tolerance the load does not matter",
			points:   concat(hours("AA", 100, 100), hours("BB", 102, 102)),
			reserved: []carbon.Reservation{{Name: "ns/other", Region: "azure/a", Start: t0, End: t0.Add(time.Hour), MilliCPU: 1000}},
			req:      run(time.Hour, 0, a, b),
			want:     outcome{Region: "a", Start: t0, Grams: 100, Baseline: 100, Source: "test"},
		},
		{
			name:     "near-ties use utilisation across capacities",
			points:   concat(hours("AA", 100), hours("BB", 100)),
			capacity: carbon.NewCapacity().Set("azure/a", 4000).Set("azure/b", 16000),
			reserved: []carbon.Reservation{{Name: "ns/x", Region: "azure/a", Start: t0, End: t0.Add(time.Hour), MilliCPU: 1000}, {Name: "ns/y", Region: "azure/b", Start: t0, End: t0.Add(time.Hour), MilliCPU: 2000}},
			req:      run(time.Hour, 0, a, b),
			// a: 2000/4000 = 50 %; b: 3000/16000 = 19 %.
			want: outcome{Region: "b", Start: t0, Grams: 100, Baseline: 100, Source: "test"},
		},
		{
			name:         "mixed signals: compared on the average ones",
			points:       concat(hours("AA", 300), hoursOf("BB", carbon.Marginal, "watttime", 50)),
			req:          run(time.Hour, 0, a, b),
			want:         outcome{Region: "a", Start: t0, Grams: 300, Baseline: 300, Source: "test"},
			wantFallback: []string{"mix average and marginal", "azure/b (BB)"},
		},
		{
			name:   "marginal only is compared on marginal",
			points: concat(hoursOf("AA", carbon.Marginal, "watttime", 300), hoursOf("BB", carbon.Marginal, "watttime", 50)),
			req:    run(time.Hour, 0, a, b),
			want:   outcome{Region: "b", Start: t0, Grams: 50, Baseline: 300, Source: "watttime"},
		},
		{
			name:         "missing forecasts are named",
			points:       hours("BB", 200),
			req:          run(time.Hour, 0, a, b, c),
			want:         outcome{Region: "b", Start: t0, Grams: 200, Source: "test"},
			wantFallback: []string{"no forecast for 2 of 3 candidates", "azure/a (AA)", "azure/c (CC)", "the baseline azure/a (AA) has no comparable forecast"},
		},
		{
			name:         "no forecast at all: as NoForecast",
			req:          run(time.Hour, 0, a, b, c),
			want:         outcome{Region: "c", Start: t0, Source: "none"},
			wantFallback: []string{"no carbon intensity is known for any eligible region"},
		},
		{
			name:         "no forecast and the cheapest full: the next cheapest",
			capacity:     carbon.NewCapacity().Set("azure/c", 0),
			req:          run(time.Hour, 0, a, b, c),
			want:         outcome{Region: "a", Start: t0, Source: "none"},
			wantFallback: []string{"no carbon intensity is known"},
			wantReason:   "1 cheaper were full",
		},
		{
			name:         "every forecast region full: a region without forecast",
			points:       hours("AA", 100),
			capacity:     carbon.NewCapacity().Set("azure/a", 0),
			req:          run(time.Hour, 0, a, b),
			want:         outcome{Region: "b", Start: t0, Source: "none"},
			wantFallback: []string{"every candidate with a forecast was full"},
		},
		{
			name:         "hours past the forecast count at the zone's mean",
			points:       hours("AA", 100, 300),
			req:          run(3*time.Hour, 0, a),
			want:         outcome{Region: "a", Start: t0, Grams: 600, Baseline: 600, Source: "test"},
			wantFallback: []string{"1 hour(s) of the run lie outside zone AA's forecast", "200.0 g/kWh"},
		},
		{
			name:         "the fallback of the source is reported",
			points:       []carbon.Point{{Zone: "AA", Time: t0, GramsPerKWh: 100, Source: "offline", Fallback: "electricitymaps: answered 429"}},
			req:          run(time.Hour, 0, a),
			want:         outcome{Region: "a", Start: t0, Grams: 100, Baseline: 100, Source: "offline"},
			wantFallback: []string{"electricitymaps: answered 429"},
		},
		{
			name:    "no start meets the deadline",
			points:  hours("AA", 100),
			req:     run(2*time.Hour, time.Hour, a),
			wantErr: carbon.ErrDeadline,
		},
		{
			name:     "every region full",
			points:   hours("AA", 100),
			capacity: carbon.NewCapacity().Set("azure/a", 999),
			req:      run(time.Hour, 2*time.Hour, a),
			wantErr:  carbon.ErrNoCapacity,
		},
		{
			name:    "no candidates",
			req:     run(time.Hour, 0),
			wantErr: carbon.ErrNoCandidates,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &carbon.Shifter{Intensities: carbon.NewIntensities(tc.points), Capacity: tc.capacity, Energy: kilowatt}
			ledger := carbon.NewLedger()
			for _, r := range tc.reserved {
				ledger.Reserve(r)
			}
			before := ledger.Reservations()
			got, err := s.Plan(tc.req, ledger)
			if diff := cmp.Diff(before, ledger.Reservations()); diff != "" {
				t.Errorf("Plan() changed the ledger (-want +got):\n%s", diff)
			}
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("Plan() error = %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Plan() error = %v", err)
			}
			if diff := cmp.Diff(tc.want, outcomeOf(got), cmpopts.EquateApprox(0, 1e-9)); diff != "" {
				t.Errorf("Plan() mismatch (-want +got):\n%s", diff)
			}
			if !got.End.Equal(got.Start.Add(tc.req.Duration)) {
				t.Errorf("Plan().End = %s, want Start + %s", got.End, tc.req.Duration)
			}
			if len(tc.wantFallback) == 0 && got.Fallback != "" {
				t.Errorf("Plan().Fallback = %q, want none", got.Fallback)
			}
			for _, w := range tc.wantFallback {
				if !strings.Contains(got.Fallback, w) {
					t.Errorf("Plan().Fallback = %q, want it to contain %q", got.Fallback, w)
				}
			}
			if !strings.Contains(got.Reason, tc.wantReason) {
				t.Errorf("Plan().Reason = %q, want it to contain %q", got.Reason, tc.wantReason)
			}
		})
	}
}

func TestEnergyModel(t *testing.T) {
	tests := []struct {
		name     string
		provider string
		cpu, mem int64
		want     float64
	}{
		{name: "azure 4 vCPU 16 GiB", provider: "azure", cpu: 4000, mem: 16 << 30, want: (4*2.12 + 16*0.392) * 1.185},
		{name: "gcp 1 vCPU", provider: "gcp", cpu: 1000, want: 2.12 * 1.1},
		{name: "unknown provider", provider: "openstack", cpu: 1000, mem: 1 << 30, want: (2.12 + 0.392) * 1.135},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := carbon.DefaultEnergyModel.Watts(tc.provider, tc.cpu, tc.mem)
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
				t.Errorf("Watts() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestIntensities(t *testing.T) {
	pts := concat(
		hours("AA", 100, 200),
		[]carbon.Point{{Zone: "AA", Time: t0.Add(3 * time.Hour), GramsPerKWh: 400, Source: "test"}},
		[]carbon.Point{{Zone: "AA", Time: t0.Add(90 * time.Minute), GramsPerKWh: 250, Source: "later"}},
		hoursOf("BB", carbon.Marginal, "watttime", 10),
		hours("BB", 300),
	)
	in := carbon.NewIntensities(pts)
	type at struct {
		Grams float64
		OK    bool
	}
	tests := []struct {
		name string
		zone string
		t    time.Time
		want at
	}{
		{name: "known hour", zone: "AA", t: t0.Add(30 * time.Minute), want: at{100, true}},
		{name: "a later point of the hour replaces", zone: "AA", t: t0.Add(time.Hour), want: at{250, true}},
		{name: "hole", zone: "AA", t: t0.Add(2 * time.Hour), want: at{0, false}},
		{name: "past the last hour", zone: "AA", t: t0.Add(4 * time.Hour), want: at{0, false}},
		{name: "before the first hour", zone: "AA", t: t0.Add(-time.Hour), want: at{0, false}},
		{name: "a zone's marginal hours give way to its average ones", zone: "BB", t: t0, want: at{300, true}},
		{name: "unknown zone", zone: "CC", t: t0, want: at{0, false}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, ok := in.At(tc.zone, tc.t)
			if diff := cmp.Diff(tc.want, at{p.GramsPerKWh, ok}); diff != "" {
				t.Errorf("At() mismatch (-want +got):\n%s", diff)
			}
		})
	}
	if diff := cmp.Diff([]string{"AA", "BB"}, in.Zones()); diff != "" {
		t.Errorf("Zones() mismatch (-want +got):\n%s", diff)
	}
}
