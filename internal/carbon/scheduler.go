package carbon

import (
	"fmt"
	"iter"
	"math"
	"slices"
	"strings"
	"time"
)

// DefaultTolerance is how close, relatively, two options' emissions must be
// to count as a near-tie, which the scheduler breaks by load: 1 %.
const DefaultTolerance = 0.01

// Shifter is the scheduler's decision as a pure function: given a run and
// the intensities, capacities and reservations already in memory, it
// chooses the candidate and start that minimise the run's forecast
// emissions before its deadline. It does no I/O and reads no clock.
//
// The objective: for each candidate with a forecast, and each start (the
// earliest start itself, then every whole UTC hour after it whose run ends
// by the deadline and that the zone's forecast reaches), the run's emissions
// are
//
//	grams = watts / 1000 x integral of intensity(t) dt over [start, start+duration)
//
// with the intensity in g/kWh constant within each hour, so a partial hour
// counts for its fraction, and watts from Energy. Hours past the zone's last
// known hour count at the zone's mean intensity (the plan says so). A run
// without a deadline is not shifted in time, only between regions.
//
// Capacity: an option is feasible when, in every hour the run touches, the
// reservations plus the run stay within the declared capacity of its region
// and of its grid zone.
// The scheduler takes the least-emitting feasible option; options within
// Tolerance of it are near-ties, broken by the lowest peak utilisation of the
// region over the run (then the lowest peak load, the least emissions, the
// earliest start, the policies' order), so that equal regions and hours
// share the work instead of one taking it all.
//
// Candidates are compared on one signal: when some zones give average and
// others marginal intensities, the marginal ones are left out. Candidates
// without any forecast are left out too, and are used (at the earliest
// start, cheapest first as NoForecast orders them) only when no candidate
// with a forecast has capacity; when no candidate has a forecast at all the
// scheduler behaves as NoForecast. Plan.Fallback says each of these.
type Shifter struct {
	// Intensities are the forecasts; nil knows no zone.
	Intensities *Intensities
	// Capacity is the regions' declared capacity; nil is unlimited.
	Capacity *Capacity
	// Energy turns the run's size into watts; the zero value means
	// DefaultEnergyModel.
	Energy EnergyModel
	// Tolerance is the relative width of a near-tie; zero means
	// DefaultTolerance, a negative value exact ties only.
	Tolerance float64
}

// option is one candidate and start.
type option struct {
	cand  int
	start int64
	grams float64
	// unknown counts the run's hours not in the forecast.
	unknown int
}

// candidateInfo is what the scheduler knows of one candidate.
type candidateInfo struct {
	series *zoneSeries
	region string
	// zone is the ZoneKey of the candidate's zone.
	zone  string
	watts float64
	// usable is false when the candidate has no forecast, or one of the
	// signal left out.
	usable bool
}

// Plan chooses a candidate and start for the run, consulting the ledger's
// reservations (nil is empty) without changing them.
func (s *Shifter) Plan(req Request, ledger *Ledger) (Plan, error) {
	if len(req.Candidates) == 0 {
		return Plan{}, fmt.Errorf("run %q: %w", req.Name, ErrNoCandidates)
	}
	if req.Duration <= 0 {
		return Plan{}, fmt.Errorf("run %q: the duration %s must be positive", req.Name, req.Duration)
	}
	earliest := req.Earliest()
	if !req.Deadline.IsZero() && earliest.Add(req.Duration).After(req.Deadline) {
		end := earliest.Add(req.Duration)
		return Plan{}, fmt.Errorf("run %q: %w: starting at %s it would end at %s, after the deadline %s", req.Name,
			ErrDeadline, earliest.UTC().Format(timeLayout), end.UTC().Format(timeLayout), req.Deadline.UTC().Format(timeLayout))
	}
	energy := s.Energy
	if energy.WattsPerVCPU == 0 && energy.WattsPerGiB == 0 {
		energy = DefaultEnergyModel
	}
	tol := s.Tolerance
	if tol == 0 {
		tol = DefaultTolerance
	}

	infos, notes := s.candidates(req, energy)
	e := &evaluation{s: s, req: req, ledger: ledger, infos: infos, tol: max(tol, 0), earliest: earliest}
	// One pass finds the least emissions and keeps the options within the
	// tolerance of the least so far: the near-ties, a handful.
	n, best := 0, math.Inf(1)
	var near []option
	for o := range e.options {
		n++
		if o.grams < best {
			best = o.grams
			limit := e.limit(best)
			near = slices.DeleteFunc(near, func(x option) bool { return x.grams > limit })
		}
		if o.grams <= e.limit(best) {
			near = append(near, o)
		}
	}
	if n == 0 {
		return e.withoutForecast(notes)
	}
	chosen, greenerFull, tie, ok := e.choose(best, near)
	if !ok {
		p, err := e.unknownWithCapacity()
		if err != nil {
			return Plan{}, err
		}
		p.Fallback = joinNotes(append(notes, "every candidate with a forecast was full: the run starts at its earliest time in the cheapest region with room, without a forecast")...)
		return p, nil
	}
	return e.plan(chosen, n, greenerFull, tie, notes), nil
}

