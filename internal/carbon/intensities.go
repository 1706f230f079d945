package carbon

import (
	"slices"
	"sort"
	"strings"
	"time"
)

// Intensities is a snapshot of hourly carbon intensities per grid zone, held
// in memory for the scheduler: a Refresher fills one from a Source, and the
// scheduler reads it without I/O. It is immutable once built, so any number of
// decisions may read one snapshot while a newer one is being built.
//
// Each zone is a dense run of hours from its first to its last known hour;
// hours inside it that no point covered are holes, counted at the zone's mean
// intensity (and reported). Per zone the snapshot also keeps the running
// integral of intensity over its hours, so that the emissions of a run of any
// length cost two look-ups.
type Intensities struct {
	zones map[string]*zoneSeries
}

// zoneSeries is one zone's hours.
type zoneSeries struct {
	// start is the first hour, in Unix seconds.
	start int64
	// points are the hours from start, one per hour; a hole has Time zero.
	points []Point
	// grams is points[i].GramsPerKWh, or mean for a hole.
	grams []float64
	// cum[i] is the sum of grams[:i]: gram-hours per kWh per hour of run.
	cum []float64
	// mean is the mean intensity of the known hours; it stands for the
	// holes and for the hours past the last known one.
	mean float64
	// holes counts the hours inside the series that no point covered.
	holes int
	// signal is the one signal of the series.
	signal Signal
	// dropped, when not empty, says which points of another signal were
	// left out.
	dropped string
}

// NewIntensities builds a snapshot from points of any zones, in any order.
// Points are aligned to their hour (a later point of the same zone and hour
// replaces an earlier one). A zone must be compared on one signal: when a
// zone has both average and marginal points, its marginal ones are left out,
// and Signal reports it.
func NewIntensities(points []Point) *Intensities {
	byZone := map[string][]Point{}
	for _, p := range points {
		p.Time = Hour(p.Time)
		if p.Signal == "" {
			p.Signal = Average
		}
		byZone[p.Zone] = append(byZone[p.Zone], p)
	}
	in := &Intensities{zones: make(map[string]*zoneSeries, len(byZone))}
	for zone, pts := range byZone {
		if s := newZoneSeries(pts); s != nil {
			in.zones[zone] = s
		}
	}
	return in
}

func newZoneSeries(pts []Point) *zoneSeries {
	s := &zoneSeries{signal: Marginal}
	var marginal int
	for _, p := range pts {
		if p.Signal == Average {
			s.signal = Average
		} else {
			marginal++
		}
	}
	if s.signal == Average && marginal > 0 {
		kept := pts[:0:0]
		for _, p := range pts {
			if p.Signal == Average {
				kept = append(kept, p)
			}
		}
		pts = kept
		s.dropped = "its marginal hours were left out for its average ones"
	}
	// Stable, so that the later of two points of one hour wins below.
	sort.SliceStable(pts, func(i, j int) bool { return pts[i].Time.Before(pts[j].Time) })
	if len(pts) == 0 {
		return nil
	}
	s.start = pts[0].Time.Unix()
	n := int((pts[len(pts)-1].Time.Unix()-s.start)/3600) + 1
	s.points = make([]Point, n)
	known := make([]bool, n)
	var sum float64
	for _, p := range pts {
		i := int((p.Time.Unix() - s.start) / 3600)
		if known[i] {
			sum -= s.points[i].GramsPerKWh
		}
		s.points[i], known[i] = p, true
		sum += p.GramsPerKWh
	}
	var count int
	for _, k := range known {
		if k {
			count++
		}
	}
	s.mean = sum / float64(count)
	s.holes = n - count
	s.grams = make([]float64, n)
	s.cum = make([]float64, n+1)
	for i := range s.points {
		g := s.mean
		if known[i] {
			g = s.points[i].GramsPerKWh
		} else {
			s.points[i] = Point{}
		}
		s.grams[i] = g
		s.cum[i+1] = s.cum[i] + g
	}
	return s
}

// At returns the intensity of the zone's hour that holds t, with the point
// it came from, and false when the snapshot holds no point for that hour.
func (in *Intensities) At(zone string, t time.Time) (Point, bool) {
	s := in.series(zone)
	if s == nil {
		return Point{}, false
	}
	i := (Hour(t).Unix() - s.start) / 3600
	if i < 0 || i >= int64(len(s.points)) || s.points[i].Time.IsZero() {
		return Point{}, false
	}
	return s.points[i], true
}

