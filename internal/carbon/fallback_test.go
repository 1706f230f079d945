package carbon

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/meridian-dev/meridian/internal/money"
)

func TestNoForecast(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	cheap := Candidate{Provider: "gcp", Region: "europe-west4", Zone: "NL", PricePerHour: money.New(resource.MustParse("0.1"), "USD"), LatencyMs: 20}
	near := Candidate{Provider: "azure", Region: "westeurope", Zone: "NL", PricePerHour: money.New(resource.MustParse("0.1"), "USD"), LatencyMs: 5}
	dear := Candidate{Provider: "aws", Region: "eu-west-1", Zone: "IE", PricePerHour: money.New(resource.MustParse("0.2"), "USD"), LatencyMs: 1}
	tests := []struct {
		name      string
		req       Request
		want      Candidate
		wantStart time.Time
		wantErr   error
	}{
		{name: "cheapest, then nearest", req: Request{Now: now, Duration: time.Hour, Candidates: []Candidate{dear, cheap, near}}, want: near, wantStart: now},
		{name: "not before a later start", req: Request{Now: now, NotBefore: now.Add(time.Hour), Duration: time.Hour, Candidates: []Candidate{cheap}}, want: cheap, wantStart: now.Add(time.Hour)},
		{name: "ends exactly at the deadline", req: Request{Now: now, Duration: time.Hour, Deadline: now.Add(time.Hour), Candidates: []Candidate{cheap}}, want: cheap, wantStart: now},
		{name: "past the deadline", req: Request{Now: now, Duration: 2 * time.Hour, Deadline: now.Add(time.Hour), Candidates: []Candidate{cheap}}, wantErr: ErrDeadline},
		{name: "no candidates", req: Request{Now: now, Duration: time.Hour}, wantErr: ErrNoCandidates},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := NoForecast{}.Schedule(tc.req)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Schedule() error = %v, want %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tc.want, got.Candidate); diff != "" {
				t.Errorf("candidate (-want +got):\n%s", diff)
			}
			if !got.Start.Equal(tc.wantStart) || !got.End.Equal(tc.wantStart.Add(tc.req.Duration)) {
				t.Errorf("start, end = %s, %s; want %s and one duration later", got.Start, got.End, tc.wantStart)
			}
			if got.Fallback == "" {
				t.Error("Fallback is empty; the decision must say that no forecast was used")
			}
		})
	}
}