// candidates resolves each candidate's forecast and power, and notes the
// candidates left out.
func (s *Shifter) candidates(req Request, energy EnergyModel) ([]candidateInfo, []string) {
	infos := make([]candidateInfo, len(req.Candidates))
	var average, marginal bool
	for i, c := range req.Candidates {
		infos[i].watts = energy.Watts(c.Provider, req.CPUMilli, req.MemoryBytes)
		infos[i].region = RegionKey(c)
		infos[i].zone = ZoneKey(c.Zone)
		if z := s.Intensities.series(c.Zone); z != nil {
			infos[i].series = z
			average = average || z.signal == Average
			marginal = marginal || z.signal == Marginal
		}
	}
	var missing, leftOut []string
	for i, c := range req.Candidates {
		z := infos[i].series
		switch {
		case z == nil:
			missing = append(missing, fmt.Sprintf("%s (%s)", RegionKey(c), c.Zone))
		case average && marginal && z.signal == Marginal:
			leftOut = append(leftOut, fmt.Sprintf("%s (%s)", RegionKey(c), c.Zone))
		default:
			infos[i].usable = true
		}
	}
	var notes []string
	if len(missing) > 0 && len(missing) < len(req.Candidates) {
		notes = append(notes, fmt.Sprintf("no forecast for %d of %d candidates, not compared: %s", len(missing), len(req.Candidates), strings.Join(missing, ", ")))
	}
	if len(leftOut) > 0 {
		notes = append(notes, fmt.Sprintf("the candidates' zones mix average and marginal intensities: compared on average ones, left out %s", strings.Join(leftOut, ", ")))
	}
	return infos, notes
}

// evaluation is one decision in progress.
type evaluation struct {
	s        *Shifter
	req      Request
	ledger   *Ledger
	infos    []candidateInfo
	tol      float64
	earliest time.Time
}

// options yields every usable candidate at every start, computing each
// option's emissions from the zone's running integral: two look-ups, no
// allocation, so a decision may go over the options more than once.
func (e *evaluation) options(yield func(option) bool) {
	start := e.earliest.Unix()
	dur := int64(e.req.Duration / time.Second)
	latest := start
	if !e.req.Deadline.IsZero() {
		latest = e.req.Deadline.Unix() - dur
	}
	first := Hour(e.earliest).Unix() + 3600
	for i, info := range e.infos {
		if !info.usable {
			continue
		}
		z := info.series
		lastKnown := z.start + int64(len(z.points)-1)*3600
		kw := info.watts / 1000
		for t := start; t <= latest && (t == start || t <= lastKnown); {
			v, unknown := z.integral(t, t+dur)
			if !yield(option{cand: i, start: t, grams: kw * v, unknown: unknown}) {
				return
			}
			if t == start {
				t = first
			} else {
				t += 3600
			}
		}
	}
}

