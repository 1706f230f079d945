package carbonsim

import (
	"fmt"
	"html"
	"html/template"
	"io"
	"math"
	"strings"
)

// palette is Okabe and Ito's colour-blind-safe palette, as the simulator's
// other reports use.
var palette = []string{"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"}

var page = template.Must(template.New("carbon").Funcs(template.FuncMap{
	"kg":  func(g float64) string { return fmt.Sprintf("%.2f", g/1000) },
	"pct": func(v float64) string { return fmt.Sprintf("%.1f%%", 100*v) },
	"p1":  func(v float64) string { return fmt.Sprintf("%.1f%%", v) },
	"f1":  func(v float64) string { return fmt.Sprintf("%.1f", v) },
}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Meridian carbon evaluation</title>
<style>
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1200px;color:#222}
table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #ccc;padding:4px 8px;text-align:right}
th{background:#f4f4f4}td:first-child,th:first-child{text-align:left}
.charts{display:flex;flex-wrap:wrap;gap:12px}svg{background:#fff;border:1px solid #eee}
.met{color:#009E73}.missed{color:#D55E00}
</style></head><body>
<h1>Meridian carbon evaluation</h1>
<p>Each scenario replays a recorded year of hourly grid intensities (Electricity Maps data, ODbL) against a job
trace drawn from its seed. Emissions are location-based: Cloud Carbon Footprint's energy model times the actual
intensity of every hour a job runs. The oracle knows every intensity in advance; its bound is the least any
schedule that meets every deadline within capacity could emit, so "of oracle" is conservative.</p>
{{if gt (len .Summary) 1}}<h2>Meridian across seeds</h2>
<table><tr><th>seed</th><th>jobs</th><th>saved</th><th>oracle could save</th><th>of oracle</th><th>deadline misses</th><th>region-hours over capacity</th><th>regret</th><th>goal</th></tr>
{{range .Summary}}<tr><td>{{.Seed}}</td><td>{{.Jobs}}</td><td>{{p1 .Saved}}</td><td>{{p1 .OracleSaved}}</td><td>{{pct .Fraction}}</td><td>{{.Misses}}</td><td>{{.Violations}}</td><td>{{p1 .Regret}}</td>
<td class="{{if .Met}}met{{else}}missed{{end}}">{{if .Met}}met{{else}}not met{{end}}</td></tr>
{{end}}</table>{{end}}
{{range .Results}}<section><h2>Scenario {{.R.Scenario.Name}}</h2>
<p>{{.R.Jobs}} jobs over {{.R.Scenario.Year}}, {{len .R.Scenario.Regions}} regions in {{len .Zones}} grid zones
({{.ZoneList}}), each region's capacity {{.R.Scenario.Headroom}} times the peak load carbon-agnostic puts on it.</p>
<table><tr><th>policy</th><th>emissions (kg)</th><th>saved</th><th>of oracle</th><th>deadline misses</th><th>largest share (region)</th>
<th>region-hours over capacity</th><th>peak utilisation</th><th>region-hours ≥ 90 %</th><th>moved</th><th>mean delay (h)</th></tr>
{{range .R.Policies}}<tr><td>{{.Policy}}</td><td>{{kg .Grams}}</td><td>{{p1 .SavingsPercent}}</td><td>{{pct .OracleFraction}}</td><td>{{.DeadlineMisses}}</td>
<td>{{pct .LargestShare}} ({{.LargestRegion}})</td><td>{{.CapacityViolations}}</td><td>{{pct .PeakUtilisation}}</td><td>{{.FullHours}}</td><td>{{pct .Moved}}</td><td>{{f1 .MeanDelayHours}}</td></tr>
{{end}}</table>
<p>Oracle: no schedule emits less than {{kg .R.Oracle.BoundGrams}} kg (bound by {{.R.Oracle.Method}}, {{.R.Oracle.Iterations}} iterations);
its own schedule emits {{kg .R.Oracle.ScheduleGrams}} kg (gap {{pct .R.Oracle.Gap}}).
Regret due to forecast error: {{kg .R.RegretGrams}} kg, {{p1 .R.RegretPercent}} of carbon-agnostic's emissions.
Goal (meridian ≥ 90 % of the oracle's savings, no miss, no region over capacity):
<strong class="{{if .R.GoalMet}}met{{else}}missed{{end}}">{{if .R.GoalMet}}met{{else}}not met{{end}}</strong>.</p>
<div class="charts">{{range .Charts}}{{.}}{{end}}</div>
</section>
{{end}}
</body></html>
`))

type summaryRow struct {
	Seed                                 uint64
	Jobs, Misses, Violations             int
	Saved, OracleSaved, Fraction, Regret float64
	Met                                  bool
}

type resultView struct {
	R        *Result
	Zones    []string
	ZoneList string
	Charts   []template.HTML
}

// WriteHTML writes the report: a summary across seeds, then per scenario
// the table and charts (inline SVG, no script).
func WriteHTML(w io.Writer, results ...*Result) error {
	var view struct {
		Summary []summaryRow
		Results []resultView
	}
	for _, r := range results {
		m := r.Policy(MeridianPolicy)
		base := r.Policies[0].Grams
		view.Summary = append(view.Summary, summaryRow{Seed: r.Scenario.Seed, Jobs: r.Jobs, Misses: m.DeadlineMisses, Violations: m.CapacityViolations,
			Saved: m.SavingsPercent, OracleSaved: 100 * (base - r.Oracle.BoundGrams) / base, Fraction: m.OracleFraction, Regret: r.RegretPercent, Met: r.GoalMet})
		zones := r.Scenario.Zones()
		v := resultView{R: r, Zones: zones, ZoneList: strings.Join(zones, ", ")}
		for _, c := range r.charts(zones) {
			v.Charts = append(v.Charts, template.HTML(c)) //nolint:gosec // built from numbers and escaped names
		}
		view.Results = append(view.Results, v)
	}
	if err := page.Execute(w, view); err != nil {
		return fmt.Errorf("failed to write the carbon evaluation report: %w", err)
	}
	return nil
}

// charts are the result's figures: emissions, fraction of the oracle's
// savings, and where the work ran.
func (r *Result) charts(zones []string) []string {
	var names []string
	var grams, fractions []float64
	for _, p := range r.Policies {
		names = append(names, p.Policy)
		grams = append(grams, p.Grams/1000)
		fractions = append(fractions, 100*p.OracleFraction)
	}
	shares := make([][]float64, len(r.Policies))
	for i, p := range r.Policies {
		for _, z := range zones {
			shares[i] = append(shares[i], 100*p.ZoneShare[z])
		}
	}
	return []string{
		barChart{title: "Emissions (kg CO2e)", labels: names, values: [][]float64{grams},
			marker: r.Oracle.BoundGrams / 1000, markerName: "oracle bound"}.svg(),
		barChart{title: "Share of the oracle's savings (%)", labels: names, values: [][]float64{fractions},
			marker: 100 * Goal, markerName: "goal"}.svg(),
		barChart{title: "Share of the work (CPU hours) per grid zone (%)", labels: names, values: shares, series: zones, stacked: true}.svg(),
	}
}

// barChart is a horizontal bar chart drawn as inline SVG: one row per
// label, one bar per series (stacked when asked), and an optional vertical
// marker.
type barChart struct {
	title      string
	labels     []string
	series     []string
	values     [][]float64 // [label][series] when stacked, else [0][label]
	stacked    bool
	marker     float64
	markerName string
}

const (
	barW, barRow              = 560, 26
	barPadL, barPadR, barPadT = 130, 150, 34
	barPadB                   = 30
)

func (c barChart) svg() string {
	n := len(c.labels)
	height := barPadT + barPadB + barRow*n
	plotW := float64(barW - barPadL - barPadR)
	lo, hi := 0.0, c.marker
	for i := range n {
		for _, v := range c.row(i) {
			if c.stacked {
				hi = math.Max(hi, sum(c.row(i)))
			} else {
				hi, lo = math.Max(hi, v), math.Min(lo, v)
			}
		}
	}
	hi = niceCeil(hi)
	if lo < 0 {
		lo = -niceCeil(-lo)
	}
	px := func(v float64) float64 { return barPadL + (v-lo)/(hi-lo)*plotW }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s">`, barW, height, barW, height, html.EscapeString(c.title))
	fmt.Fprintf(&b, `<text x="10" y="18" font-size="14" font-weight="bold">%s</text>`, html.EscapeString(c.title))
	for k := 0; k <= 4; k++ {
		v := lo + (hi-lo)*float64(k)/4
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>`, px(v), barPadT-4, px(v), height-barPadB)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="11" text-anchor="middle">%s</text>`, px(v), height-barPadB+14, trim(v))
	}
	for i, label := range c.labels {
		y := float64(barPadT + barRow*i)
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" font-size="12" text-anchor="end">%s</text>`, barPadL-6, y+14, html.EscapeString(label))
		x := 0.0
		for k, v := range c.row(i) {
			from, to := x, x+v
			if !c.stacked {
				from, to = math.Min(0, v), math.Max(0, v)
			}
			colour := palette[i%len(palette)]
			if c.stacked {
				colour = palette[k%len(palette)]
			}
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="18" fill="%s"><title>%s</title></rect>`, px(from), y+2, px(to)-px(from), colour, html.EscapeString(fmt.Sprintf("%s: %s", label, trim(v))))
			if !c.stacked {
				fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" font-size="11">%s</text>`, px(to)+4, y+15, trim(v))
			}
			x = to
		}
	}
	if c.marker != 0 {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#000" stroke-dasharray="6 4"/>`, px(c.marker), barPadT-4, px(c.marker), height-barPadB)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="11">%s %s</text>`, px(c.marker)+4, barPadT-8, html.EscapeString(c.markerName), trim(c.marker))
	}
	for k, name := range c.series {
		y := barPadT + 14*k
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="16" height="9" fill="%s"/><text x="%d" y="%d" font-size="11">%s</text>`,
			barW-barPadR+12, y, palette[k%len(palette)], barW-barPadR+34, y+9, html.EscapeString(name))
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// row returns the values of the label's row.
func (c barChart) row(i int) []float64 {
	if c.stacked {
		return c.values[i]
	}
	return []float64{c.values[0][i]}
}

func sum(vs []float64) float64 {
	var s float64
	for _, v := range vs {
		s += v
	}
	return s
}

// niceCeil rounds up to 1, 2, 4, 6 or 8 times a power of ten, so that the
// quarter ticks are round too.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 4, 6, 8, 10} {
		if v <= m*p*(1+1e-12) {
			return m * p
		}
	}
	return 10 * p
}

func trim(v float64) string {
	s := strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.1f", v), "0"), ".")
	if s == "-0" {
		return "0"
	}
	return s
}
