package sources

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/meridian-dev/meridian/internal/carbon"
)

func TestBuild(t *testing.T) {
	env := map[string]string{
		EnvElectricityMapsToken: "em-token",
		EnvWattTimeUsername:     "u",
		EnvWattTimePassword:     "p",
	}
	tests := []struct {
		name     string
		config   string
		env      map[string]string
		wantName string
		wantErr  string
	}{
		{name: "nothing configured: the offline data alone", config: `{}`, env: env, wantName: "offline"},
		{
			name:     "all three in the default order",
			config:   `{"electricityMaps":{},"wattTime":{"regions":{"US-CAL-CISO":"CAISO_NORTH"}},"carbonAware":{"baseURL":"http://casdk:8080","locations":{"NL":"westeurope"}}}`,
			env:      env,
			wantName: "electricitymaps>watttime>carbonaware>offline",
		},
		{
			name:     "an explicit order",
			config:   `{"order":["carbonaware","electricitymaps"],"electricityMaps":{"requestsPerMinute":10,"timeout":"3s"},"carbonAware":{"baseURL":"http://casdk:8080","locations":{"NL":"westeurope"},"signal":"average"}}`,
			env:      env,
			wantName: "carbonaware>electricitymaps>offline",
		},
		{
			name:    "a token missing from the environment",
			config:  `{"electricityMaps":{}}`,
			env:     map[string]string{},
			wantErr: "carbon sources: order[0]: electricityMaps: MERIDIAN_ELECTRICITYMAPS_TOKEN is not set (set it from a Secret)",
		},
		{
			name:    "every bad field is named",
			config:  `{"order":["electricitymaps","wattime","carbonaware"],"electricityMaps":{"timeout":"soon"},"forecastTTL":"-1m"}`,
			env:     env,
			wantErr: "carbon sources: order[0]: electricitymaps.timeout \"soon\" is not a positive Go duration such as \"30s\" or \"10m\"\norder[1]: \"wattime\" is not a service: use electricitymaps, watttime, carbonaware\norder[2]: \"carbonaware\" is listed but carbonAware is not configured\nforecastTTL \"-1m\" is not a positive Go duration such as \"30s\" or \"10m\"",
		},
		{
			name:    "WattTime without regions",
			config:  `{"wattTime":{}}`,
			env:     env,
			wantErr: `carbon sources: order[0]: wattTime.regions is empty: map grid zones to WattTime regions, e.g. {"US-CAL-CISO": "CAISO_NORTH"}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var cfg Config
			if err := json.Unmarshal([]byte(tc.config), &cfg); err != nil {
				t.Fatal(err)
			}
			c, err := Build(cfg, func(k string) string { return tc.env[k] }, nil, nil)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("Build() error = %v\nwant %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.ElectricityMaps != nil && strings.Contains(tc.config, `"requestsPerMinute":10`) && cfg.ElectricityMaps.RequestsPerMinute != 10 {
				t.Errorf("electricityMaps.requestsPerMinute = %g, want 10 from the JSON", cfg.ElectricityMaps.RequestsPerMinute)
			}
			if diff := cmp.Diff(tc.wantName, c.Name()); diff != "" {
				t.Errorf("chain (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBuildReadsTheTokenFromTheEnvironment asks a local Electricity Maps
// service through a built chain and checks the token it received.
func TestBuildReadsTheTokenFromTheEnvironment(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 20, 0, 0, time.UTC)
	var gotToken string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotToken = r.Header.Get("auth-token")
		_ = json.NewEncoder(w).Encode(map[string]any{"zone": "DE", "carbonIntensity": 321, "datetime": carbon.Hour(now), "isEstimated": false})
	}))
	defer srv.Close()
	cfg := Config{ElectricityMaps: &ElectricityMaps{BaseURL: srv.URL}}
	c, err := Build(cfg, func(k string) string {
		if k == EnvElectricityMapsToken {
			return "from-secret"
		}
		return ""
	}, clocktesting.NewFakePassiveClock(now), srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.Latest(t.Context(), "DE")
	if err != nil {
		t.Fatal(err)
	}
	got := struct {
		Token, Source string
		Grams         float64
	}{gotToken, p.Source, p.GramsPerKWh}
	want := struct {
		Token, Source string
		Grams         float64
	}{"from-secret", "electricitymaps", 321}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if strings.Contains(c.Name(), "from-secret") {
		t.Errorf("the chain's name %q shows the token", c.Name())
	}
}
