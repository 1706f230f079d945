package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCarbonForecastError runs the command on the real offline data of one
// zone, holding out a week to keep it quick.
func TestCarbonForecastError(t *testing.T) {
	html := filepath.Join(t.TempDir(), "forecast-error.html")
	stdout, stderr, err := execute(t, "carbon", "forecast-error", "--zone", "DE", "--month", "2024-02", "--days", "7", "--html", html)
	if err != nil {
		t.Fatalf("carbon forecast-error: %v\n%s", err, stderr)
	}
	// The table runs from its header to the first blank line; each row is
	// its labels and the number of MAPE values (one decimal) after them.
	var rows []string
	lines := strings.Split(stdout, "\n")
	for _, l := range lines {
		if len(rows) == 0 && !strings.HasPrefix(l, "ZONE") {
			continue
		}
		if strings.TrimSpace(l) == "" {
			break
		}
		var labels []string
		values := 0
		for _, f := range strings.Fields(l) {
			if _, err := strconv.ParseFloat(f, 64); err == nil && strings.Contains(f, ".") {
				values++
			} else {
				labels = append(labels, f)
			}
		}
		rows = append(rows, fmt.Sprintf("%s [%d]", strings.Join(labels, " "), values))
	}
	want := []string{
		"ZONE HELD OUT MODEL 1h 3h 6h 12h 24h 48h [0]",
		"DE 2024-02-01..02-07 regression [6]",
		"naive [6]",
		"profile [6]",
		"yearly-average [6]",
		"MEAN 1 zone regression [6]",
		"naive [6]",
		"profile [6]",
		"yearly-average [6]",
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("table (-want +got):\n%s\n%s", diff, stdout)
	}
	if !strings.Contains(stdout, "regression beats naive in ") {
		t.Errorf("stdout does not say where the regression beats naive:\n%s", stdout)
	}
	if !strings.Contains(stderr, "forecast-error: [1/1] DE: trained on ") {
		t.Errorf("stderr has no progress line:\n%s", stderr)
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatalf("--html wrote nothing: %v", err)
	}
	if !strings.Contains(string(page), "<svg ") {
		t.Errorf("%s has no chart", html)
	}
}

func TestCarbonForecastErrorJSON(t *testing.T) {
	stdout, stderr, err := execute(t, "carbon", "forecast-error", "--zone", "NO", "--days", "3", "--format", "json", "--quiet")
	if err != nil {
		t.Fatalf("carbon forecast-error: %v\n%s", err, stderr)
	}
	var doc struct {
		Horizons []int `json:"horizons"`
		Zones    []struct {
			Zone   string `json:"zone"`
			Scores []struct {
				Model string    `json:"model"`
				MAPE  []float64 `json:"mape"`
				Hours []int     `json:"hours"`
			} `json:"scores"`
		} `json:"zones"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, stdout)
	}
	type shape struct {
		Horizons []int
		Zones    []string
		Models   []string
		Hours    []int
	}
	got := shape{Horizons: doc.Horizons}
	for _, z := range doc.Zones {
		got.Zones = append(got.Zones, z.Zone)
		for _, s := range z.Scores {
			got.Models = append(got.Models, s.Model)
		}
		got.Hours = z.Scores[0].Hours
	}
	want := shape{
		Horizons: []int{1, 3, 6, 12, 24, 48},
		Zones:    []string{"NO"},
		Models:   []string{"regression", "naive", "profile", "yearly-average"},
		Hours:    []int{72, 72, 72, 72, 72, 72}, // the last month's (2023-12) first 3 days
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("carbon forecast-error --format json (-want +got):\n%s", diff)
	}
	if stderr != "" {
		t.Errorf("--quiet still wrote to stderr:\n%s", stderr)
	}
}

func TestCarbonForecastErrorErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"format", []string{"--format", "xml"}, `invalid --format "xml": want table or json`},
		{"month", []string{"--month", "2024-13"}, `invalid --month "2024-13": want YYYY-MM or "last"`},
		{"days", []string{"--days", "40"}, `invalid --days 40: want 0 (the whole month) to 31`},
		{"zone", []string{"--zone", "XX"}, `invalid --zone "XX": no hourly offline data (zones with hourly data: AU-NSW, `},
		{"month outside every record", []string{"--zone", "NO", "--month", "2030-01"}, `no zone's record holds the held-out month 2030-01`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := execute(t, append([]string{"carbon", "forecast-error", "--quiet"}, tc.args...)...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}
