package carbon_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/meridian-dev/meridian/internal/carbon"
)

// BenchmarkSchedule50x48 is one decision over 50 regions and 48 hourly
// starts (a 3-hour run, 48 hours of slack), with declared capacities and a
// ledger of 200 runs: the webhook's budget is well over what it takes.
//
//	go test ./internal/carbon -run '^$' -bench Schedule50x48 -benchmem
func BenchmarkSchedule50x48(b *testing.B) {
	var pts []carbon.Point
	var cands []carbon.Candidate
	capacity := carbon.NewCapacity()
	for i := range 50 {
		zone := fmt.Sprintf("Z%02d", i)
		for h := range 52 {
			g := 200 + 150*math.Sin(2*math.Pi*float64(h+i)/24) + float64(i)
			pts = append(pts, carbon.Point{Zone: zone, Time: t0.Add(time.Duration(h) * time.Hour), GramsPerKWh: g, Source: "bench"})
		}
		c := carbon.Candidate{Provider: "azure", Region: fmt.Sprintf("region-%02d", i), Zone: zone, PricePerHour: usd(0.1)}
		cands = append(cands, c)
		capacity.Set(carbon.RegionKey(c), 64000)
	}
	ledger := carbon.NewLedger()
	for i := range 200 {
		start := t0.Add(time.Duration(i%48) * time.Hour)
		ledger.Reserve(carbon.Reservation{Name: fmt.Sprintf("ns/r%d", i), Region: carbon.RegionKey(cands[i%50]), Start: start, End: start.Add(3 * time.Hour), MilliCPU: 8000})
	}
	s := &carbon.Shifter{Intensities: carbon.NewIntensities(pts), Capacity: capacity}
	req := carbon.Request{
		Name: "ns/vm", CPUMilli: 4000, MemoryBytes: 16 << 30, Duration: 3 * time.Hour,
		Now: t0.Add(7 * time.Minute), Deadline: t0.Add(51 * time.Hour), Candidates: cands,
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Plan(req, ledger); err != nil {
			b.Fatal(err)
		}
	}
}
