// Command carbondata regenerates Meridian's offline carbon-intensity data
// (internal/carbon/offline/data) from the public repositories it comes from,
// read at pinned commits with git, so that the result is the same every time:
//
//   - hourly intensities per grid zone: the Electricity Maps data-portal files
//     kept in umassos/decarbonization-potential (downloaded_carbon_data/) and
//     HewlettPackard/sustain-cluster (data/carbon_intensity/); where both hold
//     a zone and year, sustain-cluster's copy is taken (it covers more years);
//   - yearly averages for every Electricity Maps zone: the JSON files of
//     thegreenwebfoundation/co2.js (data/output/electricity-maps/).
//
// Each argument is a git directory (a clone's .git or a bare mirror):
//
//	go run hack/carbondata/main.go \
//	  -umass  /path/to/decarbonization-potential/.git \
//	  -hpe    /path/to/sustain-cluster/.git \
//	  -co2js  /path/to/co2.js/.git
//
// It writes hourly/<zone>.csv.gz (zone,time,lifecycle,direct,estimated),
// yearly.csv (zone,year,lifecycle,name) and the generated tables of
// SOURCE.md between its markers.
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

const (
	outDir      = "internal/carbon/offline/data"
	umassCommit = "3493a63016bd2aaa71cae1f33809576786b331d4"
	hpeCommit   = "293fbd152dae52a4b77fee50362b0b61641f16d1"
	co2jsCommit = "27cbe8328aeaad0824fb07b3640dc45b72228c7b"
)

func main() {
	umass := flag.String("umass", "", "git directory of umassos/decarbonization-potential")
	hpe := flag.String("hpe", "", "git directory of HewlettPackard/sustain-cluster")
	co2js := flag.String("co2js", "", "git directory of thegreenwebfoundation/co2.js")
	flag.Parse()
	if *umass == "" || *hpe == "" || *co2js == "" {
		fmt.Fprintln(os.Stderr, "carbondata: -umass, -hpe and -co2js are all required (git directories)")
		os.Exit(2)
	}
	if err := run(*umass, *hpe, *co2js); err != nil {
		fmt.Fprintln(os.Stderr, "carbondata:", err)
		os.Exit(1)
	}
}

// zoneYear is one data-portal file: a zone's hours in one year.
type zoneYear struct {
	zone, year, repo, commit, path string
	rows                           [][]string
	skipped                        int
}

var fileName = regexp.MustCompile(`([A-Za-z-]+)_(\d{4})_hourly\.csv$`)

func run(umass, hpe, co2js string) error {
	files := map[string]*zoneYear{} // zone/year
	order := []struct{ dir, repo, commit, under string }{
		{umass, "umassos/decarbonization-potential", umassCommit, "downloaded_carbon_data/"},
		{hpe, "HewlettPackard/sustain-cluster", hpeCommit, "data/carbon_intensity/"},
	}
	for _, src := range order {
		paths, err := lsTree(src.dir, src.commit, src.under)
		if err != nil {
			return err
		}
		for _, p := range paths {
			if fileName.FindStringSubmatch(p) == nil {
				continue
			}
			zy, err := readPortalFile(src.dir, src.repo, src.commit, p)
			if err != nil {
				return err
			}
			files[zy.zone+"/"+zy.year] = zy // later sources win
		}
	}
	byZone := map[string][]*zoneYear{}
	for _, zy := range files {
		byZone[zy.zone] = append(byZone[zy.zone], zy)
	}
	if err := os.RemoveAll(filepath.Join(outDir, "hourly")); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(outDir, "hourly"), 0o755); err != nil {
		return err
	}
	var table strings.Builder
	table.WriteString("| zone | years | hours | skipped (no value) | repository | path |\n| --- | --- | --- | --- | --- | --- |\n")
	zones := make([]string, 0, len(byZone))
	for z := range byZone {
		zones = append(zones, z)
	}
	sort.Strings(zones)
	for _, z := range zones {
		yrs := byZone[z]
		sort.Slice(yrs, func(i, j int) bool { return yrs[i].year < yrs[j].year })
		if err := writeZone(z, yrs); err != nil {
			return err
		}
		for _, zy := range yrs {
			fmt.Fprintf(&table, "| %s | %s | %d | %d | %s@%s | `%s` |\n", z, zy.year, len(zy.rows), zy.skipped, zy.repo, zy.commit[:12], zy.path)
		}
	}
	yearly, err := writeYearly(co2js)
	if err != nil {
		return err
	}
	return writeSourceTables(table.String(), yearly)
}

func git(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"--git-dir", dir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s in %s: %w: %s", strings.Join(args, " "), dir, err, stderr.String())
	}
	return out, nil
}

func lsTree(dir, commit, under string) ([]string, error) {
	out, err := git(dir, "ls-tree", "-r", "--name-only", commit, under)
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(out)), nil
}

