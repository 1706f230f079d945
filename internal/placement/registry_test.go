package placement

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// stubFilter rejects the clusters named in reject, with their reasons.
type stubFilter struct {
	name   string
	reject map[string]string
}

func (f *stubFilter) Name() string { return f.name }

func (f *stubFilter) Filter(_ context.Context, _ *Workload, c *ClusterInfo) *Status {
	if reason, ok := f.reject[c.Name]; ok {
		return &Status{Code: UnschedulableAndUnresolvable, Reason: reason}
	}
	return nil
}

// stubScore scores clusters from a table; a cluster named fail fails.
type stubScore struct {
	name   string
	scores map[string]int64
	fail   string
}

func (s *stubScore) Name() string { return s.name }

func (s *stubScore) Score(_ context.Context, _ *Workload, c *ClusterInfo, _ *Snapshot) (int64, *Status) {
	if c.Name == s.fail {
		return 0, &Status{Code: Error, Reason: "the table has no row for it"}
	}
	return s.scores[c.Name], nil
}

func factory(p Plugin) PluginFactory { return func() (Plugin, error) { return p, nil } }

func TestRegistryRegister(t *testing.T) {
	r := Registry{}
	if err := r.Register("a", factory(&stubFilter{name: "a"})); err != nil {
		t.Fatalf("Register(a) = %v", err)
	}
	err := r.Register("a", factory(&stubFilter{name: "a"}))
	if !errors.Is(err, ErrDuplicatePlugin) || !strings.Contains(err.Error(), `"a"`) {
		t.Errorf("Register(a) again = %v, want an error naming the plugin and wrapping ErrDuplicatePlugin", err)
	}
	if err := r.Register("b", nil); err == nil {
		t.Error("Register(b, nil) = nil, want an error")
	}
	err = r.Merge(Registry{"c": factory(&stubFilter{name: "c"}), "a": factory(&stubFilter{name: "a"})})
	if !errors.Is(err, ErrDuplicatePlugin) {
		t.Errorf("Merge() = %v, want ErrDuplicatePlugin", err)
	}
}

func TestNewFramework(t *testing.T) {
	reg := Registry{
		"filter": factory(&stubFilter{name: "filter"}),
		"score":  factory(&stubScore{name: "score"}),
		"broken": func() (Plugin, error) { return nil, errors.New("no config") },
	}
	tests := []struct {
		name     string
		profiles []Profile
		wantErr  error
		wantText string
	}{
		{
			name:     "valid",
			profiles: []Profile{{Policy: PolicyWorstFit, Filters: []string{"filter"}, Scores: []WeightedPlugin{{Name: "score", Weight: 1}}}},
		},
		{name: "no profiles", wantErr: ErrInvalidProfile, wantText: "no profiles"},
		{
			name:     "unknown filter",
			profiles: []Profile{{Policy: PolicyWorstFit, Filters: []string{"nope"}}},
			wantErr:  ErrUnknownPlugin, wantText: `"nope"`,
		},
		{
			name:     "unknown score",
			profiles: []Profile{{Policy: PolicyWorstFit, Scores: []WeightedPlugin{{Name: "nada", Weight: 1}}}},
			wantErr:  ErrUnknownPlugin, wantText: `"nada"`,
		},
		{
			name:     "unknown policy",
			profiles: []Profile{{Policy: "Cheapest"}},
			wantErr:  ErrUnknownPolicy, wantText: `"Cheapest"`,
		},
		{
			name:     "policy served twice",
			profiles: []Profile{{Policy: PolicyBestFit}, {Policy: PolicyBestFit}},
			wantErr:  ErrInvalidProfile, wantText: `"BestFit"`,
		},
		{
			name:     "score plugin listed as a filter",
			profiles: []Profile{{Policy: PolicyWorstFit, Filters: []string{"score"}}},
			wantErr:  ErrInvalidProfile, wantText: `plugin "score" is not a filter plugin`,
		},
		{
			name:     "filter plugin listed as a score",
			profiles: []Profile{{Policy: PolicyWorstFit, Scores: []WeightedPlugin{{Name: "filter", Weight: 1}}}},
			wantErr:  ErrInvalidProfile, wantText: `plugin "filter" is not a score plugin`,
		},
		{
			name:     "weight not positive",
			profiles: []Profile{{Policy: PolicyWorstFit, Scores: []WeightedPlugin{{Name: "score", Weight: 0}}}},
			wantErr:  ErrInvalidProfile, wantText: "weight 0",
		},
		{
			name:     "factory fails",
			profiles: []Profile{{Policy: PolicyWorstFit, Filters: []string{"broken"}}},
			wantText: `failed to create plugin "broken": no config`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewFramework(reg, tc.profiles...)
			if diff := cmp.Diff(tc.wantText != "", err != nil); diff != "" {
				t.Fatalf("NewFramework() = %v; error mismatch (-want +got):\n%s", err, diff)
			}
			if err == nil {
				return
			}
			if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Errorf("NewFramework() = %v, want it to wrap %v", err, tc.wantErr)
			}
			if !strings.Contains(err.Error(), tc.wantText) {
				t.Errorf("NewFramework() = %q, want it to contain %q", err, tc.wantText)
			}
		})
	}
}
