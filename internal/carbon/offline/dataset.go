package offline

import (
	"compress/gzip"
	"embed"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

//go:embed data/hourly/*.csv.gz data/yearly.csv
var embedded embed.FS

// Paths inside the data file system.
const (
	hourlyDir  = "data/hourly"
	yearlyFile = "data/yearly.csv"
	hourLayout = "2006-01-02T15Z"
)

// A Series is one zone's recorded hours: Values[i] is the life-cycle
// intensity in gCO2eq/kWh of the hour First + i hours, NaN where the record
// has no value.
type Series struct {
	Zone      string
	First     time.Time
	Values    []float32
	Estimated []bool
}

// Last returns the start of the last recorded hour.
func (s *Series) Last() time.Time {
	return s.First.Add(time.Duration(len(s.Values)-1) * time.Hour)
}

// At returns the recorded intensity of the hour that holds t and whether
// it was estimated; ok is false outside the record or in a gap.
func (s *Series) At(t time.Time) (grams float64, estimated, ok bool) {
	i := int(t.UTC().Truncate(time.Hour).Sub(s.First) / time.Hour)
	if t.Before(s.First) || i >= len(s.Values) || math.IsNaN(float64(s.Values[i])) {
		return 0, false, false
	}
	return float64(s.Values[i]), s.Estimated[i], true
}

// A Dataset is the offline data: hourly series, read on first use, and
// yearly averages.
type Dataset struct {
	fsys   fs.FS
	files  map[string]string // zone -> hourly file
	yearly map[string]map[int]float64
	names  map[string]string

	mu     sync.Mutex
	series map[string]*Series
}

var (
	defaultOnce sync.Once
	defaultSet  *Dataset
	defaultErr  error
)

// Default returns the dataset embedded in the binary, loaded once.
func Default() (*Dataset, error) {
	defaultOnce.Do(func() { defaultSet, defaultErr = Load(embedded) })
	return defaultSet, defaultErr
}

// Load reads a dataset laid out as data/ is: data/hourly/<zone>.csv.gz and
// data/yearly.csv. Hourly files are listed now and parsed on first use.
func Load(fsys fs.FS) (*Dataset, error) {
	d := &Dataset{fsys: fsys, files: map[string]string{}, yearly: map[string]map[int]float64{},
		names: map[string]string{}, series: map[string]*Series{}}
	entries, err := fs.ReadDir(fsys, hourlyDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("offline: listing %s: %w", hourlyDir, err)
	}
	for _, e := range entries {
		if zone, ok := strings.CutSuffix(e.Name(), ".csv.gz"); ok {
			d.files[zone] = path.Join(hourlyDir, e.Name())
		}
	}
	if err := d.loadYearly(); err != nil {
		return nil, err
	}
	return d, nil
}

func (d *Dataset) loadYearly() error {
	f, err := d.fsys.Open(yearlyFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("offline: opening %s: %w", yearlyFile, err)
	}
	defer func() { _ = f.Close() }()
	r := csv.NewReader(f)
	header, err := r.Read()
	if err != nil {
		return fmt.Errorf("offline: reading %s: %w", yearlyFile, err)
	}
	if strings.Join(header, ",") != "zone,year,lifecycle,name" {
		return fmt.Errorf("offline: %s: header %q, want zone,year,lifecycle,name", yearlyFile, strings.Join(header, ","))
	}
	for line := 2; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("offline: reading %s: %w", yearlyFile, err)
		}
		year, err1 := strconv.Atoi(rec[1])
		g, err2 := strconv.ParseFloat(rec[2], 64)
		if err := errors.Join(err1, err2); err != nil {
			return fmt.Errorf("offline: %s line %d: %w", yearlyFile, line, err)
		}
		if d.yearly[rec[0]] == nil {
			d.yearly[rec[0]] = map[int]float64{}
		}
		d.yearly[rec[0]][year] = g
		d.names[rec[0]] = rec[3]
	}
}

