package forecast

import (
	"fmt"
	"html"
	"io"
	"strings"
)

// colours of the models' lines in the HTML report.
var colours = map[string]string{
	RegressionModel:    "#1b7837",
	NaiveModel:         "#d6604d",
	ProfileModel:       "#4393c3",
	YearlyAverageModel: "#999999",
}

// WriteHTML writes the report as one self-contained HTML page: a chart of
// MAPE by horizon per model, for the mean over the zones and then for each
// zone, and the table.
func (r *Report) WriteHTML(w io.Writer) error {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Meridian carbon forecast error</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
.charts { display: flex; flex-wrap: wrap; gap: 1em; }
figure { margin: 0; }
figcaption { font-weight: 600; font-size: 0.9em; }
pre { font-size: 0.8em; }
.legend span { margin-right: 1.5em; }
</style></head><body>
<h1>Carbon-intensity forecast error</h1>
<p>MAPE (%) of forecasts made <i>h</i> hours ahead, on a held-out period per zone; the models are trained on the rest of the zone's record
(<code>meridian carbon forecast-error</code>). Lower is better.</p>
<p class="legend">`)
	if len(r.Mean) > 0 {
		for _, s := range r.Mean {
			fmt.Fprintf(&b, `<span style="color:%s">&#9644; %s</span>`, colours[s.Model], html.EscapeString(s.Model))
		}
	}
	b.WriteString("</p>\n<div class=\"charts\">\n")
	if len(r.Mean) > 0 {
		r.chart(&b, "Mean over "+plural(len(r.Zones), "zone"), r.Mean, 420, 280)
	}
	for _, z := range r.Zones {
		r.chart(&b, z.Zone+" ("+period(z.From, z.To)+")", z.Scores, 280, 190)
	}
	b.WriteString("</div>\n<h2>Table</h2>\n<pre>")
	var t strings.Builder
	if err := r.WriteTable(&t); err != nil {
		return err
	}
	b.WriteString(html.EscapeString(t.String()))
	b.WriteString("</pre>\n</body></html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// chart writes one SVG line chart of the scores' MAPE against the horizons,
// on a linear axis of hours.
func (r *Report) chart(b *strings.Builder, title string, scores []Score, width, height float64) {
	const left, right, top, bottom = 40.0, 10.0, 10.0, 30.0
	maxH, maxY := 1.0, 1.0
	for _, h := range r.Horizons {
		maxH = max(maxH, float64(h))
	}
	for _, s := range scores {
		for _, m := range s.MAPE {
			maxY = max(maxY, m)
		}
	}
	maxY = niceCeil(maxY)
	x := func(h float64) float64 { return left + (width-left-right)*h/maxH }
	y := func(v float64) float64 { return top + (height-top-bottom)*(1-v/maxY) }
	fmt.Fprintf(b, "<figure><figcaption>%s</figcaption>\n<svg width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\">\n",
		html.EscapeString(title), width, height, width, height)
	for i := 0; i <= 4; i++ {
		v := maxY * float64(i) / 4
		fmt.Fprintf(b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#ddd"/><text x="%.1f" y="%.1f" font-size="10" text-anchor="end">%g</text>`+"\n",
			left, width-right, y(v), y(v), left-4, y(v)+3, v)
	}
	for _, h := range r.Horizons {
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" font-size="10" text-anchor="middle">%dh</text>`+"\n", x(float64(h)), height-bottom+14, h)
	}
	for _, s := range scores {
		var pts []string
		for k, h := range r.Horizons {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(float64(h)), y(s.MAPE[k])))
		}
		dash := ""
		if s.Model == YearlyAverageModel {
			dash = ` stroke-dasharray="4 3"`
		}
		fmt.Fprintf(b, `<polyline fill="none" stroke="%s" stroke-width="2"%s points="%s"><title>%s</title></polyline>`+"\n",
			colours[s.Model], dash, strings.Join(pts, " "), html.EscapeString(s.Model))
	}
	b.WriteString("</svg></figure>\n")
}

// niceCeil rounds v up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	p := 1.0
	for p*10 < v {
		p *= 10
	}
	for p > v*10 {
		p /= 10
	}
	for _, f := range []float64{1, 2, 5, 10} {
		if f*p >= v {
			return f * p
		}
	}
	return 10 * p
}
