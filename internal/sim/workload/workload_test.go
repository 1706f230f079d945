package workload

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/meridian-dev/meridian/internal/placement"
)

func generator() Generator {
	return Generator{
		Tasks:     500,
		Window:    time.Hour,
		CPUMilli:  Dist{Kind: LogNormal, Median: 250, Sigma: 0.9, Min: 50, Max: 2000},
		MemoryMiB: Dist{Kind: LogNormal, Median: 256, Sigma: 1, Min: 32, Max: 3072},
		DurationMinutes: Dist{Kind: Mixture, Components: []Component{
			{Weight: 0.8, Dist: Dist{Kind: LogNormal, Median: 0.5, Sigma: 1.3, Max: 60}},
			{Weight: 0.2, Dist: Dist{Kind: Pareto, Scale: 60, Alpha: 1.5}},
		}},
		Locations: []LocationShare{{Cluster: "a", Tasks: 100}, {Cluster: "b", Tasks: 400}},
	}
}

func TestGenerate(t *testing.T) {
	g := generator()
	tasks, err := g.Generate(7)
	if err != nil {
		t.Fatalf("Generate error: %v", err)
	}
	again, _ := g.Generate(7)
	if diff := cmp.Diff(tasks, again); diff != "" {
		t.Errorf("same seed, different tasks (-first +second):\n%s", diff)
	}
	other, _ := g.Generate(8)
	if cmp.Equal(tasks, other) {
		t.Errorf("seeds 7 and 8 gave the same tasks")
	}
	type stats struct {
		PerLocation        map[string]int
		Sorted, InWindow   bool
		InBounds           bool
		ServicesAreLong    bool
		SomeOfEachKind     bool
		MedianCPUNear250   bool
		HeavyTailDurations bool
	}
	got := stats{PerLocation: map[string]int{}, Sorted: true, InWindow: true, InBounds: true, ServicesAreLong: true}
	var cpus []int64
	kinds := map[placement.WorkloadKind]int{}
	var longest time.Duration
	for i, task := range tasks {
		got.PerLocation[task.Location]++
		got.Sorted = got.Sorted && (i == 0 || tasks[i-1].Submit <= task.Submit)
		got.InWindow = got.InWindow && task.Submit < time.Hour
		got.InBounds = got.InBounds && task.MilliCPU >= 50 && task.MilliCPU <= 2000 && task.Memory <= 3072<<20
		got.ServicesAreLong = got.ServicesAreLong && (task.Kind == placement.KindDeployment) == (task.Duration > time.Hour)
		cpus = append(cpus, task.MilliCPU)
		kinds[task.Kind]++
		longest = max(longest, task.Duration)
	}
	slices.Sort(cpus)
	median := cpus[len(cpus)/2]
	got.MedianCPUNear250 = median > 200 && median < 300
	got.SomeOfEachKind = kinds[placement.KindJob] > 300 && kinds[placement.KindDeployment] > 60
	got.HeavyTailDurations = longest > 3*time.Hour
	want := stats{PerLocation: map[string]int{"a": 100, "b": 400}, Sorted: true, InWindow: true, InBounds: true,
		ServicesAreLong: true, SomeOfEachKind: true, MedianCPUNear250: true, HeavyTailDurations: true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("workload statistics (-want +got):\n%s", diff)
	}
}

func TestLocationWeights(t *testing.T) {
	g := generator()
	g.Locations = []LocationShare{{Cluster: "a", Tasks: 1}, {Cluster: "b", Tasks: 3}}
	tasks, err := g.Generate(1)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, task := range tasks {
		if task.Location == "b" {
			n++
		}
	}
	if n < 340 || n > 410 {
		t.Errorf("%d of 500 tasks prefer b, want about 375 (weights 1:3)", n)
	}
}

