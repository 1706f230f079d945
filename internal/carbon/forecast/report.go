package forecast

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// A ZoneReport is the error of each model on one zone's held-out period.
type ZoneReport struct {
	// Zone is the grid zone.
	Zone string `json:"zone"`
	// From and To bound the held-out hours, [From, To).
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
	// TrainHours is the number of known hours the models were fitted on.
	TrainHours int `json:"trainHours"`
	// Scores are the models' errors: regression, naive, profile,
	// yearly-average.
	Scores []Score `json:"scores"`
}

// HoldOut fits the regression and the profile on s without the hours in
// [from, to), and scores them, the naive forecast and the fallback on those
// hours (Evaluate) at the given horizons. fallback is the zone's
// YearlyAverage, scored as if the zone had no history.
func HoldOut(s Series, from, to time.Time, horizons []int, fallback *YearlyAverage) (ZoneReport, error) {
	train := s.Without(from, to)
	rep := ZoneReport{Zone: s.Zone, From: from, To: to, TrainHours: train.Known()}
	reg, err := NewRegression(train)
	if err != nil {
		return ZoneReport{}, err
	}
	prof, err := NewProfile(train)
	if err != nil {
		return ZoneReport{}, err
	}
	rep.Scores = Evaluate(s, from, to, horizons, reg, Naive{}, prof, fallback)
	for k, h := range horizons {
		if rep.Scores[0].Hours[k] == 0 {
			return ZoneReport{}, fmt.Errorf("forecast: zone %q has no known hour in [%s, %s) with %d h of history before it to score",
				s.Zone, from.UTC().Format(time.RFC3339), to.UTC().Format(time.RFC3339), h)
		}
	}
	return rep, nil
}

// A Loss is a zone and horizon where the regression did not beat the naive
// forecast.
type Loss struct {
	Zone       string  `json:"zone"`
	Horizon    int     `json:"horizon"`
	Regression float64 `json:"regression"`
	Naive      float64 `json:"naive"`
}

// A Report is the forecast error over several zones.
type Report struct {
	// Horizons are the horizons, in hours, of every Score's MAPE.
	Horizons []int `json:"horizons"`
	// Zones are the zones' errors, in the order evaluated.
	Zones []ZoneReport `json:"zones"`
	// Mean is each model's MAPE averaged over the zones (each zone counts
	// once, whatever its intensity), and the hours scored in all.
	Mean []Score `json:"mean"`
	// Losses are the zones and horizons where the regression's MAPE is not
	// below the naive forecast's.
	Losses []Loss `json:"losses"`
	// Wins counts the zones and horizons where it is.
	Wins int `json:"wins"`
}

// NewReport sums up the zones' errors.
func NewReport(horizons []int, zones []ZoneReport) *Report {
	r := &Report{Horizons: horizons, Zones: zones, Losses: []Loss{}}
	if len(zones) == 0 {
		return r
	}
	for m := range zones[0].Scores {
		mean := Score{Model: zones[0].Scores[m].Model, MAPE: make([]float64, len(horizons)), Hours: make([]int, len(horizons))}
		for _, z := range zones {
			for k := range horizons {
				mean.MAPE[k] += z.Scores[m].MAPE[k] / float64(len(zones))
				mean.Hours[k] += z.Scores[m].Hours[k]
			}
		}
		r.Mean = append(r.Mean, mean)
	}
	for _, z := range zones {
		for k, h := range horizons {
			reg, naive := z.Scores[0].MAPE[k], z.Scores[1].MAPE[k]
			if reg < naive {
				r.Wins++
			} else {
				r.Losses = append(r.Losses, Loss{Zone: z.Zone, Horizon: h, Regression: reg, Naive: naive})
			}
		}
	}
	return r
}

// WriteTable writes the report as a text table: per zone and model the MAPE
// by horizon, the means over the zones, and where the regression does not
// beat the naive forecast.
func (r *Report) WriteTable(w io.Writer) error {
	var b strings.Builder
	b.WriteString("MAPE (%) of forecasts made h hours ahead, on a held-out period per zone (models trained on the rest of its record)\n\n")
	fmt.Fprintf(&b, "%-13s %-17s %-15s", "ZONE", "HELD OUT", "MODEL")
	for _, h := range r.Horizons {
		fmt.Fprintf(&b, " %6s", fmt.Sprintf("%dh", h))
	}
	b.WriteString("\n")
	row := func(zone, period string, s Score) {
		fmt.Fprintf(&b, "%-13s %-17s %-15s", zone, period, s.Model)
		for _, m := range s.MAPE {
			fmt.Fprintf(&b, " %6.1f", m)
		}
		b.WriteString("\n")
	}
	for _, z := range r.Zones {
		for i, s := range z.Scores {
			if i == 0 {
				row(z.Zone, period(z.From, z.To), s)
			} else {
				row("", "", s)
			}
		}
	}
	for i, s := range r.Mean {
		if i == 0 {
			row("MEAN", plural(len(r.Zones), "zone"), s)
		} else {
			row("", "", s)
		}
	}
	total := r.Wins + len(r.Losses)
	fmt.Fprintf(&b, "\nregression beats naive in %d of %d zone-horizons", r.Wins, total)
	if len(r.Losses) == 0 {
		b.WriteString("\n")
	} else {
		b.WriteString("; not in:\n")
		for _, l := range r.Losses {
			fmt.Fprintf(&b, "  %s %dh: regression %.1f, naive %.1f\n", l.Zone, l.Horizon, l.Regression, l.Naive)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// period names [from, to): the month when it is one whole month, else the
// dates.
func period(from, to time.Time) string {
	from, to = from.UTC(), to.UTC()
	if from.Day() == 1 && from.Hour() == 0 && to.Equal(from.AddDate(0, 1, 0)) {
		return from.Format("2006-01")
	}
	return from.Format("2006-01-02") + ".." + to.Add(-time.Hour).Format("01-02")
}

// plural writes n and the noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
