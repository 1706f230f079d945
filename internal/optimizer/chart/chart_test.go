package chart

import (
	"encoding/xml"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSVG(t *testing.T) {
	for _, tc := range []struct {
		name  string
		chart Chart
		paths int
	}{
		{name: "empty", chart: Chart{Title: "nothing"}, paths: 0},
		{name: "two series and a band", chart: Chart{Title: "a <b> & c", Series: []Series{{Name: "x", Color: "red", Y: []float64{1, 2, math.NaN(), 4}}, {Name: "y", Color: "blue", Y: []float64{3, 3}}}, HLines: []float64{2, 3}}, paths: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svg := string(tc.chart.SVG())
			// The chart must be well-formed XML: titles are escaped.
			dec := xml.NewDecoder(strings.NewReader(svg))
			for {
				_, err := dec.Token()
				if err != nil {
					if err.Error() != "EOF" {
						t.Fatalf("not well-formed: %v\n%s", err, svg)
					}
					break
				}
			}
			if diff := cmp.Diff(tc.paths, strings.Count(svg, "<path ")); diff != "" {
				t.Errorf("paths (-want +got):\n%s", diff)
			}
		})
	}
}
