package nodeenv

import (
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// Table writes one row per result.
func Table(w io.Writer, results []Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "nodes\tpattern\tpolicy\tenergy kWh\tactive node-h\timbalance\tsoft viol.\thard viol.\tever pending\tpending at end\tdecisions\tµs/decision\t")
	for _, r := range results {
		m := r.Metrics
		fmt.Fprintf(tw, "%d\t%s\t%s\t%.3f\t%.2f\t%.3f\t%d\t%d\t%d\t%d\t%d\t%.1f\t\n", r.Nodes, r.Pattern, r.Policy,
			m.EnergyKWh, m.ActiveNodeHours, m.Imbalance, m.SoftViolations, m.HardViolations, m.EverPending, m.PendingAtEnd, m.Decisions, r.DecisionMicros)
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

// lineChart draws one line per result of the value over time.
func lineChart(title string, rs []Result, value func(Sample) float64) template.HTML {
	const w, h, pad = 640.0, 240.0, 40.0
	maxX, maxY := 1e-9, 1e-9
	for _, r := range rs {
		for _, s := range r.Series {
			maxX, maxY = max(maxX, s.Minutes), max(maxY, value(s))
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg width="%g" height="%g" xmlns="http://www.w3.org/2000/svg" font-size="11">`, w, h+20)
	fmt.Fprintf(&b, `<text x="%g" y="14">%s</text>`, pad, template.HTMLEscapeString(title))
	fmt.Fprintf(&b, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#999"/><line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#999"/>`,
		pad, h-pad+20, w-10, h-pad+20, pad, 20.0, pad, h-pad+20)
	fmt.Fprintf(&b, `<text x="2" y="28">%.4g</text><text x="%g" y="%g">%.0f min</text>`, maxY, w-60, h+15, maxX)
	for i, r := range rs {
		var pts []string
		for _, s := range r.Series {
			x := pad + s.Minutes/maxX*(w-pad-10)
			y := h - pad + 20 - value(s)/maxY*(h-pad)
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x, y))
		}
		c := palette[i%len(palette)]
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>`, c, strings.Join(pts, " "))
		fmt.Fprintf(&b, `<text x="%g" y="%d" fill="%s">%s</text>`, w-170, 30+14*i, c, template.HTMLEscapeString(r.Policy))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// barChart draws one bar per result.
func barChart(title string, rs []Result, value func(Result) float64) template.HTML {
	const w, barH = 640.0, 18.0
	maxV := 1e-9
	for _, r := range rs {
		maxV = max(maxV, value(r))
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg width="%g" height="%g" xmlns="http://www.w3.org/2000/svg" font-size="11">`, w, 24+float64(len(rs))*(barH+4))
	fmt.Fprintf(&b, `<text x="0" y="14">%s</text>`, template.HTMLEscapeString(title))
	for i, r := range rs {
		y := 22 + float64(i)*(barH+4)
		l := value(r) / maxV * (w - 260)
		fmt.Fprintf(&b, `<text x="0" y="%g">%s</text><rect x="140" y="%g" width="%.1f" height="%g" fill="%s"/><text x="%.1f" y="%g">%.4g</text>`,
			y+13, template.HTMLEscapeString(r.Policy), y, l, barH, palette[i%len(palette)], 145+l, y+13, value(r))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

var page = template.Must(template.New("report").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>meridian learn eval</title>
<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}</style>
</head><body><h1>Learned node scoring: evaluation</h1>
<p>{{.Command}}</p>
<table><tr><th>nodes</th><th>pattern</th><th>policy</th><th>energy kWh</th><th>active node-h</th><th>imbalance</th><th>soft viol.</th><th>hard viol.</th><th>ever pending</th><th>pending at end</th><th>decisions</th><th>µs/decision</th></tr>
{{range .Results}}<tr><td>{{.Nodes}}</td><td>{{.Pattern}}</td><td>{{.Policy}}</td><td>{{printf "%.3f" .Metrics.EnergyKWh}}</td><td>{{printf "%.2f" .Metrics.ActiveNodeHours}}</td><td>{{printf "%.3f" .Metrics.Imbalance}}</td><td>{{.Metrics.SoftViolations}}</td><td>{{.Metrics.HardViolations}}</td><td>{{.Metrics.EverPending}}</td><td>{{.Metrics.PendingAtEnd}}</td><td>{{.Metrics.Decisions}}</td><td>{{printf "%.1f" .DecisionMicros}}</td></tr>
{{end}}</table>
{{range .Groups}}<h2>{{.Title}}</h2>{{.Energy}}<br>{{.Active}}<br>{{.Power}}
{{end}}</body></html>
`))

// HTML writes a report with the table and, per scenario, the energy of
// every policy and its active nodes and power over time.
func HTML(w io.Writer, command string, results []Result) error {
	type group struct {
		Title                 string
		Energy, Active, Power template.HTML
	}
	var groups []group
	var keys []string
	by := map[string][]Result{}
	for _, r := range results {
		k := fmt.Sprintf("%d nodes, %s", r.Nodes, r.Pattern)
		if _, ok := by[k]; !ok {
			keys = append(keys, k)
		}
		by[k] = append(by[k], r)
	}
	slices.Sort(keys)
	for _, k := range keys {
		rs := by[k]
		groups = append(groups, group{Title: k,
			Energy: barChart("energy (kWh)", rs, func(r Result) float64 { return r.Metrics.EnergyKWh }),
			Active: lineChart("active nodes", rs, func(s Sample) float64 { return float64(s.ActiveNodes) }),
			Power:  lineChart("cluster power (W)", rs, func(s Sample) float64 { return s.Watts }),
		})
	}
	return page.Execute(w, map[string]any{"Command": command, "Results": results, "Groups": groups})
}
