package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/meridian-dev/meridian/internal/carbon"
	"github.com/meridian-dev/meridian/internal/carbon/sources"
)

// TestBuildCarbon checks the --carbon-* flags and their files: what they
// build, and errors that name the flag and the field.
func TestBuildCarbon(t *testing.T) {
	regions := map[string]string{"azure/westeurope": "NL", "gcp/europe-west4": "NL", "azure/norwayeast": "NO-NO1"}
	file := func(t *testing.T, content string) string {
		t.Helper()
		p := filepath.Join(t.TempDir(), "config.yaml")
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	defaults := carbonFlags{interval: carbon.DefaultRefreshInterval, horizon: carbon.DefaultRefreshHorizon}
	type want struct {
		Source  string
		Zones   []string
		Summary []string
	}
	tests := []struct {
		name    string
		flags   func(t *testing.T, f *carbonFlags)
		env     map[string]string
		want    want
		wantErr []string
	}{{
		name: "default: the offline data, unlimited",
		want: want{Source: "offline", Zones: []string{"NL", "NO-NO1"}, Summary: []string{"from offline", "capacity unlimited (no --carbon-capacity)"}},
	}, {
		name: "a service first, its token from the environment",
		flags: func(t *testing.T, f *carbonFlags) {
			f.sourcesFile = file(t, "order: [electricitymaps]\nelectricityMaps:\n  requestsPerMinute: 10\n")
		},
		env:  map[string]string{sources.EnvElectricityMapsToken: "secret"},
		want: want{Source: "electricitymaps>offline", Zones: []string{"NL", "NO-NO1"}, Summary: []string{"from electricitymaps>offline"}},
	}, {
		name: "capacities and extra zones",
		flags: func(t *testing.T, f *carbonFlags) {
			f.capacityFile = file(t, "regions:\n  azure/westeurope: 64\nzones:\n  NO-NO1: 8\n")
			f.extraZones = []string{"ES", "NL"}
		},
		want: want{Source: "offline", Zones: []string{"ES", "NL", "NO-NO1"}, Summary: []string{"3 grid zones", "capacity 1 region(s), 1 zone(s) declared, others unlimited"}},
	}, {
		name:    "a service without its token",
		flags:   func(t *testing.T, f *carbonFlags) { f.sourcesFile = file(t, "electricityMaps: {}\n") },
		wantErr: []string{"invalid --carbon-sources", "electricityMaps: " + sources.EnvElectricityMapsToken + " is not set"},
	}, {
		name:    "an unknown field of the sources file",
		flags:   func(t *testing.T, f *carbonFlags) { f.sourcesFile = file(t, "electricitymap: {}\n") },
		wantErr: []string{"invalid --carbon-sources", `unknown field "electricitymap"`},
	}, {
		name:    "a bad TTL",
		flags:   func(t *testing.T, f *carbonFlags) { f.sourcesFile = file(t, "forecastTTL: soon\n") },
		wantErr: []string{"invalid --carbon-sources", `forecastTTL "soon"`},
	}, {
		name:    "a sources file that does not exist",
		flags:   func(t *testing.T, f *carbonFlags) { f.sourcesFile = filepath.Join(t.TempDir(), "missing.yaml") },
		wantErr: []string{"failed to read --carbon-sources", "missing.yaml"},
	}, {
		name:    "a capacity of an unknown region",
		flags:   func(t *testing.T, f *carbonFlags) { f.capacityFile = file(t, "regions:\n  azure/westeurop: 64\n") },
		wantErr: []string{"invalid --carbon-capacity", `regions["azure/westeurop"]: the policy data know no such region (did you mean azure/westeurope?)`},
	}, {
		name:    "a capacity that is not a number",
		flags:   func(t *testing.T, f *carbonFlags) { f.capacityFile = file(t, "zones:\n  NL: lots\n") },
		wantErr: []string{"invalid --carbon-capacity", "invalid capacity config"},
	}, {
		name:    "a capacity of zero",
		flags:   func(t *testing.T, f *carbonFlags) { f.capacityFile = file(t, "zones:\n  NL: 0\n") },
		wantErr: []string{"invalid --carbon-capacity", `zones["NL"]: 0 vCPU must be a number greater than zero`},
	}, {
		name:    "an empty extra zone",
		flags:   func(t *testing.T, f *carbonFlags) { f.extraZones = []string{"ES", " "} },
		wantErr: []string{"invalid --carbon-zones: entry 1 is empty"},
	}, {
		name:    "no refresh interval",
		flags:   func(t *testing.T, f *carbonFlags) { f.interval = 0 },
		wantErr: []string{"invalid --carbon-refresh-interval 0s"},
	}, {
		name:    "a horizon under an hour",
		flags:   func(t *testing.T, f *carbonFlags) { f.horizon = 30 * time.Minute },
		wantErr: []string{"invalid --carbon-horizon 30m0s"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := defaults
			if tc.flags != nil {
				tc.flags(t, &f)
			}
			s, err := buildCarbon(f, regions, func(k string) string { return tc.env[k] })
			if len(tc.wantErr) > 0 {
				if err == nil {
					t.Fatalf("no error; want one holding %q", tc.wantErr)
				}
				for _, w := range tc.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not hold %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := want{Source: s.refresher.Source.Name(), Zones: s.refresher.Zones}
			for _, w := range tc.want.Summary {
				if strings.Contains(s.summary, w) {
					got.Summary = append(got.Summary, w)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("carbon scheduler (-want +got):\n%s\nsummary: %s", diff, s.summary)
			}
			if s.refresher.Target != s.planner || s.refresher.Interval != f.interval || s.refresher.Horizon != f.horizon {
				t.Errorf("the refresher does not feed the planner at the flags' pace: %+v", s.refresher)
			}
		})
	}
}
