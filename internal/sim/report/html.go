package report

import (
	"fmt"
	"html/template"
	"io"

	"github.com/meridian-dev/meridian/internal/sim"
)

var page = template.Must(template.New("report").Funcs(template.FuncMap{
	"pct":       pct,
	"minutes":   minutes,
	"dur":       duration,
	"f1":        func(v float64) string { return fmt.Sprintf("%.1f", v) },
	"minutesOf": func(s float64) float64 { return s / 60 },
}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Meridian simulation report</title>
<style>
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1500px;color:#222}
table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #ccc;padding:4px 8px;text-align:right}
th{background:#f4f4f4}td:first-child,th:first-child{text-align:left}
.charts{display:flex;flex-wrap:wrap;gap:12px}.policy{margin:1.5em 0;border-top:1px solid #ddd}
svg{background:#fff;border:1px solid #eee}
</style></head><body>
<h1>Meridian simulation report</h1>
{{range $s := .}}
<section><h2>Scenario {{.R.Scenario}}</h2>
<p>{{.R.Description}}</p>
<p>Seed {{.R.Seed}}, {{.R.Tasks}} tasks, {{.R.Services}} services, {{f1 .Minutes}} minutes of virtual time.
Pending means asked for and not Running (Pending in a member cluster or unplaced); CPU allocation is the CPU
requested by the pods assigned to a cluster, Running or Pending, over its allocatable CPU.</p>
<table><tr><th>policy</th><th>pending max</th><th>pending mean</th><th>allocation max (cluster)</th><th>overall allocation max</th>
<th>cloud CPU·h</th><th>cloud asked / ready / removed (min)</th><th>replicas moved back</th><th>replicas left the cloud</th><th>decisions</th><th>decision p50</th><th>decision p99</th></tr>
{{range .R.Policies}}<tr><td>{{.Policy}}</td><td>{{pct .MaxPendingFraction}}</td><td>{{pct .MeanPendingFraction}}</td>
<td>{{pct .MaxClusterAllocation}} ({{.MaxClusterAllocationCluster}})</td><td>{{pct .MaxOverallAllocation}}</td><td>{{f1 .CloudCPUHours}}</td>
<td>{{minutes .CloudProvisionedAtSeconds}} / {{minutes .CloudReadyAtSeconds}} / {{minutes .CloudRemovedAtSeconds}}</td>
<td>{{.ReplicasMovedBack}}</td><td>{{.ReplicasLeftCloud}}</td><td>{{.Decisions}}</td><td>{{dur .DecisionP50Seconds}}</td><td>{{dur .DecisionP99Seconds}}</td></tr>
{{end}}</table>
<p>Raw series: <a href="{{.R.Scenario}}-series.json">{{.R.Scenario}}-series.json</a>{{range .R.Policies}}, <a href="{{$s.R.Scenario}}-{{.Policy}}.csv">{{.Policy}}.csv</a>{{end}}</p>
{{range .Policies}}<div class="policy"><h3>{{.Name}}</h3><div class="charts">{{range .Charts}}{{.}}{{end}}</div>
{{if .Events}}<details><summary>{{len .Events}} management-plane events</summary><ul>{{range .Events}}<li>{{f1 (minutesOf .AtSeconds)}} min: {{.Message}}</li>{{end}}</ul></details>{{end}}
</div>{{end}}
</section>
{{end}}
</body></html>
`))

type policyView struct {
	Name   string
	Charts []template.HTML
	Events []sim.Event
}

type scenarioView struct {
	R        *sim.Result
	Minutes  float64
	Policies []policyView
}

// HTML writes the report: per scenario the comparison table, then per
// policy the charts of seed 001's figures.
func HTML(out io.Writer, results ...*sim.Result) error {
	var views []scenarioView
	for _, r := range results {
		v := scenarioView{R: r, Minutes: r.DurationSeconds / 60}
		for _, p := range r.Policies {
			pv := policyView{Name: p.Policy, Events: p.Events}
			for _, c := range charts(p.Series) {
				pv.Charts = append(pv.Charts, template.HTML(c.svg())) //nolint:gosec // built from numbers and escaped names
			}
			v.Policies = append(v.Policies, pv)
		}
		views = append(views, v)
	}
	return page.Execute(out, views)
}

// charts are seed 001's figures for one policy's run.
func charts(s *sim.Series) []chart {
	requests := chart{title: "CPU requested per cluster (Figs. 1, 6)", yLabel: "CPU cores", x: s.Minutes, stacked: true}
	alloc := chart{title: "CPU allocation and pending pods (Figs. 2, 7)", yLabel: "percent", x: s.Minutes, percent: true}
	replicas := chart{title: "Running replicas per cluster (Figs. 8, 9)", yLabel: "replicas", x: s.Minutes, stacked: true}
	cores := chart{title: "CPU cores provided (Fig. 10)", yLabel: "CPU cores", x: s.Minutes, stacked: true}
	for i, name := range s.Clusters {
		requests.lines = append(requests.lines, line{name: name, values: s.AssignedCores[i]})
		ratio := make([]float64, len(s.Minutes))
		for k := range ratio {
			if c := s.AllocatableCores[i][k]; c > 0 {
				ratio[k] = s.AssignedCores[i][k] / c
			}
		}
		alloc.lines = append(alloc.lines, line{name: name, values: ratio})
		running := make([]float64, len(s.Minutes))
		for k := range running {
			running[k] = float64(s.RunningPods[i][k])
		}
		replicas.lines = append(replicas.lines, line{name: name, values: running})
		cores.lines = append(cores.lines, line{name: name, values: s.AllocatableCores[i]})
	}
	requests.lines = append(requests.lines, line{name: "cloud cores", values: s.CloudCores, dashed: true, color: "#000"})
	alloc.lines = append(alloc.lines,
		line{name: "overall", values: s.Allocation, color: "#000"},
		line{name: "pending pods", values: s.PendingFraction, dashed: true, color: "#6A3D9A"})
	cores.lines = append(cores.lines, line{name: "cloud paid", values: s.CloudPaidCores, dashed: true, color: "#000"})
	return []chart{requests, alloc, replicas, cores}
}
