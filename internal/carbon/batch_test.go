package carbon_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/meridian-dev/meridian/internal/carbon"
)

// synthetic is a random world: grid zones with daily intensity curves, two
// regions each, declared capacities of regions and zones, and a batch of
// runs with 0-24 h of slack.
type synthetic struct {
	intensities *carbon.Intensities
	capacity    *carbon.Capacity
	caps        map[string]int64
	reqs        []carbon.Request
}

func newSynthetic(seed uint64, regions, runs int) synthetic {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var pts []carbon.Point
	var cands []carbon.Candidate
	w := synthetic{capacity: carbon.NewCapacity(), caps: map[string]int64{}}
	for i := range regions {
		// Two regions share each grid zone, whose capacity binds them
		// together.
		zone := fmt.Sprintf("Z%d", i/2)
		if i%2 == 1 {
			cands = append(cands, carbon.Candidate{Provider: "aws", Region: fmt.Sprintf("r%d", i), Zone: zone, PricePerHour: usd(rng.Float64())})
			capacity := int64(4+rng.IntN(12)) * 1000
			w.capacity.Set(carbon.RegionKey(cands[i]), capacity)
			w.caps[carbon.RegionKey(cands[i])] = capacity
			continue
		}
		zoneCap := int64(6+rng.IntN(18)) * 1000
		w.capacity.Set(carbon.ZoneKey(zone), zoneCap)
		w.caps[carbon.ZoneKey(zone)] = zoneCap
		base, swing, phase := 50+rng.Float64()*500, rng.Float64()*200, rng.Float64()*24
		for h := range 72 {
			g := base + swing*math.Sin(2*math.Pi*(float64(h)+phase)/24) + rng.Float64()*20
			pts = append(pts, carbon.Point{Zone: zone, Time: t0.Add(time.Duration(h) * time.Hour), GramsPerKWh: max(g, 1), Source: "test"})
		}
		c := carbon.Candidate{Provider: "azure", Region: fmt.Sprintf("r%d", i), Zone: zone, PricePerHour: usd(rng.Float64())}
		cands = append(cands, c)
		capacity := int64(4+rng.IntN(12)) * 1000
		w.capacity.Set(carbon.RegionKey(c), capacity)
		w.caps[carbon.RegionKey(c)] = capacity
	}
	w.intensities = carbon.NewIntensities(pts)
	for i := range runs {
		d := time.Duration(1+rng.IntN(8)) * time.Hour
		earliest := t0.Add(time.Duration(rng.IntN(6*60)) * time.Minute)
		r := carbon.Request{
			Name:      fmt.Sprintf("ns/run-%d", i),
			CPUMilli:  int64(1+rng.IntN(4)) * 1000,
			Duration:  d,
			Now:       t0,
			NotBefore: earliest,
			Deadline:  earliest.Add(d + time.Duration(rng.IntN(25))*time.Hour),
		}
		// Three to six eligible regions (all when fewer), origin first.
		perm := rng.Perm(regions)[:min(regions, 3+rng.IntN(4))]
		for _, j := range perm {
			r.Candidates = append(r.Candidates, cands[j])
		}
		w.reqs = append(w.reqs, r)
	}
	return w
}

// overCapacity returns the regions or zones and hours whose reservations
// exceed their capacity.
func overCapacity(w synthetic, reservations []carbon.Reservation) []string {
	load := map[string]map[time.Time]int64{}
	for _, r := range reservations {
		for _, key := range []string{r.Region, carbon.ZoneKey(r.Zone)} {
			if load[key] == nil {
				load[key] = map[time.Time]int64{}
			}
			for h := carbon.Hour(r.Start); h.Before(r.End); h = h.Add(time.Hour) {
				load[key][h] += r.MilliCPU
			}
		}
	}
	var over []string
	for region, byHour := range load {
		for h, v := range byHour {
			if c, ok := w.caps[region]; ok && v > c {
				over = append(over, fmt.Sprintf("%s at %s: %dm > %dm", region, h.Format(time.RFC3339), v, w.caps[region]))
			}
		}
	}
	return over
}

// TestNeverOverCapacity plans random batches together (every order and
// ScheduleBatch) and one after another through a Planner: no region and hour
// ever holds more than its capacity, and every plan meets its deadline.
func TestNeverOverCapacity(t *testing.T) {
	for seed := range uint64(40) {
		w := newSynthetic(seed, 2+int(seed%6), 10+int(seed*3%50))
		check := func(name string, reqs []carbon.Request, plans []carbon.Plan, errs []error) {
			t.Helper()
			var res []carbon.Reservation
			for i, p := range plans {
				if errs[i] != nil {
					if !errors.Is(errs[i], carbon.ErrNoCapacity) {
						t.Errorf("seed %d, %s: run %d: error = %v, want ErrNoCapacity or a plan", seed, name, i, errs[i])
					}
					continue
				}
				if p.Start.Before(reqs[i].Earliest()) || p.End.After(reqs[i].Deadline) {
					t.Errorf("seed %d, %s: run %d planned %s-%s, outside %s-%s", seed, name, i, p.Start, p.End, reqs[i].Earliest(), reqs[i].Deadline)
				}
				res = append(res, carbon.ReservationFor(reqs[i], p))
			}
			if over := overCapacity(w, res); len(over) > 0 {
				t.Errorf("seed %d, %s: over capacity: %v", seed, name, over)
			}
		}
		s := &carbon.Shifter{Intensities: w.intensities, Capacity: w.capacity}
		for _, order := range carbon.BatchOrders {
			b := s.ScheduleInOrder(w.reqs, carbon.NewLedger(), order)
			check(string(order), w.reqs, b.Plans, b.Errors)
		}
		ledger := carbon.NewLedger()
		b := s.ScheduleBatch(w.reqs, ledger)
		check("ScheduleBatch", w.reqs, b.Plans, b.Errors)
		if over := overCapacity(w, ledger.Reservations()); len(over) > 0 {
			t.Errorf("seed %d: ScheduleBatch's ledger over capacity: %v", seed, over)
		}

		p := carbon.NewPlanner(carbon.PlannerOptions{Capacity: w.capacity, Intensities: w.intensities})
		plans, errs := make([]carbon.Plan, len(w.reqs)), make([]error, len(w.reqs))
		for i, r := range w.reqs {
			plans[i], errs[i] = p.Schedule(r)
		}
		check("Planner.Schedule", w.reqs, plans, errs)
	}
}