func TestDistValidate(t *testing.T) {
	tests := []struct {
		name  string
		dist  Dist
		field string
		err   string
	}{
		{"valid", Dist{Kind: LogNormal, Median: 1, Sigma: 1}, "", ""},
		{"unknown kind", Dist{Kind: "normal"}, "kind", `"normal": must be one of constant, uniform, exponential, lognormal, pareto, mixture`},
		{"pareto alpha", Dist{Kind: Pareto, Scale: 1}, "alpha", "0: must be positive"},
		{"nested", Dist{Kind: Mixture, Components: []Component{{Weight: 1, Dist: Dist{Kind: Exponential}}}}, "components[0].dist.mean", "0: must be positive"},
		{"bounds", Dist{Kind: Constant, Value: 1, Min: 5, Max: 2}, "max", "min 5 and max 2: need 0 <= min <= max"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			field, err := tc.dist.Validate()
			got := ""
			if err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff([]string{tc.field, tc.err}, []string{field, got}); diff != "" {
				t.Errorf("Validate (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDistSample(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	tests := []struct {
		name     string
		dist     Dist
		min, max float64
	}{
		{"constant", Dist{Kind: Constant, Value: 3}, 3, 3},
		{"uniform", Dist{Kind: Uniform, Min: 2, Max: 4}, 2, 4},
		{"truncated lognormal", Dist{Kind: LogNormal, Median: 100, Sigma: 3, Min: 50, Max: 200}, 50, 200},
		{"pareto", Dist{Kind: Pareto, Scale: 60, Alpha: 1.5}, 60, 1e12},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for range 1000 {
				if v := tc.dist.Sample(r); v < tc.min || v > tc.max {
					t.Fatalf("Sample() = %g, want in [%g, %g]", v, tc.min, tc.max)
				}
			}
		})
	}
}

func TestTraceRoundTrip(t *testing.T) {
	tasks, err := generator().Generate(3)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteTrace(&buf, tasks); err != nil {
		t.Fatalf("WriteTrace error: %v", err)
	}
	got, err := ReadTrace(&buf, "t.csv", time.Hour, nil)
	if err != nil {
		t.Fatalf("ReadTrace error: %v", err)
	}
	if diff := cmp.Diff(tasks, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

func TestReadTraceErrors(t *testing.T) {
	header := strings.Join(TraceColumns, ",") + "\n"
	tests := []struct {
		name, csv, want string
	}{
		{"header", "name,submit\n", `t.csv:1: column header: got "name,submit", want "name,submitSeconds,durationSeconds,kind,cpuMilli,memoryMiB,replicas,location"`},
		{"kind", header + "a,0,60,Pod,100,64,1,x\n", `t.csv:2: column kind: "Pod": must be Deployment, Job or empty`},
		{"cpu", header + "a,0,60,Job,100,64,1,x\nb,0,60,Job,-1,64,1,x\n", `t.csv:3: column cpuMilli: -1: must be at least 1`},
		{"location", header + "a,0,60,Job,100,64,1,nowhere\n", `t.csv:2: column location: "nowhere" is not a cluster of the scenario`},
		{"columns", header + "a,0,60\n", `t.csv:2: column *: 3 columns, want 8`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadTrace(strings.NewReader(tc.csv), "t.csv", time.Hour, func(s string) bool { return s == "x" })
			got := ""
			if err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ReadTrace error (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	l := Load{
		Route:           Route{{At: 0, Cluster: "a"}, {At: 10 * time.Minute, Cluster: "b"}},
		Curve:           Curve{{At: 0, Value: 10}, {At: 10 * time.Minute, Value: 30}},
		MilliCPUPerUnit: 100,
	}
	type point struct {
		Cluster         string
		Level, MilliCPU float64
	}
	tests := []struct {
		at   time.Duration
		want point
	}{
		{0, point{"a", 10, 1000}},
		{5 * time.Minute, point{"a", 20, 2000}},
		{10 * time.Minute, point{"b", 30, 3000}},
		{time.Hour, point{"b", 30, 3000}},
	}
	for _, tc := range tests {
		t.Run(tc.at.String(), func(t *testing.T) {
			c, level, milli := l.At(tc.at)
			if diff := cmp.Diff(tc.want, point{c, level, milli}); diff != "" {
				t.Errorf("At (-want +got):\n%s", diff)
			}
		})
	}
}
