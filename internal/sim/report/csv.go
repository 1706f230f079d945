package report

import (
	"encoding/csv"
	"io"
	"strconv"

	"github.com/meridian-dev/meridian/internal/sim"
)

// CSV writes one policy's series, one row per sample: the totals, then per
// cluster its assigned and allocatable cores and its Running and Pending
// pods.
func CSV(out io.Writer, s *sim.Series) error {
	w := csv.NewWriter(out)
	header := []string{"minute", "asked", "running", "unplaced", "pendingFraction", "allocation", "cloudCores", "cloudPaidCores"}
	for _, c := range s.Clusters {
		header = append(header, c+".assignedCores", c+".allocatableCores", c+".runningPods", c+".pendingPods")
	}
	if err := w.Write(header); err != nil {
		return err
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	for k, m := range s.Minutes {
		row := []string{f(m), strconv.Itoa(s.Asked[k]), strconv.Itoa(s.Running[k]), strconv.Itoa(s.Unplaced[k]),
			f(s.PendingFraction[k]), f(s.Allocation[k]), f(s.CloudCores[k]), f(s.CloudPaidCores[k])}
		for i := range s.Clusters {
			row = append(row, f(s.AssignedCores[i][k]), f(s.AllocatableCores[i][k]),
				strconv.Itoa(s.RunningPods[i][k]), strconv.Itoa(s.PendingPods[i][k]))
		}
		if err := w.Write(row); err != nil {
			return err
		}
	}
	w.Flush()
	return w.Error()
}
