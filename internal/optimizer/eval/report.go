package eval

import (
	"fmt"
	"html/template"
	"io"
	"text/tabwriter"

	"github.com/meridian-dev/meridian/internal/optimizer/chart"
)

// WriteTable prints one line per policy.
func (r *Result) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "policy\treplica-hours\tvs oracle\tcost\tin band\tlatency <= max\tsamples to production\t")
	oracle := r.Policies[len(r.Policies)-1].ReplicaHours
	for _, p := range r.Policies {
		prod := "-"
		switch {
		case p.SamplesToProduction > 0:
			prod = fmt.Sprint(p.SamplesToProduction)
		case p.SamplesToProduction < 0:
			prod = "never"
		}
		fmt.Fprintf(tw, "%s\t%.1f\t%+.1f%%\t%.2f\t%.1f%%\t%.1f%%\t%s\t\n", p.Name, p.ReplicaHours, 100*(p.ReplicaHours/oracle-1), p.Cost, 100*p.InBand, 100*p.AtMostMax, prod)
	}
	return tw.Flush()
}

var page = template.Must(template.New("eval").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>Meridian advisor evaluation</title>
<style>body{font-family:sans-serif;margin:2em} pre{background:#f6f6f6;padding:1em}</style></head><body>
<h1>Price/performance optimizer: evaluation</h1>
<p>M/M/c web application ({{.ServiceRate}} requests/s per replica), {{.Steps}} intervals of {{.Step}}, latency band [{{.Min}}, {{.Max}}] ms.</p>
<pre>{{.Table}}</pre>
{{.Load}}
{{range .Charts}}{{.}}{{end}}
</body></html>
`))

// WriteHTML writes the table and a chart of each policy's replicas and
// latency.
func (r *Result) WriteHTML(w io.Writer) error {
	var table stringWriter
	if err := r.WriteTable(&table); err != nil {
		return err
	}
	sc := r.Scenario
	oracle := r.Policies[len(r.Policies)-1].Replicas
	var charts []template.HTML
	for _, p := range r.Policies {
		charts = append(charts,
			chart.Chart{Title: p.Name + ": replicas", XLabel: "interval", YLabel: "replicas", Series: []chart.Series{
				{Name: "replicas", Color: "#1f77b4", Y: p.Replicas},
				{Name: "oracle", Color: "#999", Y: oracle, Dashed: true},
			}}.SVG(),
			chart.Chart{Title: p.Name + ": mean latency (ms)", XLabel: "interval", YLabel: "ms", HLines: []float64{sc.Band.Min, sc.Band.Max}, Series: []chart.Series{
				{Name: "latency", Color: "#d62728", Y: clip(p.Latency, 3*sc.Band.Max)},
			}}.SVG())
	}
	return page.Execute(w, map[string]any{
		"ServiceRate": sc.App.ServiceRate, "Steps": sc.Steps, "Step": sc.Step, "Min": sc.Band.Min, "Max": sc.Band.Max,
		"Table":  table.String(),
		"Load":   chart.Chart{Title: "load (requests/s)", XLabel: "interval", YLabel: "req/s", Series: []chart.Series{{Name: "load", Color: "#2ca02c", Y: r.Load}}}.SVG(),
		"Charts": charts,
	})
}

// clip caps values so a timeout does not flatten the chart.
func clip(v []float64, hi float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = min(x, hi)
	}
	return out
}

type stringWriter struct{ b []byte }

func (s *stringWriter) Write(p []byte) (int, error) { s.b = append(s.b, p...); return len(p), nil }
func (s *stringWriter) String() string              { return string(s.b) }
