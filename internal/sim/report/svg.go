package report

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// palette is Okabe and Ito's colour-blind-safe palette.
var palette = []string{"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"}

// line is one series of a chart.
type line struct {
	name   string
	values []float64
	dashed bool
	color  string
}

// chart is a time-series chart drawn as inline SVG.
type chart struct {
	title, yLabel string
	x             []float64 // minutes
	lines         []line
	// stacked draws the lines as stacked areas (dashed lines stay lines).
	stacked bool
	// yMax, when set, fixes the top of the y axis.
	yMax    float64
	percent bool
}

const (
	svgW, svgH                     = 720, 300
	padL, padR, padT, padB float64 = 60, 150, 30, 40
)

// svg renders the chart.
func (c chart) svg() string {
	var b strings.Builder
	plotW, plotH := svgW-padL-padR, svgH-padT-padB
	xMax := 1.0
	if n := len(c.x); n > 0 {
		xMax = math.Max(c.x[n-1], 1)
	}
	// The stacked areas' tops.
	tops := make([][]float64, len(c.lines))
	base := make([]float64, len(c.x))
	yMax := c.yMax
	for i, l := range c.lines {
		tops[i] = make([]float64, len(c.x))
		for k := range c.x {
			v := at(l.values, k)
			if c.stacked && !l.dashed {
				base[k] += v
				v = base[k]
			}
			tops[i][k] = v
			if c.yMax == 0 {
				yMax = math.Max(yMax, v)
			}
		}
	}
	yMax = niceCeil(yMax)
	px := func(x float64) float64 { return padL + x/xMax*plotW }
	py := func(y float64) float64 { return padT + plotH - y/yMax*plotH }

	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s">`, svgW, svgH, svgW, svgH, html.EscapeString(c.title))
	fmt.Fprintf(&b, `<text x="%g" y="18" font-size="14" font-weight="bold">%s</text>`, padL, html.EscapeString(c.title))
	// Grid and y ticks.
	for i := 0; i <= 4; i++ {
		y := yMax * float64(i) / 4
		label := trimFloat(y)
		if c.percent {
			label = trimFloat(100*y) + "%"
		}
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>`, padL, py(y), padL+plotW, py(y))
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" font-size="11" text-anchor="end">%s</text>`, padL-6, py(y)+4, label)
	}
	for m := 0.0; m <= xMax; m += tickStep(xMax) {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>`, px(m), padT, px(m), padT+plotH)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" font-size="11" text-anchor="middle">%s</text>`, px(m), padT+plotH+15, trimFloat(m))
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="11" text-anchor="middle">time (minutes)</text>`, padL+plotW/2, svgH-6)
	fmt.Fprintf(&b, `<text x="14" y="%.1f" font-size="11" text-anchor="middle" transform="rotate(-90 14 %.1f)">%s</text>`, padT+plotH/2, padT+plotH/2, html.EscapeString(c.yLabel))
	// Areas first, from the top of the stack down, then lines.
	for i := len(c.lines) - 1; i >= 0; i-- {
		l := c.lines[i]
		if !c.stacked || l.dashed || len(c.x) == 0 {
			continue
		}
		var pts []string
		for k := range c.x {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(c.x[k]), py(tops[i][k])))
		}
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(c.x[len(c.x)-1]), py(0)), fmt.Sprintf("%.1f,%.1f", px(c.x[0]), py(0)))
		fmt.Fprintf(&b, `<polygon points="%s" fill="%s" fill-opacity="0.85" stroke="none"/>`, strings.Join(pts, " "), c.color(i))
	}
	for i, l := range c.lines {
		if c.stacked && !l.dashed {
			continue
		}
		var pts []string
		for k := range c.x {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(c.x[k]), py(tops[i][k])))
		}
		dash := ""
		if l.dashed {
			dash = ` stroke-dasharray="6 4"`
		}
		fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="1.6"%s/>`, strings.Join(pts, " "), c.color(i), dash)
	}
	// Legend.
	for i, l := range c.lines {
		y := padT + 14*float64(i)
		x := padL + plotW + 12
		if l.dashed || !c.stacked {
			dash := ""
			if l.dashed {
				dash = ` stroke-dasharray="6 4"`
			}
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2"%s/>`, x, y, x+16, y, c.color(i), dash)
		} else {
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="16" height="9" fill="%s"/>`, x, y-5, c.color(i))
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" font-size="11">%s</text>`, x+22, y+4, html.EscapeString(l.name))
	}
	b.WriteString(`</svg>`)
	return b.String()
}

func (c chart) color(i int) string {
	if c.lines[i].color != "" {
		return c.lines[i].color
	}
	return palette[i%len(palette)]
}

func at(v []float64, k int) float64 {
	if k < len(v) {
		return v[k]
	}
	return 0
}

// niceCeil rounds up to 1, 2, 4, 6 or 8 times a power of ten, so that
// quarter ticks are round too.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 4, 6, 8, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}

func tickStep(xMax float64) float64 {
	for _, s := range []float64{1, 2, 5, 10, 15, 30, 60, 120} {
		if xMax/s <= 10 {
			return s
		}
	}
	return 240
}

func trimFloat(v float64) string {
	s := fmt.Sprintf("%.2f", v)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		return "0"
	}
	return s
}
