package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/meridian-dev/meridian/internal/carbon/forecast"
	"github.com/meridian-dev/meridian/internal/carbon/offline"
)

func newCarbonCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "carbon",
		Short: "Carbon-intensity data and forecasts behind the carbon-aware scheduler",
	}
	cmd.AddCommand(newCarbonForecastErrorCommand())
	return cmd
}

type forecastErrorOptions struct {
	zones  []string
	month  string
	days   int
	format string
	html   string
	quiet  bool
}

func newCarbonForecastErrorCommand() *cobra.Command {
	o := &forecastErrorOptions{}
	cmd := &cobra.Command{
		Use:   "forecast-error",
		Short: "Measure the carbon-intensity forecasters' error (MAPE by horizon) on a held-out month of the offline data",
		Long: `For each grid zone with hourly offline data, hold out one month, fit the
forecasters on the rest of the zone's record, and forecast every hour of the
month from 1, 3, 6, 12, 24 and 48 hours before it (with the actual history up to
then). Prints the mean absolute percentage error by horizon of the regression
(the forecaster), the naive "same hour on the last observed day", the 7-day
profile model, and the yearly average a zone without history falls back to,
and where the regression does not beat the naive forecast.

The held-out month is by default each zone's last recorded month.`,
		Example: `  meridian carbon forecast-error
  meridian carbon forecast-error --zone DE --zone GB --month 2024-06 --html forecast-error.html
  meridian carbon forecast-error --format json`,
		Args: cobra.NoArgs,
		RunE: o.run,
	}
	f := cmd.Flags()
	f.StringSliceVar(&o.zones, "zone", nil, "grid zone to evaluate (repeat or comma-separate; default: every zone with hourly data)")
	f.StringVar(&o.month, "month", "last", `month to hold out, as YYYY-MM, or "last" for each zone's last recorded month`)
	f.IntVar(&o.days, "days", 0, "hold out only the month's first N days (0: the whole month)")
	f.StringVarP(&o.format, "format", "o", "table", "output format: table or json")
	f.StringVar(&o.html, "html", "", "also write an HTML page with charts of the error to this file")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "do not report progress on stderr")
	return cmd
}

func (o *forecastErrorOptions) run(cmd *cobra.Command, _ []string) error {
	if o.format != "table" && o.format != "json" {
		return fmt.Errorf("invalid --format %q: want table or json", o.format)
	}
	if o.days < 0 || o.days > 31 {
		return fmt.Errorf("invalid --days %d: want 0 (the whole month) to 31", o.days)
	}
	var month time.Time
	if o.month != "last" {
		m, err := time.Parse("2006-01", o.month)
		if err != nil {
			return fmt.Errorf(`invalid --month %q: want YYYY-MM or "last"`, o.month)
		}
		month = m
	}
	data, err := offline.Default()
	if err != nil {
		return fmt.Errorf("failed to load the offline carbon data: %w", err)
	}
	all := data.HourlyZones()
	zones := o.zones
	if len(zones) == 0 {
		zones = all
	}
	for _, z := range zones {
		if !slices.Contains(all, z) {
			return fmt.Errorf("invalid --zone %q: no hourly offline data (zones with hourly data: %s)", z, strings.Join(all, ", "))
		}
	}
	logf := func(format string, args ...any) {
		if !o.quiet {
			fmt.Fprintf(cmd.ErrOrStderr(), "forecast-error: "+format+"\n", args...)
		}
	}
	var reports []forecast.ZoneReport
	for i, zone := range zones {
		if err := cmd.Context().Err(); err != nil {
			return err
		}
		series, _, err := data.Hourly(zone)
		if err != nil {
			return fmt.Errorf("failed to read the hourly data of zone %q: %w", zone, err)
		}
		s := forecast.Series{Zone: zone, First: series.First, Values: make([]float64, len(series.Values))}
		for j, v := range series.Values {
			s.Values[j] = float64(v)
		}
		from := month
		if from.IsZero() {
			last := series.Last()
			from = time.Date(last.Year(), last.Month(), 1, 0, 0, 0, 0, time.UTC)
			if !from.AddDate(0, 1, -1).Add(23 * time.Hour).Equal(last) {
				// The record ends inside its last month: hold out the
				// month before, the last whole one.
				from = from.AddDate(0, -1, 0)
			}
		}
		to := from.AddDate(0, 1, 0)
		if end := from.AddDate(0, 0, o.days); o.days > 0 && end.Before(to) {
			to = end
		}
		if from.Before(series.First) || to.After(series.Last().Add(time.Hour)) {
			logf("[%d/%d] %s: skipped, its record (%s to %s) does not hold %s", i+1, len(zones), zone,
				series.First.Format("2006-01-02"), series.Last().Format("2006-01-02"), from.Format("2006-01"))
			continue
		}
		avg, year, ok := data.Yearly(zone, from.Year())
		if !ok {
			return fmt.Errorf("zone %q has no yearly average in the offline data for the fallback", zone)
		}
		start := time.Now()
		rep, err := forecast.HoldOut(s, from, to, forecast.Horizons, forecast.NewYearlyAverage(zone, avg, year))
		if err != nil {
			return fmt.Errorf("failed to evaluate the forecasts of zone %q: %w", zone, err)
		}
		reports = append(reports, rep)
		logf("[%d/%d] %s: trained on %d h, held out %s (%d h), %.1f%% at 24 h against naive %.1f%% (%v)", i+1, len(zones), zone,
			rep.TrainHours, from.Format("2006-01-02")+".."+to.Add(-time.Hour).Format("01-02"), int(to.Sub(from)/time.Hour),
			rep.Scores[0].MAPE[slices.Index(forecast.Horizons, 24)], rep.Scores[1].MAPE[slices.Index(forecast.Horizons, 24)],
			time.Since(start).Round(10*time.Millisecond))
	}
	if len(reports) == 0 {
		return fmt.Errorf("no zone's record holds the held-out month %s", o.month)
	}
	report := forecast.NewReport(forecast.Horizons, reports)
	if o.html != "" {
		if err := writeFile(o.html, report.WriteHTML); err != nil {
			return err
		}
		logf("charts written to %s", o.html)
	}
	if o.format == "json" {
		enc := json.NewEncoder(cmd.OutOrStdout())
		enc.SetIndent("", "  ")
		return enc.Encode(report)
	}
	return report.WriteTable(cmd.OutOrStdout())
}

// writeFile creates the file and writes it with fn.
func writeFile(name string, fn func(io.Writer) error) error {
	f, err := os.Create(name)
	if err != nil {
		return fmt.Errorf("failed to create %s: %w", name, err)
	}
	if err := fn(f); err != nil {
		_ = f.Close()
		return fmt.Errorf("failed to write %s: %w", name, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("failed to write %s: %w", name, err)
	}
	return nil
}
