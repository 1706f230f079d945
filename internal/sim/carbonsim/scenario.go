package carbonsim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/meridian-dev/meridian/internal/carbon"
	"github.com/meridian-dev/meridian/internal/carbon/offline"
	"github.com/meridian-dev/meridian/internal/policy"
)

// Defaults of Options.
const (
	// DefaultSeed is the built-in scenario's seed.
	DefaultSeed = 1
	// DefaultJobs is how many jobs arrive over the year.
	DefaultJobs = 2000
	// DefaultYear is the replayed year: the last one every zone of the
	// policy data with hourly data has whole, with the year before it to
	// train the forecaster on.
	DefaultYear = 2023
	// DefaultHeadroom is each region's capacity over the carbon-agnostic
	// peak load on it.
	DefaultHeadroom = 1.5
)

// Bounds of the generated trace.
const (
	minDuration = 10 * time.Minute
	maxDuration = 72 * time.Hour
	maxSlack    = 48 * time.Hour
	gibibyte    = int64(1) << 30
)

// sizes are the jobs' vCPU counts, drawn uniformly; each vCPU comes with
// 4 GiB of memory.
var sizes = []int64{1, 2, 4, 8, 16, 32}

// latencyLimits are the jobs' round-trip limits from the origin, drawn
// uniformly; 0 is no limit.
var latencyLimits = []float64{0, 0, 50, 100, 150}

// Options configure a scenario.
type Options struct {
	// Seed draws the trace; DefaultSeed when zero.
	Seed uint64
	// Jobs is how many jobs arrive; DefaultJobs when zero.
	Jobs int
	// Year is the replayed calendar year (UTC); DefaultYear when zero.
	Year int
	// Headroom is each region's capacity over the carbon-agnostic peak
	// load on it; DefaultHeadroom when zero. It must be at least 1.
	Headroom float64
}

func (o Options) withDefaults() (Options, error) {
	if o.Seed == 0 {
		o.Seed = DefaultSeed
	}
	if o.Jobs == 0 {
		o.Jobs = DefaultJobs
	}
	if o.Year == 0 {
		o.Year = DefaultYear
	}
	if o.Headroom == 0 {
		o.Headroom = DefaultHeadroom
	}
	switch {
	case o.Jobs < 0:
		return o, fmt.Errorf("invalid jobs %d: must be positive", o.Jobs)
	case o.Headroom < 1:
		return o, fmt.Errorf("invalid headroom %g: must be at least 1 (the carbon-agnostic peak must fit)", o.Headroom)
	}
	return o, nil
}

// A Region is one place jobs may run: a provider's region, its grid zone
// and its declared capacity.
type Region struct {
	// Key is carbon.RegionKey: "provider/region".
	Key  string `json:"key"`
	Zone string `json:"zone"`
	// MilliCPU is the declared capacity, in millicores per hour.
	MilliCPU int64 `json:"milliCPU"`
}

// A Job is one run of the trace.
type Job struct {
	Name string `json:"name"`
	// Origin is the RegionKey of the region the job comes from.
	Origin string `json:"origin"`
	// Arrival is when the job is submitted: its decision time and earliest
	// start.
	Arrival  time.Time     `json:"arrival"`
	Duration time.Duration `json:"duration"`
	// Deadline is when it must have ended.
	Deadline    time.Time `json:"deadline"`
	CPUMilli    int64     `json:"cpuMilli"`
	MemoryBytes int64     `json:"memoryBytes"`
	// MaxLatencyMs (0: none) and Residency ("" or "EU") are its policies'
	// limits.
	MaxLatencyMs float64 `json:"maxLatencyMs,omitempty"`
	Residency    string  `json:"residency,omitempty"`
	// Candidates are the regions the policy engine left, restricted to the
	// scenario's, in the policies' order: the origin first.
	Candidates []carbon.Candidate `json:"candidates"`
}

// Request returns the job as the scheduler's request.
func (j *Job) Request() carbon.Request {
	return carbon.Request{Name: j.Name, CPUMilli: j.CPUMilli, MemoryBytes: j.MemoryBytes, Duration: j.Duration,
		Now: j.Arrival, Deadline: j.Deadline, Candidates: j.Candidates}
}

