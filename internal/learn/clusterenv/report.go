package clusterenv

import (
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"strings"
	"text/tabwriter"
)

// Table writes one row per result.
func Table(w io.Writer, results []Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scenario\tseed\tpolicy\tpending max\tpending mean\tpending max replicas\tcloud CPU-h\tcloud cost\timbalance\tdecisions\tµs/decision p50\tp99\t")
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%.1f%%\t%.2f%%\t%d\t%.1f\t%.2f\t%.3f\t%d\t%.1f\t%.1f\t\n", r.Scenario, r.Seed, r.Policy,
			100*r.MaxPendingFraction, 100*r.MeanPendingFraction, r.MaxPendingReplicas, r.CloudCPUHours, r.CloudCost, r.Imbalance,
			r.Decisions, r.DecisionP50, r.DecisionP99)
	}
	return tw.Flush()
}

// JSON writes the results as one JSON document.
func JSON(w io.Writer, results []Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(map[string]any{"results": results})
}

var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"}

// lineChart draws one line per result of a sampled series over minutes.
func lineChart(title string, rs []Result, series func(*Result) []float64) template.HTML {
	const w, h, pad = 640.0, 240.0, 40.0
	maxX, maxY := 1e-9, 1e-9
	for i := range rs {
		for k, v := range series(&rs[i]) {
			maxX, maxY = max(maxX, rs[i].Series.Minutes[k]), max(maxY, v)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg width="%g" height="%g" xmlns="http://www.w3.org/2000/svg" font-size="11">`, w, h+20)
	fmt.Fprintf(&b, `<text x="%g" y="14">%s</text>`, pad, template.HTMLEscapeString(title))
	fmt.Fprintf(&b, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#999"/><line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#999"/>`,
		pad, h-pad+20, w-10, h-pad+20, pad, 20.0, pad, h-pad+20)
	fmt.Fprintf(&b, `<text x="2" y="28">%.4g</text><text x="%g" y="%g">%.0f min</text>`, maxY, w-60, h+15, maxX)
	for i := range rs {
		var pts []string
		for k, v := range series(&rs[i]) {
			x := pad + rs[i].Series.Minutes[k]/maxX*(w-pad-10)
			y := h - pad + 20 - v/maxY*(h-pad)
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x, y))
		}
		c := palette[i%len(palette)]
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>`, c, strings.Join(pts, " "))
		fmt.Fprintf(&b, `<text x="%g" y="%d" fill="%s">%s</text>`, w-120, 30+14*i, c, template.HTMLEscapeString(rs[i].Policy))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// barChart draws one bar per result.
func barChart(title string, rs []Result, value func(*Result) float64) template.HTML {
	const w, barH = 640.0, 18.0
	maxV := 1e-9
	for i := range rs {
		maxV = max(maxV, value(&rs[i]))
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg width="%g" height="%g" xmlns="http://www.w3.org/2000/svg" font-size="11">`, w, 24+float64(len(rs))*(barH+4))
	fmt.Fprintf(&b, `<text x="0" y="14">%s</text>`, template.HTMLEscapeString(title))
	for i := range rs {
		y := 22 + float64(i)*(barH+4)
		v := value(&rs[i])
		l := v / maxV * (w - 260)
		fmt.Fprintf(&b, `<text x="0" y="%g">%s</text><rect x="140" y="%g" width="%.1f" height="%g" fill="%s"/><text x="%.1f" y="%g">%.4g</text>`,
			y+13, template.HTMLEscapeString(rs[i].Policy), y, l, barH, palette[i%len(palette)], 145+l, y+13, v)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

var page = template.Must(template.New("report").Funcs(template.FuncMap{"pct": func(v float64) float64 { return 100 * v }}).Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>meridian learn eval --level cluster</title>
<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}</style>
</head><body><h1>Learned cluster scoring: evaluation in the multi-cluster simulator</h1>
<p>{{.Command}}</p>
<table><tr><th>scenario</th><th>seed</th><th>policy</th><th>pending max</th><th>pending mean</th><th>pending max replicas</th><th>cloud CPU-h</th><th>cloud cost</th><th>imbalance</th><th>decisions</th><th>µs/decision p50</th><th>p99</th></tr>
{{range .Results}}<tr><td>{{.Scenario}}</td><td>{{.Seed}}</td><td>{{.Policy}}</td><td>{{printf "%.1f%%" (pct .MaxPendingFraction)}}</td><td>{{printf "%.2f%%" (pct .MeanPendingFraction)}}</td><td>{{.MaxPendingReplicas}}</td><td>{{printf "%.1f" .CloudCPUHours}}</td><td>{{printf "%.2f" .CloudCost}}</td><td>{{printf "%.3f" .Imbalance}}</td><td>{{.Decisions}}</td><td>{{printf "%.1f" .DecisionP50}}</td><td>{{printf "%.1f" .DecisionP99}}</td></tr>
{{end}}</table>
{{range .Groups}}<h2>{{.Title}}</h2>{{.Cloud}}<br>{{.Pending}}<br>{{.PendingSeries}}<br>{{.CloudSeries}}
{{end}}</body></html>
`))

// HTML writes a report with the table and, per scenario and seed, the
// cloud CPU-hours and mean pending fraction of every policy, and its
// pending fraction and paid cloud cores over time.
func HTML(w io.Writer, command string, results []Result) error {
	type group struct {
		Title                                      string
		Cloud, Pending, PendingSeries, CloudSeries template.HTML
	}
	var groups []group
	var keys []string
	by := map[string][]Result{}
	for _, r := range results {
		k := fmt.Sprintf("%s, seed %d", r.Scenario, r.Seed)
		if _, ok := by[k]; !ok {
			keys = append(keys, k)
		}
		by[k] = append(by[k], r)
	}
	for _, k := range keys {
		rs := by[k]
		groups = append(groups, group{Title: k,
			Cloud:         barChart("cloud CPU-hours", rs, func(r *Result) float64 { return r.CloudCPUHours }),
			Pending:       barChart("mean pending fraction (%)", rs, func(r *Result) float64 { return 100 * r.MeanPendingFraction }),
			PendingSeries: lineChart("pending fraction", rs, func(r *Result) []float64 { return r.Series.PendingFraction }),
			CloudSeries:   lineChart("cloud cores paid", rs, func(r *Result) []float64 { return r.Series.CloudPaidCores }),
		})
	}
	return page.Execute(w, map[string]any{"Command": command, "Results": results, "Groups": groups})
}
