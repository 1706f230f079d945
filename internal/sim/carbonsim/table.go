package carbonsim

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteTable writes each result as a terminal table, then, for several
// results, one line per seed with Meridian's figures.
func WriteTable(w io.Writer, results ...*Result) error {
	for _, r := range results {
		if err := r.writeTable(w); err != nil {
			return err
		}
	}
	if len(results) > 1 {
		return writeSummary(w, results)
	}
	return nil
}

func (r *Result) writeTable(w io.Writer) error {
	s := r.Scenario
	fmt.Fprintf(w, "Scenario %s: %d jobs over %d, %d regions in %d grid zones, capacity %.2g x the carbon-agnostic peak per region\n",
		s.Name, r.Jobs, s.Year, len(s.Regions), len(s.Zones()), s.Headroom)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "POLICY\tEMISSIONS kg\tSAVED\tOF ORACLE\tMISSES\tLARGEST SHARE\tREGION\tOVER CAPACITY\tPEAK UTIL.\tFULL HOURS\tMOVED\tMEAN DELAY h\t")
	for _, p := range r.Policies {
		fmt.Fprintf(tw, "%s\t%.2f\t%.1f%%\t%.1f%%\t%d\t%.1f%%\t%s\t%d\t%.0f%%\t%d\t%.0f%%\t%.1f\t\n", p.Policy, p.Grams/1000, p.SavingsPercent,
			100*p.OracleFraction, p.DeadlineMisses, 100*p.LargestShare, p.LargestRegion, p.CapacityViolations,
			100*p.PeakUtilisation, p.FullHours, 100*p.Moved, p.MeanDelayHours)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	o := r.Oracle
	base := r.Policies[0].Grams
	fmt.Fprintf(w, "Oracle: no schedule emits less than %.2f kg (%.1f%% saved; bound by %s, %d iterations); its schedule emits %.2f kg (gap %.2f%%). OF ORACLE is the share of the bound's savings.\n",
		o.BoundGrams/1000, 100*(base-o.BoundGrams)/base, o.Method, o.Iterations, o.ScheduleGrams/1000, 100*o.Gap)
	m, perfect := r.Policy(MeridianPolicy), r.Policy(MeridianPerfectPolicy)
	fmt.Fprintf(w, "Regret due to forecast error: %s %.2f kg - %s %.2f kg = %.2f kg, %.2f%% of carbon-agnostic.\n",
		MeridianPolicy, m.Grams/1000, MeridianPerfectPolicy, perfect.Grams/1000, r.RegretGrams/1000, r.RegretPercent)
	verdict := "met"
	if !r.GoalMet {
		verdict = "NOT met"
	}
	fmt.Fprintf(w, "Goal (meridian >= %.0f%% of the oracle's savings, 0 deadline misses, 0 region-hours over capacity): %s.\n\n", 100*Goal, verdict)
	return nil
}

func writeSummary(w io.Writer, results []*Result) error {
	fmt.Fprintln(w, "Meridian across seeds")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "SEED\tJOBS\tSAVED\tORACLE SAVED\tOF ORACLE\tMISSES\tOVER CAPACITY\tREGRET\tGOAL\t")
	for _, r := range results {
		m := r.Policy(MeridianPolicy)
		base := r.Policies[0].Grams
		fmt.Fprintf(tw, "%d\t%d\t%.1f%%\t%.1f%%\t%.1f%%\t%d\t%d\t%.2f%%\t%t\t\n", r.Scenario.Seed, r.Jobs, m.SavingsPercent,
			100*(base-r.Oracle.BoundGrams)/base, 100*m.OracleFraction, m.DeadlineMisses, m.CapacityViolations, r.RegretPercent, r.GoalMet)
	}
	return tw.Flush()
}

// WriteJSON writes the results as one JSON document.
func WriteJSON(w io.Writer, results ...*Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(struct {
		Results []*Result `json:"results"`
	}{results}); err != nil {
		return fmt.Errorf("failed to encode the carbon evaluation: %w", err)
	}
	return nil
}
