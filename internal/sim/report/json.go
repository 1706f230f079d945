package report

import (
	"encoding/json"
	"io"

	"github.com/meridian-dev/meridian/internal/sim"
)

// Document is what --format json prints: every scenario's comparison.
type Document struct {
	Scenarios []*sim.Result `json:"scenarios"`
}

// JSON writes the results as one indented JSON document.
func JSON(out io.Writer, results ...*sim.Result) error {
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(Document{Scenarios: results})
}

// policySeries is one policy's series in the raw JSON output.
type policySeries struct {
	Policy string      `json:"policy"`
	Series *seriesJSON `json:"series"`
}

type seriesJSON struct {
	Minutes          []float64   `json:"minutes"`
	Clusters         []string    `json:"clusters"`
	AssignedCores    [][]float64 `json:"assignedCores"`
	AllocatableCores [][]float64 `json:"allocatableCores"`
	RunningPods      [][]int     `json:"runningPods"`
	PendingPods      [][]int     `json:"pendingPods"`
	Asked            []int       `json:"asked"`
	Running          []int       `json:"running"`
	Unplaced         []int       `json:"unplaced"`
	PendingFraction  []float64   `json:"pendingFraction"`
	Allocation       []float64   `json:"allocation"`
	CloudCores       []float64   `json:"cloudCores"`
	CloudPaidCores   []float64   `json:"cloudPaidCores"`
}

// SeriesJSON writes the raw series of every policy of r.
func SeriesJSON(out io.Writer, r *sim.Result) error {
	var doc struct {
		Scenario string         `json:"scenario"`
		Seed     uint64         `json:"seed"`
		Policies []policySeries `json:"policies"`
	}
	doc.Scenario, doc.Seed = r.Scenario, r.Seed
	for _, p := range r.Policies {
		s := p.Series
		doc.Policies = append(doc.Policies, policySeries{Policy: p.Policy, Series: &seriesJSON{
			Minutes: s.Minutes, Clusters: s.Clusters, AssignedCores: s.AssignedCores, AllocatableCores: s.AllocatableCores,
			RunningPods: s.RunningPods, PendingPods: s.PendingPods, Asked: s.Asked, Running: s.Running, Unplaced: s.Unplaced,
			PendingFraction: s.PendingFraction, Allocation: s.Allocation, CloudCores: s.CloudCores, CloudPaidCores: s.CloudPaidCores,
		}})
	}
	enc := json.NewEncoder(out)
	return enc.Encode(doc)
}
