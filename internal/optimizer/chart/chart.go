// Package chart draws the optimizer's line charts as inline SVG, so that
// the advisor's report and the evaluation's page are single HTML files
// without scripts.
package chart

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"strings"
)

// Series is one line of a chart.
type Series struct {
	Name  string
	Color string
	// Y holds one value per x position; NaN leaves a gap.
	Y []float64
	// Dashed draws the line dashed.
	Dashed bool
}

// Chart is a line chart over x positions 0..n-1.
type Chart struct {
	Title  string
	XLabel string
	YLabel string
	Series []Series
	// HLines are horizontal reference lines (for example a band's edges).
	HLines []float64
}

const (
	width, height = 760.0, 240.0
	left, right   = 60.0, 150.0
	top, bottom   = 28.0, 36.0
)

// SVG renders the chart.
func (c Chart) SVG() template.HTML {
	n := 0
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range c.Series {
		n = max(n, len(s.Y))
		for _, v := range s.Y {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	for _, v := range c.HLines {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if math.IsInf(lo, 1) {
		lo, hi = 0, 1
	}
	if hi == lo {
		hi = lo + 1
	}
	pad := (hi - lo) * 0.05
	lo, hi = lo-pad, hi+pad
	pw, ph := width-left-right, height-top-bottom
	x := func(i int) float64 {
		if n <= 1 {
			return left
		}
		return left + pw*float64(i)/float64(n-1)
	}
	y := func(v float64) float64 { return top + ph*(1-(v-lo)/(hi-lo)) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" font-family="sans-serif" font-size="11">`, width, height)
	fmt.Fprintf(&b, `<text x="%g" y="16" font-size="13" font-weight="bold">%s</text>`, left, html.EscapeString(c.Title))
	fmt.Fprintf(&b, `<rect x="%g" y="%g" width="%g" height="%g" fill="none" stroke="#999"/>`, left, top, pw, ph)
	for k := range 5 {
		v := lo + (hi-lo)*float64(k)/4
		fmt.Fprintf(&b, `<text x="%g" y="%g" text-anchor="end">%s</text>`, left-4, y(v)+4, format(v))
		fmt.Fprintf(&b, `<line x1="%g" x2="%g" y1="%g" y2="%g" stroke="#eee"/>`, left, left+pw, y(v), y(v))
	}
	fmt.Fprintf(&b, `<text x="%g" y="%g" text-anchor="middle">%s</text>`, left+pw/2, height-6, html.EscapeString(c.XLabel))
	fmt.Fprintf(&b, `<text x="%g" y="%g" text-anchor="start">0</text><text x="%g" y="%g" text-anchor="end">%d</text>`, left, top+ph+14, left+pw, top+ph+14, max(n-1, 0))
	fmt.Fprintf(&b, `<text x="12" y="%g" transform="rotate(-90 12 %g)" text-anchor="middle">%s</text>`, top+ph/2, top+ph/2, html.EscapeString(c.YLabel))
	for _, v := range c.HLines {
		fmt.Fprintf(&b, `<line x1="%g" x2="%g" y1="%g" y2="%g" stroke="#c00" stroke-dasharray="4 3"/>`, left, left+pw, y(v), y(v))
	}
	for k, s := range c.Series {
		var path strings.Builder
		pen := false
		for i, v := range s.Y {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				pen = false
				continue
			}
			cmd := "L"
			if !pen {
				cmd = "M"
			}
			fmt.Fprintf(&path, "%s%.1f %.1f ", cmd, x(i), y(v))
			pen = true
		}
		dash := ""
		if s.Dashed {
			dash = ` stroke-dasharray="5 3"`
		}
		fmt.Fprintf(&b, `<path d="%s" fill="none" stroke="%s" stroke-width="1.3"%s/>`, path.String(), html.EscapeString(s.Color), dash)
		ly := top + 12 + 16*float64(k)
		fmt.Fprintf(&b, `<line x1="%g" x2="%g" y1="%g" y2="%g" stroke="%s" stroke-width="2"%s/>`, left+pw+10, left+pw+28, ly-4, ly-4, html.EscapeString(s.Color), dash)
		fmt.Fprintf(&b, `<text x="%g" y="%g">%s</text>`, left+pw+32, ly, html.EscapeString(s.Name))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) //nolint:gosec // every text above is escaped
}

func format(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e4 || (a < 1e-2 && a != 0):
		return fmt.Sprintf("%.2g", v)
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.3g", v)
}
