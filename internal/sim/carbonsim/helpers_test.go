package carbonsim

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/meridian-dev/meridian/internal/carbon"
	"github.com/meridian-dev/meridian/internal/carbon/offline"
	"github.com/meridian-dev/meridian/internal/money"
)

// t0 is a Monday, the first hour of the hand-made scenarios.
var t0 = time.Date(2023, 1, 2, 0, 0, 0, 0, time.UTC)

// oneKW makes a vCPU draw 1 kW, so that a 1-vCPU run of an hour at
// 100 g/kWh emits 100 g: figures a reader can check by hand.
var oneKW = carbon.EnergyModel{WattsPerVCPU: 1000, DefaultPUE: 1}

// region is a hand-made region: "azure/<name>" in zone, with a capacity in
// millicores (0: undeclared).
type region struct {
	name, zone string
	milli      int64
}

// job is a hand-made job: arrival, duration and slack in minutes.
type job struct {
	arrival, duration, slack int
	vcpu                     int64
	candidates               []string
}

// dataset returns an offline dataset of the zones' hours from t0.
func dataset(t *testing.T, zones map[string][]float64) *offline.Dataset {
	t.Helper()
	fsys := fstest.MapFS{"data/yearly.csv": {Data: []byte("zone,year,lifecycle,name\n")}}
	for zone, values := range zones {
		var csv bytes.Buffer
		csv.WriteString("zone,time,lifecycle,direct,estimated\n")
		for i, v := range values {
			fmt.Fprintf(&csv, "%s,%s,%g,%g,0\n", zone, t0.Add(time.Duration(i)*time.Hour).Format("2006-01-02T15Z"), v, v)
		}
		var gz bytes.Buffer
		w := gzip.NewWriter(&gz)
		if _, err := w.Write(csv.Bytes()); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		fsys["data/hourly/"+zone+".csv.gz"] = &fstest.MapFile{Data: gz.Bytes()}
	}
	d, err := offline.Load(fsys)
	if err != nil {
		t.Fatalf("offline.Load() error = %v", err)
	}
	return d
}

// handScenario builds a scenario from hand-made regions and jobs: each job's
// first candidate is its origin, every candidate 10 ms away.
func handScenario(t *testing.T, zones map[string][]float64, regions []region, jobs []job) *Scenario {
	t.Helper()
	hours := 0
	var points []carbon.Point
	for zone, values := range zones {
		hours = max(hours, len(values))
		for i, v := range values {
			points = append(points, carbon.Point{Zone: zone, Time: t0.Add(time.Duration(i) * time.Hour), GramsPerKWh: v, Kind: carbon.Measured, Signal: carbon.Average})
		}
	}
	s := &Scenario{Name: "hand", Seed: 1, Year: t0.Year(), From: t0, To: t0.Add(time.Duration(hours) * time.Hour), Headroom: 1,
		Data: dataset(t, zones), Actual: carbon.NewIntensities(points), Capacity: carbon.NewCapacity(), Energy: oneKW}
	cands := map[string]carbon.Candidate{}
	for _, r := range regions {
		s.Regions = append(s.Regions, Region{Key: "azure/" + r.name, Zone: r.zone, MilliCPU: r.milli})
		if r.milli > 0 {
			s.Capacity.Set("azure/"+r.name, r.milli)
		}
		cands[r.name] = carbon.Candidate{Provider: "azure", Region: r.name, Zone: r.zone, InstanceType: "x", PricePerHour: money.New(resource.MustParse("1"), "USD"), LatencyMs: 10}
	}
	for i, j := range jobs {
		arrival := t0.Add(time.Duration(j.arrival) * time.Minute)
		duration := time.Duration(j.duration) * time.Minute
		sj := Job{Name: fmt.Sprintf("job-%d", i), Origin: "azure/" + j.candidates[0], Arrival: arrival, Duration: duration,
			Deadline: arrival.Add(duration + time.Duration(j.slack)*time.Minute), CPUMilli: j.vcpu * 1000}
		for k, c := range j.candidates {
			cand := cands[c]
			if k == 0 {
				cand.LatencyMs = 0
			}
			sj.Candidates = append(sj.Candidates, cand)
		}
		s.Jobs = append(s.Jobs, sj)
	}
	return s
}

// where names a placement as "region@+minutes", or "unplaced".
func where(p Placement) string {
	if p.Unplaced {
		return "unplaced"
	}
	return fmt.Sprintf("%s@+%d", p.Candidate.Region, int(p.Start.Sub(t0)/time.Minute))
}

func wheres(ps []Placement) string {
	var out []string
	for _, p := range ps {
		out = append(out, where(p))
	}
	return strings.Join(out, " ")
}

// flat returns n hours of v.
func flat(n int, v float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// with returns values with the hours at the indexes set.
func with(values []float64, set map[int]float64) []float64 {
	out := append([]float64(nil), values...)
	for i, v := range set {
		out[i] = v
	}
	return out
}