// HourlyZones returns the zones with hourly data, sorted.
func (d *Dataset) HourlyZones() []string {
	out := make([]string, 0, len(d.files))
	for z := range d.files {
		out = append(out, z)
	}
	sort.Strings(out)
	return out
}

// YearlyZones returns the zones with yearly averages, sorted.
func (d *Dataset) YearlyZones() []string {
	out := make([]string, 0, len(d.yearly))
	for z := range d.yearly {
		out = append(out, z)
	}
	sort.Strings(out)
	return out
}

// ZoneName returns the zone's name as Electricity Maps gives it, if known.
func (d *Dataset) ZoneName(zone string) string { return d.names[zone] }

// Yearly returns the zone's average of the year, or of the nearest recorded
// year (the earlier on a tie), and the year used; ok is false for a zone
// without yearly averages.
func (d *Dataset) Yearly(zone string, year int) (grams float64, used int, ok bool) {
	ys := d.yearly[zone]
	if len(ys) == 0 {
		return 0, 0, false
	}
	best, bestDist := 0, math.MaxInt
	for y := range ys {
		dist := y - year
		if dist < 0 {
			dist = -dist
		}
		if dist < bestDist || (dist == bestDist && y < best) {
			best, bestDist = y, dist
		}
	}
	return ys[best], best, true
}

// Hourly returns the zone's recorded hours, parsing its file on first use;
// ok is false for a zone without hourly data.
func (d *Dataset) Hourly(zone string) (*Series, bool, error) {
	file, ok := d.files[zone]
	if !ok {
		return nil, false, nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if s, ok := d.series[zone]; ok {
		return s, true, nil
	}
	s, err := readSeries(d.fsys, zone, file)
	if err != nil {
		return nil, false, err
	}
	d.series[zone] = s
	return s, true, nil
}

// readSeries parses zone,time,lifecycle,direct,estimated rows in time order.
func readSeries(fsys fs.FS, zone, file string) (*Series, error) {
	f, err := fsys.Open(file)
	if err != nil {
		return nil, fmt.Errorf("offline: opening %s: %w", file, err)
	}
	defer func() { _ = f.Close() }()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("offline: %s: %w", file, err)
	}
	r := csv.NewReader(gz)
	r.ReuseRecord = true
	header, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("offline: reading %s: %w", file, err)
	}
	if strings.Join(header, ",") != "zone,time,lifecycle,direct,estimated" {
		return nil, fmt.Errorf("offline: %s: header %q, want zone,time,lifecycle,direct,estimated", file, strings.Join(header, ","))
	}
	s := &Series{Zone: zone}
	for line := 2; ; line++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("offline: reading %s: %w", file, err)
		}
		if rec[0] != zone {
			return nil, fmt.Errorf("offline: %s line %d: zone %q, want %q", file, line, rec[0], zone)
		}
		t, err := time.Parse(hourLayout, rec[1])
		if err != nil {
			return nil, fmt.Errorf("offline: %s line %d: %w", file, line, err)
		}
		g, err := strconv.ParseFloat(rec[2], 32)
		if err != nil {
			return nil, fmt.Errorf("offline: %s line %d: lifecycle: %w", file, line, err)
		}
		if s.First.IsZero() {
			s.First = t
		}
		i := int(t.Sub(s.First) / time.Hour)
		if i < len(s.Values) {
			return nil, fmt.Errorf("offline: %s line %d: %s is not after the previous hour", file, line, rec[1])
		}
		for len(s.Values) < i {
			s.Values = append(s.Values, float32(math.NaN()))
			s.Estimated = append(s.Estimated, false)
		}
		s.Values = append(s.Values, float32(g))
		s.Estimated = append(s.Estimated, rec[4] == "1")
	}
	if len(s.Values) == 0 {
		return nil, fmt.Errorf("offline: %s holds no hours", file)
	}
	return s, nil
}