// Zones returns the zones the snapshot knows, sorted.
func (in *Intensities) Zones() []string {
	if in == nil {
		return nil
	}
	zones := make([]string, 0, len(in.zones))
	for z := range in.zones {
		zones = append(zones, z)
	}
	slices.Sort(zones)
	return zones
}

// Points returns the zone's known hours, oldest first.
func (in *Intensities) Points(zone string) []Point {
	s := in.series(zone)
	if s == nil {
		return nil
	}
	out := make([]Point, 0, len(s.points)-s.holes)
	for _, p := range s.points {
		if !p.Time.IsZero() {
			out = append(out, p)
		}
	}
	return out
}

// Signal returns the signal the zone's hours count, and false when the zone
// is unknown.
func (in *Intensities) Signal(zone string) (Signal, bool) {
	s := in.series(zone)
	if s == nil {
		return "", false
	}
	return s.signal, true
}

// Last returns the start of the zone's last known hour, and false when the
// zone is unknown.
func (in *Intensities) Last(zone string) (time.Time, bool) {
	s := in.series(zone)
	if s == nil {
		return time.Time{}, false
	}
	return time.Unix(s.start+int64(len(s.points)-1)*3600, 0).UTC(), true
}

func (in *Intensities) series(zone string) *zoneSeries {
	if in == nil {
		return nil
	}
	return in.zones[zone]
}

// cumAt returns the integral of the zone's intensity from its first hour to
// the Unix time t, in g/kWh x hours. Before the first hour and after the last
// the zone's mean stands in.
func (s *zoneSeries) cumAt(t int64) float64 {
	d := t - s.start
	if d >= 0 && d%3600 == 0 && d/3600 <= int64(len(s.grams)) {
		// A whole hour inside the series, as most starts and ends are.
		return s.cum[d/3600]
	}
	h := float64(d) / 3600
	n := float64(len(s.grams))
	switch {
	case h <= 0:
		return h * s.mean
	case h >= n:
		return s.cum[len(s.grams)] + (h-n)*s.mean
	}
	i := int(h)
	return s.cum[i] + (h-float64(i))*s.grams[i]
}

// integral returns the integral of the zone's intensity over [from, to), Unix
// seconds, in g/kWh x hours, and how many of the hours it touches were not
// known (holes, or outside the series).
func (s *zoneSeries) integral(from, to int64) (float64, int) {
	v := s.cumAt(to) - s.cumAt(from)
	first := floorDiv(from-s.start, 3600)
	last := floorDiv(to-1-s.start, 3600)
	var unknown int
	if first < 0 {
		unknown += int(min(last, -1) - first + 1)
	}
	if n := int64(len(s.points)); last >= n {
		unknown += int(last - max(first, n) + 1)
	}
	if s.holes > 0 {
		for i := max(first, 0); i <= min(last, int64(len(s.points))-1); i++ {
			if s.points[i].Time.IsZero() {
				unknown++
			}
		}
	}
	return v, unknown
}

// sources returns the sources and the first fallback reason of the known
// hours the range [from, to) touches.
func (s *zoneSeries) sources(from, to int64) (source, fallback string) {
	first := max(floorDiv(from-s.start, 3600), 0)
	last := min(floorDiv(to-1-s.start, 3600), int64(len(s.points))-1)
	var names []string
	for i := first; i <= last; i++ {
		p := s.points[i]
		if p.Time.IsZero() {
			continue
		}
		if !slices.Contains(names, p.Source) {
			names = append(names, p.Source)
		}
		if fallback == "" && p.Fallback != "" {
			fallback = p.Fallback
		}
	}
	return strings.Join(names, "+"), fallback
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// GramsPerKWh returns the intensity of the zone's hour that holds t, and
// false when the snapshot holds no point for it; it makes Intensities a
// placement.CarbonIntensity.
func (in *Intensities) GramsPerKWh(zone string, t time.Time) (float64, bool) {
	p, ok := in.At(zone, t)
	return p.GramsPerKWh, ok
}