// choose returns the chosen option given the least emissions of all and
// its near-ties, how many options emitting less were full, whether it won a
// near-tie on load, and false when none is feasible.
func (e *evaluation) choose(best float64, near []option) (option, int, bool, bool) {
	if o, tie, ok := e.bestOf(slices.Values(near), best); ok {
		return o, 0, tie, true
	}
	// The greenest options are full: walk the rest, least emissions first.
	sorted := slices.SortedFunc(e.options, compareOptions)
	for k, o := range sorted {
		if !e.feasible(o) {
			continue
		}
		if c, tie, ok := e.bestOf(slices.Values(sorted[k:]), o.grams); ok {
			return c, k, tie, true
		}
	}
	return option{}, 0, false, false
}

// bestOf returns the feasible near-tie of best with the least load, and
// whether more than one near-tie was feasible.
func (e *evaluation) bestOf(opts iter.Seq[option], best float64) (option, bool, bool) {
	limit := e.limit(best)
	var chosen option
	var chosenLoad load
	var n int
	for o := range opts {
		if o.grams > limit {
			continue
		}
		l, ok := e.load(o)
		if !ok {
			continue
		}
		n++
		if n == 1 || l.less(chosenLoad) || (l == chosenLoad && compareOptions(o, chosen) < 0) {
			chosen, chosenLoad = o, l
		}
	}
	return chosen, n > 1, n > 0
}

// limit returns the largest emissions that are a near-tie of best.
func (e *evaluation) limit(best float64) float64 { return best + math.Abs(best)*e.tol }

// compareOptions orders by emissions, then start, then the policies'
// order.
func compareOptions(a, b option) int {
	switch {
	case a.grams != b.grams:
		if a.grams < b.grams {
			return -1
		}
		return 1
	case a.start != b.start:
		if a.start < b.start {
			return -1
		}
		return 1
	}
	return a.cand - b.cand
}

// load is a region's peak over a run's hours, counting the run.
type load struct {
	utilisation float64
	milliCPU    int64
}

func (l load) less(o load) bool {
	if l.utilisation != o.utilisation {
		return l.utilisation < o.utilisation
	}
	return l.milliCPU < o.milliCPU
}

// load returns the peak load over the option's run of its region and,
// when the zone's capacity is declared, its zone; false when an hour would
// exceed either's capacity.
func (e *evaluation) load(o option) (load, bool) {
	info := &e.infos[o.cand]
	r := Reservation{Start: time.Unix(o.start, 0), End: time.Unix(o.start, 0).Add(e.req.Duration)}
	first, last := r.hours()
	var peak load
	for t := first; t <= last; t += 3600 {
		used := e.ledger.loadAt(info.region, t) + e.req.CPUMilli
		peak.milliCPU = max(peak.milliCPU, used)
		if c, ok := e.s.Capacity.at(info.region, t); ok {
			if used > c {
				return load{}, false
			}
			if c > 0 {
				peak.utilisation = max(peak.utilisation, float64(used)/float64(c))
			}
		}
		if c, ok := e.s.Capacity.at(info.zone, t); ok {
			zoneUsed := e.ledger.loadAt(info.zone, t) + e.req.CPUMilli
			if zoneUsed > c {
				return load{}, false
			}
			if c > 0 {
				peak.utilisation = max(peak.utilisation, float64(zoneUsed)/float64(c))
			}
		}
	}
	return peak, true
}

func (e *evaluation) feasible(o option) bool {
	_, ok := e.load(o)
	return ok
}