// TestBatchOrders measures the batch orders on synthetic batches where
// capacity binds: ScheduleBatch is never worse than greedy in arrival order.
// Run with -v to see the figures docs/carbon.md quotes.
func TestBatchOrders(t *testing.T) {
	type total struct {
		Failed int
		Grams  float64
		// VCPUHours are the planned runs' vCPU x hours, so that orders
		// planning different runs compare per unit of work.
		VCPUHours float64
	}
	work := func(reqs []carbon.Request, b carbon.Batch) float64 {
		var v float64
		for i, r := range reqs {
			if b.Errors[i] == nil {
				v += float64(r.CPUMilli) / 1000 * r.Duration.Hours()
			}
		}
		return v
	}
	sums := map[carbon.BatchOrder]*total{}
	best := &total{}
	for seed := range uint64(20) {
		w := newSynthetic(1000+seed, 8, 120)
		s := &carbon.Shifter{Intensities: w.intensities, Capacity: w.capacity}
		for _, order := range carbon.BatchOrders {
			b := s.ScheduleInOrder(w.reqs, nil, order)
			if sums[order] == nil {
				sums[order] = &total{}
			}
			sums[order].Failed += b.Failed
			sums[order].Grams += b.Grams
			sums[order].VCPUHours += work(w.reqs, b)
		}
		arrival := s.ScheduleInOrder(w.reqs, nil, carbon.Arrival)
		b := s.ScheduleBatch(w.reqs, nil)
		best.Failed += b.Failed
		best.Grams += b.Grams
		best.VCPUHours += work(w.reqs, b)
		if b.Failed > arrival.Failed || (b.Failed == arrival.Failed && b.Grams > arrival.Grams*(1+1e-9)) {
			t.Errorf("seed %d: ScheduleBatch (%s) = %d failed, %.0f g; arrival order = %d failed, %.0f g", seed, b.Order, b.Failed, b.Grams, arrival.Failed, arrival.Grams)
		}
	}
	t.Logf("20 batches of 120 runs, 8 regions: %d runs in all", 20*120)
	for _, order := range carbon.BatchOrders {
		s := sums[order]
		t.Logf("%-14s runs without a plan: %4d, planned: %6.0f vCPU-h, %.1f mg per vCPU-h", order, s.Failed, s.VCPUHours, 1000*s.Grams/s.VCPUHours)
	}
	t.Logf("%-14s runs without a plan: %4d, planned: %6.0f vCPU-h, %.1f mg per vCPU-h", "ScheduleBatch", best.Failed, best.VCPUHours, 1000*best.Grams/best.VCPUHours)
}

func TestLedger(t *testing.T) {
	l := carbon.NewLedger()
	l.Reserve(carbon.Reservation{Name: "a", Region: "azure/x", Start: t0.Add(30 * time.Minute), End: t0.Add(2 * time.Hour), MilliCPU: 1000})
	l.Reserve(carbon.Reservation{Name: "b", Region: "azure/x", Start: t0.Add(time.Hour), End: t0.Add(3 * time.Hour), MilliCPU: 500})
	// Planned again: replaces.
	l.Reserve(carbon.Reservation{Name: "b", Region: "azure/x", Start: t0.Add(time.Hour), End: t0.Add(3 * time.Hour), MilliCPU: 2000})
	load := func() []int64 {
		var out []int64
		for h := range 4 {
			out = append(out, l.Load("azure/x", t0.Add(time.Duration(h)*time.Hour)))
		}
		return out
	}
	if diff := cmp.Diff([]int64{1000, 3000, 2000, 0}, load()); diff != "" {
		t.Errorf("Load() mismatch (-want +got):\n%s", diff)
	}
	if !l.Release("a") || l.Release("a") {
		t.Errorf("Release(a) twice: want true then false")
	}
	if diff := cmp.Diff([]int64{0, 2000, 2000, 0}, load()); diff != "" {
		t.Errorf("Load() after Release mismatch (-want +got):\n%s", diff)
	}
	if n := l.Prune(t0.Add(3 * time.Hour)); n != 1 {
		t.Errorf("Prune() = %d, want 1", n)
	}
	if diff := cmp.Diff([]int64{0, 0, 0, 0}, load()); diff != "" {
		t.Errorf("Load() after Prune mismatch (-want +got):\n%s", diff)
	}
}
