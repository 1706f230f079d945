package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/meridian-dev/meridian/internal/sim"
)

func pct(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) }

func minutes(s *float64) string {
	if s == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f", *s/60)
}

func duration(seconds float64) string {
	switch {
	case seconds == 0:
		return "n/a"
	case seconds < 1e-3:
		return fmt.Sprintf("%.1fµs", seconds*1e6)
	case seconds < 1:
		return fmt.Sprintf("%.2fms", seconds*1e3)
	}
	return fmt.Sprintf("%.2fs", seconds)
}

// Table writes the comparison of the policies of each result: one row per
// policy, then each cluster's peak CPU allocation.
func Table(out io.Writer, results ...*sim.Result) error {
	for i, r := range results {
		if i > 0 {
			fmt.Fprintln(out)
		}
		workload := fmt.Sprintf("%d tasks", r.Tasks)
		if r.Services > 0 {
			workload = fmt.Sprintf("%d services", r.Services)
			if r.Tasks > 0 {
				workload = fmt.Sprintf("%d tasks, %d services", r.Tasks, r.Services)
			}
		}
		fmt.Fprintf(out, "Scenario %s (seed %d, %s, %.0f min)\n", r.Scenario, r.Seed, workload, r.DurationSeconds/60)
		if r.Description != "" {
			fmt.Fprintf(out, "%s\n", r.Description)
		}
		fmt.Fprintln(out)
		traffic := false
		for _, p := range r.Policies {
			traffic = traffic || p.TrafficLocalFraction != nil
		}
		tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
		header := "policy\tpending max\tpending mean\talloc max (cluster)\talloc overall max\tcloud CPU·h\tcloud asked/ready/removed (min)\tmoved back\tleft cloud\tdecisions\tdecide p50\tdecide p99\t"
		if traffic {
			header += "near users (RTT)\t"
		}
		fmt.Fprintln(tw, header)
		for _, p := range r.Policies {
			s := p.Summary
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s (%s)\t%s\t%.1f\t%s/%s/%s\t%d\t%d\t%d\t%s\t%s\t",
				p.Policy, pct(s.MaxPendingFraction), pct(s.MeanPendingFraction),
				pct(s.MaxClusterAllocation), s.MaxClusterAllocationCluster, pct(s.MaxOverallAllocation),
				s.CloudCPUHours, minutes(s.CloudProvisionedAtSeconds), minutes(s.CloudReadyAtSeconds), minutes(s.CloudRemovedAtSeconds),
				s.ReplicasMovedBack, s.ReplicasLeftCloud, s.Decisions, duration(s.DecisionP50Seconds), duration(s.DecisionP99Seconds))
			if traffic {
				cell := "-"
				if s.TrafficLocalFraction != nil {
					cell = fmt.Sprintf("%s (%.1fms)", pct(*s.TrafficLocalFraction), *s.MeanUserRTTMs)
				}
				fmt.Fprintf(tw, "%s\t", cell)
			}
			fmt.Fprintln(tw)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintln(out)
		if err := clusterTable(out, r); err != nil {
			return err
		}
	}
	return nil
}

// clusterTable shows each cluster's peak and mean CPU allocation per policy.
func clusterTable(out io.Writer, r *sim.Result) error {
	var names []string
	seen := map[string]bool{}
	for _, p := range r.Policies {
		for _, c := range p.Clusters {
			if !seen[c.Cluster] {
				seen[c.Cluster] = true
				names = append(names, c.Cluster)
			}
		}
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "CPU allocation max/mean\t%s\t\n", strings.Join(names, "\t"))
	for _, p := range r.Policies {
		cells := make([]string, len(names))
		for i, n := range names {
			cells[i] = "-"
			for _, c := range p.Clusters {
				if c.Cluster == n && (c.MaxAllocation > 0 || !c.Cloud) {
					cells[i] = fmt.Sprintf("%.0f%%/%.0f%%", 100*c.MaxAllocation, 100*c.MeanAllocation)
				}
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t\n", p.Policy, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}