// A Scenario is a year of intensities, the regions and the job trace.
type Scenario struct {
	Name     string    `json:"name"`
	Seed     uint64    `json:"seed"`
	Year     int       `json:"year"`
	From     time.Time `json:"from"`
	To       time.Time `json:"to"`
	Headroom float64   `json:"headroom"`
	Regions  []Region  `json:"regions"`
	Jobs     []Job     `json:"-"`

	// Data is the offline dataset the intensities come from.
	Data *offline.Dataset `json:"-"`
	// Actual are the recorded intensities of the regions' zones from a
	// week before From to a week after To (the forecaster reads the weeks
	// around the year).
	Actual *carbon.Intensities `json:"-"`
	// Capacity holds the regions' MilliCPU.
	Capacity *carbon.Capacity `json:"-"`
	// Energy is the energy model of every run.
	Energy carbon.EnergyModel `json:"-"`
}

// Zones returns the distinct grid zones of the regions, sorted.
func (s *Scenario) Zones() []string {
	var zones []string
	for _, r := range s.Regions {
		if !slices.Contains(zones, r.Zone) {
			zones = append(zones, r.Zone)
		}
	}
	slices.Sort(zones)
	return zones
}

// Watts returns the power of the job on the candidate's provider.
func (s *Scenario) Watts(j *Job, c carbon.Candidate) float64 {
	return s.Energy.Watts(c.Provider, j.CPUMilli, j.MemoryBytes)
}

// Grams returns the actual emissions of the job run on the candidate from
// start.
func (s *Scenario) Grams(j *Job, c carbon.Candidate, start time.Time) float64 {
	v, _, _ := s.Actual.Integral(c.Zone, start, start.Add(j.Duration))
	return s.Watts(j, c) / 1000 * v
}

// New builds the scenario: the regions from the policy engine's data whose
// zone the dataset records hourly for the whole year, the job trace drawn
// from the seed with each job's candidates from engine, and the capacities.
func New(ctx context.Context, engine *policy.Engine, data *offline.Dataset, opts Options) (*Scenario, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	from := time.Date(opts.Year, 1, 1, 0, 0, 0, 0, time.UTC)
	to := from.AddDate(1, 0, 0)
	s := &Scenario{Name: fmt.Sprintf("carbon-%d-seed-%d", opts.Year, opts.Seed), Seed: opts.Seed, Year: opts.Year,
		From: from, To: to, Headroom: opts.Headroom, Data: data, Energy: carbon.DefaultEnergyModel}
	if err := s.loadRegions(ctx, engine); err != nil {
		return nil, err
	}
	if err := s.loadActual(ctx); err != nil {
		return nil, err
	}
	if err := s.generate(ctx, engine, opts); err != nil {
		return nil, err
	}
	s.declareCapacity()
	return s, nil
}

// loadRegions keeps the policy data's regions whose zone has every hour of
// the year recorded.
func (s *Scenario) loadRegions(ctx context.Context, engine *policy.Engine) error {
	regions, err := engine.RegionZones(ctx)
	if err != nil {
		return fmt.Errorf("failed to read the policy data's regions: %w", err)
	}
	for key, zone := range regions {
		series, ok, err := s.Data.Hourly(zone)
		if err != nil {
			return fmt.Errorf("failed to read the hourly data of zone %q: %w", zone, err)
		}
		if !ok || series.First.After(s.From) || series.Last().Before(s.To.Add(-time.Hour)) {
			continue
		}
		s.Regions = append(s.Regions, Region{Key: key, Zone: zone})
	}
	if len(s.Regions) < 2 {
		return fmt.Errorf("invalid year %d: %d regions of the policy data have hourly data for it, want at least 2", s.Year, len(s.Regions))
	}
	slices.SortFunc(s.Regions, func(a, b Region) int { return strings.Compare(a.Key, b.Key) })
	return nil
}

// loadActual reads the zones' recorded hours around the year.
func (s *Scenario) loadActual(ctx context.Context) error {
	src := offline.New(s.Data, nil)
	var points []carbon.Point
	for _, zone := range s.Zones() {
		pts, err := src.History(ctx, zone, s.From.Add(-7*24*time.Hour), s.To.Add(8*24*time.Hour))
		if err != nil {
			return fmt.Errorf("failed to read the history of zone %q: %w", zone, err)
		}
		points = append(points, pts...)
	}
	s.Actual = carbon.NewIntensities(points)
	return nil
}

