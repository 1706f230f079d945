package decide

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestTokenRenewal(t *testing.T) {
	issued := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name        string
		life        time.Duration
		renewBefore time.Duration
		want        time.Time
	}{
		{name: "a third of the lifetime by default", life: 3 * time.Hour, want: issued.Add(2 * time.Hour)},
		{name: "renewBefore when shorter than the lifetime", life: time.Hour, renewBefore: 10 * time.Minute, want: issued.Add(50 * time.Minute)},
		{name: "renewBefore as long as the lifetime falls back to a third", life: 30 * time.Minute, renewBefore: 30 * time.Minute, want: issued.Add(20 * time.Minute)},
		{name: "negative renewBefore falls back to a third", life: 30 * time.Minute, renewBefore: -time.Minute, want: issued.Add(20 * time.Minute)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := TokenRenewal(issued, issued.Add(tc.life), tc.renewBefore)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("TokenRenewal (-want +got):\n%s", diff)
			}
		})
	}
}
