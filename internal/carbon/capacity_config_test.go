package carbon_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/meridian-dev/meridian/internal/carbon"
)

func TestCapacityConfig(t *testing.T) {
	known := map[string]string{"azure/westeurope": "NL", "gcp/europe-west4": "NL", "azure/norwayeast": "NO-NO1"}
	at := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		file string
		// want is the capacity of each key, in millicores; -1 is unlimited.
		want map[string]int64
		// wantErr are strings the error must hold.
		wantErr []string
	}{
		{name: "empty is unlimited", file: "", want: map[string]int64{"azure/westeurope": -1}},
		{
			name: "regions and zones in YAML",
			file: "regions:\n  azure/westeurope: 64\n  azure/norwayeast: 0.5\nzones:\n  NL: 80\n",
			want: map[string]int64{"azure/westeurope": 64000, "azure/norwayeast": 500, "zone:NL": 80000, "gcp/europe-west4": -1},
		},
		{
			name: "JSON",
			file: `{"regions": {"gcp/europe-west4": 8}}`,
			want: map[string]int64{"gcp/europe-west4": 8000, "zone:NL": -1},
		},
		{name: "unknown field", file: "region:\n  azure/westeurope: 64\n", wantErr: []string{`unknown field "region"`}},
		{name: "not a number", file: "regions:\n  azure/westeurope: many\n", wantErr: []string{"invalid capacity config"}},
		{name: "region without provider", file: "regions:\n  westeurope: 64\n", wantErr: []string{`regions["westeurope"]: a region is named provider/region`}},
		{name: "unknown region", file: "regions:\n  azure/westeurop: 64\n", wantErr: []string{`regions["azure/westeurop"]: the policy data know no such region (did you mean azure/westeurope?)`}},
		{name: "zero", file: "regions:\n  azure/westeurope: 0\n", wantErr: []string{`regions["azure/westeurope"]: 0 vCPU must be a number greater than zero`}},
		{name: "negative zone", file: "zones:\n  NL: -4\n", wantErr: []string{`zones["NL"]: -4 vCPU`}},
		{name: "unknown zone", file: "zones:\n  XX: 4\n", wantErr: []string{`zones["XX"]: no region of the policy data is in grid zone "XX"`}},
		{
			name:    "every error at once",
			file:    "regions:\n  azure/nowhere: 1\n  azure/westeurope: -1\nzones:\n  XX: 4\n",
			wantErr: []string{`regions["azure/nowhere"]`, `regions["azure/westeurope"]`, `zones["XX"]`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := carbon.ParseCapacityConfig([]byte(tc.file))
			var c *carbon.Capacity
			if err == nil {
				c, err = cfg.Capacity(known)
			}
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
			got := map[string]int64{}
			for key := range tc.want {
				v, ok := c.At(key, at)
				if !ok {
					v = -1
				}
				got[key] = v
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("capacity (-want +got):\n%s", diff)
			}
		})
	}
}