// generate draws the jobs, in arrival order.
func (s *Scenario) generate(ctx context.Context, engine *policy.Engine, opts Options) error {
	rng := rand.New(rand.NewPCG(opts.Seed, 0x6d657269646961))
	minutes := int64(s.To.Sub(s.From) / time.Minute)
	arrivals := make([]int64, opts.Jobs)
	for i := range arrivals {
		arrivals[i] = rng.Int64N(minutes)
	}
	slices.Sort(arrivals)
	type key struct {
		origin    string
		limit     float64
		residency string
		cpu       int64
	}
	cache := map[key][]carbon.Candidate{}
	known := map[string]bool{}
	for _, r := range s.Regions {
		known[r.Key] = true
	}
	width := len(fmt.Sprint(opts.Jobs))
	for i, at := range arrivals {
		origin := s.Regions[rng.IntN(len(s.Regions))]
		vcpu := sizes[rng.IntN(len(sizes))]
		logD := math.Log(float64(minDuration)) + rng.Float64()*(math.Log(float64(maxDuration))-math.Log(float64(minDuration)))
		duration := time.Duration(math.Exp(logD)).Round(time.Minute)
		slack := time.Duration(0)
		if rng.IntN(10) > 0 {
			slack = time.Duration(rng.Int64N(int64(maxSlack/time.Minute)+1)) * time.Minute
		}
		limit := latencyLimits[rng.IntN(len(latencyLimits))]
		residency := ""
		if rng.IntN(3) == 0 {
			residency = "EU"
		}
		arrival := s.From.Add(time.Duration(at) * time.Minute)
		j := Job{Name: fmt.Sprintf("job-%0*d", width, i), Origin: origin.Key, Arrival: arrival, Duration: duration,
			Deadline: arrival.Add(duration + slack), CPUMilli: vcpu * 1000, MemoryBytes: 4 * vcpu * gibibyte, MaxLatencyMs: limit}
		k := key{origin: origin.Key, limit: limit, residency: residency, cpu: vcpu}
		cands, ok := cache[k]
		if !ok {
			var err error
			if cands, err = s.candidates(ctx, engine, &j, residency, known); err != nil {
				return err
			}
			cache[k] = cands
		}
		if cands == nil {
			// The origin is outside the jurisdiction: only jobs from it
			// ask to stay in it.
			residency = ""
			k.residency = ""
			if cands, ok = cache[k]; !ok {
				var err error
				if cands, err = s.candidates(ctx, engine, &j, "", known); err != nil {
					return err
				}
				cache[k] = cands
			}
		}
		j.Residency = residency
		j.Candidates = cands
		s.Jobs = append(s.Jobs, j)
	}
	return nil
}

// errOrigin means the policies removed a job's own origin.
var errOrigin = errors.New("the policies removed the job's origin")

// candidates asks the policy engine for the job's regions and keeps the
// scenario's.
func (s *Scenario) candidates(ctx context.Context, engine *policy.Engine, j *Job, residency string, known map[string]bool) ([]carbon.Candidate, error) {
	region := j.Origin[strings.Index(j.Origin, "/")+1:]
	d, err := engine.VM(ctx, policy.VMInput{Name: j.Name, CPUMilli: j.CPUMilli, MemoryMiB: j.MemoryBytes >> 20,
		OriginRegion: region, MaxLatencyMs: j.MaxLatencyMs, Residency: residency})
	if err != nil {
		return nil, fmt.Errorf("failed to decide the regions of job %s: %w", j.Name, err)
	}
	var out []carbon.Candidate
	for _, c := range d.Candidates {
		if known[carbon.RegionKey(c)] {
			out = append(out, c)
		}
	}
	if residency != "" && (len(out) == 0 || carbon.RegionKey(out[0]) != j.Origin) {
		return nil, nil
	}
	if len(out) == 0 || carbon.RegionKey(out[0]) != j.Origin {
		return nil, fmt.Errorf("job %s from %s, %d vCPU: %w", j.Name, j.Origin, j.CPUMilli/1000, errOrigin)
	}
	return out, nil
}

// declareCapacity sets each region's capacity to Headroom times the peak
// load of every job run at its origin at once, and at least the largest job
// that may run there.
func (s *Scenario) declareCapacity() {
	ledger := carbon.NewLedger()
	largest := map[string]int64{}
	for i := range s.Jobs {
		j := &s.Jobs[i]
		ledger.Reserve(carbon.Reservation{Name: j.Name, Region: j.Origin, Start: j.Arrival, End: j.Arrival.Add(j.Duration), MilliCPU: j.CPUMilli})
		for _, c := range j.Candidates {
			largest[carbon.RegionKey(c)] = max(largest[carbon.RegionKey(c)], j.CPUMilli)
		}
	}
	s.Capacity = carbon.NewCapacity()
	for i := range s.Regions {
		r := &s.Regions[i]
		var peak int64
		for h := s.From; h.Before(s.To.Add(maxDuration)); h = h.Add(time.Hour) {
			peak = max(peak, ledger.Load(r.Key, h))
		}
		c := int64(math.Ceil(float64(peak)*s.Headroom/1000)) * 1000
		r.MilliCPU = max(c, largest[r.Key])
		s.Capacity.Set(r.Key, r.MilliCPU)
	}
}
