package provision

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestForecast checks how each reach reads a trend: one sample a minute
// over a 10-minute window, in thousands of millicores.
func TestForecast(t *testing.T) {
	// The rise of 10..16 then flat has a window slope of 1 a minute (the
	// least-squares slope of x = 0..6) and a flat last half; its demand
	// deviates from the window's line by 1,030m (standard deviation), so
	// the margin is 515m.
	rose := []int64{10, 12, 14, 16, 16, 16, 16}
	// The rise that speeds up has a window slope of 1 a minute, a last
	// half slope of 2 (the lower is 1) and the same deviation.
	speeding := []int64{10, 10, 10, 10, 12, 14, 16}
	falling := []int64{16, 15, 14, 13, 12, 11, 10}
	tests := []struct {
		name   string
		demand []int64
		lead   time.Duration
		want   map[reach]int64
	}{
		{"a rise that ended is not carried on for nodes; a cluster follows the window, plus the margin", rose, 7 * time.Minute,
			map[reach]int64{forNodes: 16000, forKeeping: 16515, forBuying: 16000 + 7000 + 515}},
		{"the lower of the window's and the last half's slope", speeding, 2 * time.Minute,
			map[reach]int64{forNodes: 18000, forBuying: 18000 + 515}},
		{"no rise, no margin", falling, 7 * time.Minute,
			map[reach]int64{forNodes: 10000, forKeeping: 10000, forBuying: 10000}},
		{"too short a history: the latest demand", rose[:4], 7 * time.Minute,
			map[reach]int64{forNodes: 16000, forKeeping: 16000, forBuying: 16000}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := trend{window: 10 * time.Minute}
			for i, d := range tc.demand {
				tr.add(start.Add(time.Duration(i)*time.Minute), cpu(d*1000), cpu(1000))
			}
			got := map[reach]int64{}
			for r := range tc.want {
				got[r] = tr.forecast(tc.lead, r).MilliCPU
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("forecast millicores by reach (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTrendSpacing: woken every 2 s (as the controller is while a cluster
// is provisioned), the history keeps about one sample a period of 30 s, so
// the wake-ups do not outweigh the rest of the window in the line's fit;
// the newest sample is the latest demand, and a replaced sample's largest
// request is kept.
func TestTrendSpacing(t *testing.T) {
	tr := trend{window: 15 * time.Minute, spacing: 30 * time.Second}
	for s := 0; s <= 300; s += 2 {
		largest := cpu(1000)
		if s == 290 {
			largest = cpu(6000)
		}
		tr.add(start.Add(time.Duration(s)*time.Second), cpu(int64(1000+s)), largest)
	}
	var got []int
	for _, s := range tr.samples {
		got = append(got, int(s.at.Sub(start).Seconds()))
	}
	// A sample is kept once the next comes 30 s after the one before it:
	// every 28 s at 2-s wake-ups.
	want := []int{0, 28, 56, 84, 112, 140, 168, 196, 224, 252, 280, 300}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("seconds of the samples kept (-want +got):\n%s", diff)
	}
	if newest := tr.samples[len(tr.samples)-1]; newest.demand.MilliCPU != 1300 || newest.largest.MilliCPU != 6000 {
		t.Errorf("newest sample: demand %dm, largest %dm; want 1300m and the 6000m seen at 290 s", newest.demand.MilliCPU, newest.largest.MilliCPU)
	}
}