// plan turns the chosen option into a Plan.
func (e *evaluation) plan(o option, n, greenerFull int, tie bool, notes []string) Plan {
	c := e.req.Candidates[o.cand]
	info := e.infos[o.cand]
	start := time.Unix(o.start, 0).UTC()
	if o.start == e.earliest.Unix() {
		start = e.earliest
	}
	end := start.Add(e.req.Duration)
	p := Plan{Candidate: c, Start: start, End: end, ExpectedGrams: o.grams}
	source, fallback := info.series.sources(o.start, end.Unix())
	p.Source = source
	var planNotes []string
	if fallback != "" {
		planNotes = append(planNotes, fallback)
	}
	if info.series.dropped != "" {
		planNotes = append(planNotes, fmt.Sprintf("zone %s: %s", c.Zone, info.series.dropped))
	}
	planNotes = append(planNotes, notes...)
	if o.unknown > 0 {
		planNotes = append(planNotes, fmt.Sprintf("%d hour(s) of the run lie outside zone %s's forecast and count at its mean, %.1f g/kWh", o.unknown, c.Zone, info.series.mean))
	}

	base := e.infos[0]
	baseStart := e.earliest.Unix()
	if base.usable {
		v, _ := base.series.integral(baseStart, baseStart+int64(e.req.Duration/time.Second))
		p.BaselineGrams = base.watts / 1000 * v
	} else {
		planNotes = append(planNotes, fmt.Sprintf("the baseline %s (%s) has no comparable forecast: its emissions are not known", RegionKey(e.req.Candidates[0]), e.req.Candidates[0].Zone))
	}
	p.Fallback = joinNotes(planNotes...)

	var why strings.Builder
	fmt.Fprintf(&why, "%s (%s) from %s emits %.1f g", RegionKey(c), c.Zone, start.UTC().Format(timeLayout), o.grams)
	if base.usable {
		saved := 0.0
		if p.BaselineGrams > 0 {
			saved = 100 * (p.BaselineGrams - o.grams) / p.BaselineGrams
		}
		fmt.Fprintf(&why, ", %.0f%% less than %s from the earliest start (%.1f g)", saved, RegionKey(e.req.Candidates[0]), p.BaselineGrams)
	}
	fmt.Fprintf(&why, ": the least of %d region-start options", n)
	if !e.req.Deadline.IsZero() {
		// The window's end: the deadline, or a pinned start plus the
		// duration, which the caller passes as the deadline.
		fmt.Fprintf(&why, " that end by %s", e.req.Deadline.UTC().Format(timeLayout))
	}
	if greenerFull > 0 {
		fmt.Fprintf(&why, " with room (%d greener options were full)", greenerFull)
	}
	if tie {
		fmt.Fprintf(&why, "; among options within %.0f%% of each other, the least loaded", e.tol*100)
	}
	p.Reason = why.String()
	return p
}

// withoutForecast plans a run no candidate has a usable forecast for: as
// NoForecast, but within capacity.
func (e *evaluation) withoutForecast(notes []string) (Plan, error) {
	p, err := e.unknownWithCapacity()
	if err != nil {
		return Plan{}, err
	}
	p.Fallback = joinNotes(append([]string{"no carbon intensity is known for any eligible region: the run starts at its earliest time in the cheapest region"}, notes...)...)
	return p, nil
}

// unknownWithCapacity starts the run at its earliest time in the cheapest
// candidate (then the nearest, then the policies' order) with room.
func (e *evaluation) unknownWithCapacity() (Plan, error) {
	order := make([]int, len(e.req.Candidates))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		ca, cb := e.req.Candidates[a], e.req.Candidates[b]
		// One currency per request (the policy engine refuses two).
		if c, _ := ca.PricePerHour.Cmp(cb.PricePerHour); c != 0 {
			return c
		}
		switch {
		case ca.LatencyMs < cb.LatencyMs:
			return -1
		case ca.LatencyMs > cb.LatencyMs:
			return 1
		}
		return 0
	})
	for rank, i := range order {
		o := option{cand: i, start: e.earliest.Unix()}
		if !e.feasible(o) {
			continue
		}
		c := e.req.Candidates[i]
		reason := fmt.Sprintf("%s is the cheapest of %d eligible regions (%s/h)", RegionKey(c), len(e.req.Candidates), c.PricePerHour)
		if rank > 0 {
			reason = fmt.Sprintf("%s is the cheapest of %d eligible regions with room (%s/h; %d cheaper were full)", RegionKey(c), len(e.req.Candidates), c.PricePerHour, rank)
		}
		return Plan{Candidate: c, Start: e.earliest, End: e.earliest.Add(e.req.Duration), Source: "none", Reason: reason}, nil
	}
	return Plan{}, fmt.Errorf("run %q of %dm CPU: %w", e.req.Name, e.req.CPUMilli, ErrNoCapacity)
}

func joinNotes(notes ...string) string {
	return strings.Join(slices.DeleteFunc(notes, func(s string) bool { return s == "" }), "; ")
}