// readPortalFile reads one Electricity Maps data-portal CSV: Datetime (UTC),
// Country, Zone Name, Zone Id, Carbon Intensity gCO₂eq/kWh (direct),
// Carbon Intensity gCO₂eq/kWh (LCA), ..., Data Estimated, ...
func readPortalFile(dir, repo, commit, path string) (*zoneYear, error) {
	raw, err := git(dir, "show", commit+":"+path)
	if err != nil {
		return nil, err
	}
	if bytes.HasPrefix(raw, []byte("version https://git-lfs")) {
		return nil, fmt.Errorf("%s:%s is a Git LFS pointer, not data", repo, path)
	}
	recs, err := csv.NewReader(bytes.NewReader(raw)).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s:%s: %w", repo, path, err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	need := []string{"Datetime (UTC)", "Zone Id", "Carbon Intensity gCO₂eq/kWh (direct)", "Carbon Intensity gCO₂eq/kWh (LCA)", "Data Estimated"}
	for _, h := range need {
		if _, ok := col[h]; !ok {
			return nil, fmt.Errorf("%s:%s: no column %q", repo, path, h)
		}
	}
	m := fileName.FindStringSubmatch(path)
	zy := &zoneYear{year: m[2], repo: repo, commit: commit, path: path}
	for _, r := range recs[1:] {
		t, err := time.Parse("2006-01-02 15:04:05", r[col["Datetime (UTC)"]])
		if err != nil {
			return nil, fmt.Errorf("%s:%s: %w", repo, path, err)
		}
		zone := r[col["Zone Id"]]
		if zy.zone == "" {
			zy.zone = zone
		} else if zy.zone != zone {
			return nil, fmt.Errorf("%s:%s holds zones %s and %s", repo, path, zy.zone, zone)
		}
		lca, direct := r[col["Carbon Intensity gCO₂eq/kWh (LCA)"]], r[col["Carbon Intensity gCO₂eq/kWh (direct)"]]
		if _, err := strconv.ParseFloat(lca, 64); err != nil {
			zy.skipped++
			continue
		}
		if _, err := strconv.ParseFloat(direct, 64); err != nil {
			direct = ""
		}
		est := "0"
		if strings.EqualFold(r[col["Data Estimated"]], "true") {
			est = "1"
		}
		zy.rows = append(zy.rows, []string{zone, t.UTC().Format("2006-01-02T15Z"), lca, direct, est})
	}
	return zy, nil
}

func writeZone(zone string, years []*zoneYear) error {
	var buf bytes.Buffer
	gz, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return err
	}
	gz.ModTime = time.Time{}
	w := csv.NewWriter(gz)
	if err := w.Write([]string{"zone", "time", "lifecycle", "direct", "estimated"}); err != nil {
		return err
	}
	for _, zy := range years {
		if err := w.WriteAll(zy.rows); err != nil {
			return err
		}
	}
	if err := gz.Close(); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(outDir, "hourly", zone+".csv.gz"), buf.Bytes(), 0o644)
}

// writeYearly converts co2.js's yearly_<year>.json ({zone: {zone: {zoneName},
// carbonIntensity: {value, unit}}}) into one CSV and returns the years read.
func writeYearly(dir string) (string, error) {
	paths, err := lsTree(dir, co2jsCommit, "data/output/electricity-maps/")
	if err != nil {
		return "", err
	}
	var rows [][]string
	var years []string
	for _, p := range paths {
		m := regexp.MustCompile(`yearly_(\d{4})\.json$`).FindStringSubmatch(p)
		if m == nil {
			continue
		}
		raw, err := git(dir, "show", co2jsCommit+":"+p)
		if err != nil {
			return "", err
		}
		var doc map[string]struct {
			Zone struct {
				ZoneName string `json:"zoneName"`
			} `json:"zone"`
			CarbonIntensity struct {
				Value *float64 `json:"value"`
				Unit  string   `json:"unit"`
			} `json:"carbonIntensity"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			return "", fmt.Errorf("co2.js %s: %w", p, err)
		}
		years = append(years, m[1])
		for zone, d := range doc {
			if d.CarbonIntensity.Value == nil {
				continue
			}
			if d.CarbonIntensity.Unit != "gCO2eq/kWh" {
				return "", fmt.Errorf("co2.js %s: zone %s has unit %q, want gCO2eq/kWh", p, zone, d.CarbonIntensity.Unit)
			}
			rows = append(rows, []string{zone, m[1], strconv.FormatFloat(*d.CarbonIntensity.Value, 'f', -1, 64), d.Zone.ZoneName})
		}
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i][0] != rows[j][0] {
			return rows[i][0] < rows[j][0]
		}
		return rows[i][1] < rows[j][1]
	})
	f, err := os.Create(filepath.Join(outDir, "yearly.csv"))
	if err != nil {
		return "", err
	}
	w := csv.NewWriter(f)
	if err := w.Write([]string{"zone", "year", "lifecycle", "name"}); err != nil {
		return "", err
	}
	if err := w.WriteAll(rows); err != nil {
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	zones := map[string]bool{}
	for _, r := range rows {
		zones[r[0]] = true
	}
	return fmt.Sprintf("%d zones, years %s, %d rows, from thegreenwebfoundation/co2.js@%s `data/output/electricity-maps/yearly_<year>.json`\n",
		len(zones), strings.Join(years, ", "), len(rows), co2jsCommit[:12]), nil
}

// writeSourceTables replaces the generated part of SOURCE.md.
func writeSourceTables(hourly, yearly string) error {
	path := filepath.Join(outDir, "SOURCE.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	const begin, end = "<!-- BEGIN GENERATED -->\n", "<!-- END GENERATED -->"
	i, j := bytes.Index(doc, []byte(begin)), bytes.Index(doc, []byte(end))
	if i < 0 || j < i {
		return fmt.Errorf("%s has no %q ... %q markers", path, strings.TrimSpace(begin), end)
	}
	gen := "### Hourly files\n\n" + hourly + "\n### Yearly averages\n\n" + yearly
	out := append(append(append([]byte{}, doc[:i+len(begin)]...), gen...), doc[j:]...)
	return os.WriteFile(path, out, 0o644)
}
