package carbon

import (
	"slices"
	"strings"
	"time"
)

// RegionKey names a candidate's region in a Capacity and a Ledger:
// "provider/region", e.g. "azure/westeurope".
func RegionKey(c Candidate) string { return c.Provider + "/" + c.Region }

// ZoneKey names a grid zone in a Capacity and a Ledger: "zone:" and the
// zone, e.g. "zone:NL". A zone's capacity bounds the runs of every region
// it powers together.
func ZoneKey(zone string) string { return "zone:" + zone }

// Capacity is the declared capacity of regions (RegionKey) and grid zones
// (ZoneKey), in millicores of CPU per hour, that the scheduler must not
// exceed: a constant per key, with overrides for single hours. A run counts
// against both its region and its zone; a key without a declared capacity
// is unlimited, and a nil Capacity leaves everything unlimited. Build it
// before sharing it; it is read-only afterwards.
type Capacity struct {
	regions map[string]int64
	hours   map[string]map[int64]int64
}

// NewCapacity returns a Capacity with no region declared.
func NewCapacity() *Capacity {
	return &Capacity{regions: map[string]int64{}, hours: map[string]map[int64]int64{}}
}

// Set declares the region's capacity for every hour, in millicores (a
// capacity of 64 vCPU is 64000). It returns c for chaining.
func (c *Capacity) Set(region string, milliCPU int64) *Capacity {
	c.regions[region] = milliCPU
	return c
}

// SetHour declares the region's capacity for the hour that holds t,
// overriding Set for that hour.
func (c *Capacity) SetHour(region string, t time.Time, milliCPU int64) *Capacity {
	h, ok := c.hours[region]
	if !ok {
		h = map[int64]int64{}
		c.hours[region] = h
	}
	h[Hour(t).Unix()] = milliCPU
	return c
}

// At returns the region's capacity in the hour that holds t, and false when
// it is unlimited.
func (c *Capacity) At(region string, t time.Time) (int64, bool) {
	return c.at(region, Hour(t).Unix())
}

func (c *Capacity) at(region string, hour int64) (int64, bool) {
	if c == nil {
		return 0, false
	}
	if h, ok := c.hours[region]; ok {
		if v, ok := h[hour]; ok {
			return v, true
		}
	}
	v, ok := c.regions[region]
	return v, ok
}

// A Reservation is the CPU a planned run holds in a region for every hour
// its run touches.
type Reservation struct {
	// Name is the run's name (Request.Name); a run holds one reservation.
	Name string
	// Region is the RegionKey of the plan's candidate.
	Region string
	// Zone is the candidate's grid zone; the run counts against ZoneKey(Zone)
	// too.
	Zone string
	// Start and End bound the run.
	Start, End time.Time
	// MilliCPU is the run's size.
	MilliCPU int64
}

// ReservationFor returns the reservation of a run planned as p.
func ReservationFor(req Request, p Plan) Reservation {
	return Reservation{Name: req.Name, Region: RegionKey(p.Candidate), Zone: p.Candidate.Zone, Start: p.Start, End: p.End, MilliCPU: req.CPUMilli}
}

// hours returns the Unix seconds of the first and the last hour the
// reservation touches; a run that ends on the hour does not touch the next.
func (r Reservation) hours() (first, last int64) {
	first = Hour(r.Start).Unix()
	last = Hour(r.End.Add(-time.Nanosecond)).Unix()
	return first, max(first, last)
}

// Ledger holds the reservations of the runs already planned, and the load
// they put on each region, grid zone and hour; the scheduler consults it so that runs
// planned one after another never exceed a region's capacity. A Ledger is
// not safe for concurrent use: Planner guards its own.
type Ledger struct {
	byName map[string]Reservation
	load   map[string]map[int64]int64
}

// NewLedger returns an empty Ledger.
func NewLedger() *Ledger {
	return &Ledger{byName: map[string]Reservation{}, load: map[string]map[int64]int64{}}
}

// Reserve records r, replacing the reservation of the same name if any (a
// run planned again).
func (l *Ledger) Reserve(r Reservation) {
	l.Release(r.Name)
	l.byName[r.Name] = r
	l.add(r, r.MilliCPU)
}

// Release drops the named run's reservation and reports whether it held one.
func (l *Ledger) Release(name string) bool {
	r, ok := l.byName[name]
	if !ok {
		return false
	}
	delete(l.byName, name)
	l.add(r, -r.MilliCPU)
	return true
}

func (l *Ledger) add(r Reservation, milliCPU int64) {
	l.addTo(r.Region, r, milliCPU)
	if r.Zone != "" {
		l.addTo(ZoneKey(r.Zone), r, milliCPU)
	}
}

func (l *Ledger) addTo(key string, r Reservation, milliCPU int64) {
	first, last := r.hours()
	h, ok := l.load[key]
	if !ok {
		h = map[int64]int64{}
		l.load[key] = h
	}
	for t := first; t <= last; t += 3600 {
		h[t] += milliCPU
		if h[t] == 0 {
			delete(h, t)
		}
	}
	if len(h) == 0 {
		delete(l.load, key)
	}
}

// Prune drops the reservations of runs that ended at or before t and returns
// how many it dropped.
func (l *Ledger) Prune(t time.Time) int {
	var n int
	for name, r := range l.byName {
		if !r.End.After(t) {
			l.Release(name)
			n++
		}
	}
	return n
}

// Load returns the millicores reserved in the region (RegionKey) or zone
// (ZoneKey) for the hour that holds t.
func (l *Ledger) Load(region string, t time.Time) int64 {
	return l.loadAt(region, Hour(t).Unix())
}

func (l *Ledger) loadAt(region string, hour int64) int64 {
	if l == nil {
		return 0
	}
	return l.load[region][hour]
}

// Reservations returns the reservations, sorted by name.
func (l *Ledger) Reservations() []Reservation {
	out := make([]Reservation, 0, len(l.byName))
	for _, r := range l.byName {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b Reservation) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Clone returns an independent copy of the ledger.
func (l *Ledger) Clone() *Ledger {
	c := NewLedger()
	if l == nil {
		return c
	}
	for name, r := range l.byName {
		c.byName[name] = r
	}
	for region, h := range l.load {
		ch := make(map[int64]int64, len(h))
		for t, v := range h {
			ch[t] = v
		}
		c.load[region] = ch
	}
	return c
}
