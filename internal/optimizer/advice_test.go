package optimizer

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/meridian-dev/meridian/internal/money"
)

// queue predicts a latency-like target: load per replica times ten.
type queue struct{}

func (queue) PredictTarget(from Sample, replicas int) float64 {
	return from.Inputs[0] / float64(replicas) * 10
}

func testConfig() Config {
	c := Default([]string{"SUM_RR"}, Target{Name: "latency", Min: 40, Max: 100}, 1, 10)
	c.MaxUpscaleDelta, c.MaxDownscaleDelta = 3, 2
	c.AdviceMargin = 0
	return c
}

var t0 = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

func TestDecideProduction(t *testing.T) {
	prod := Status{Phase: PhaseProduction, Reliability: 90, Predictor: queue{}}
	for _, tc := range []struct {
		name   string
		config func(*Config)
		last   Sample
		prev   State
		now    time.Time
		want   int
		valid  bool
	}{
		// load 50 at 5 replicas: 1 -> 500, 2 -> 250, ..., 5 -> 100, 6 -> 83.
		{name: "fewest in band", last: Sample{Replicas: 5, Inputs: []float64{50}}, want: 5},
		// load 30: 3 -> 100 is the fewest in band but 3 is below 5-2.
		{name: "downscale delta", last: Sample{Replicas: 5, Inputs: []float64{30}}, want: 3},
		{name: "downscale delta binds", last: Sample{Replicas: 8, Inputs: []float64{30}}, want: 6},
		// load 200 at 4: in band needs 20 replicas; up to 7 allowed: closest.
		{name: "none in band: closest (upscale delta)", last: Sample{Replicas: 4, Inputs: []float64{200}}, want: 7},
		{name: "max replicas", last: Sample{Replicas: 9, Inputs: []float64{200}}, want: 10},
		// load 1: every count is below the band; the closest is the fewest.
		{name: "none in band: below, fewest", last: Sample{Replicas: 3, Inputs: []float64{1}}, want: 1},
		{name: "min replicas", config: func(c *Config) { c.MinReplicas = 2 }, last: Sample{Replicas: 3, Inputs: []float64{1}}, want: 2},
		{
			name: "frozen", config: func(c *Config) { c.FreezeInterval = time.Minute },
			last: Sample{Replicas: 5, Inputs: []float64{30}}, prev: State{Replicas: 5, ChangedAt: t0}, now: t0.Add(30 * time.Second), want: 5,
		},
		{
			name: "freeze over", config: func(c *Config) { c.FreezeInterval = time.Minute },
			last: Sample{Replicas: 5, Inputs: []float64{30}}, prev: State{Replicas: 5, ChangedAt: t0}, now: t0.Add(time.Minute), want: 3,
		},
		{
			name: "cluster capacity caps", config: func(c *Config) {
				c.Clusters = []ClusterPrice{{Name: "a", PricePerHour: usd("1"), MaxReplicas: 3}, {Name: "b", PricePerHour: usd("2"), MaxReplicas: 3}}
			},
			last: Sample{Replicas: 5, Inputs: []float64{200}}, want: 6,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			if tc.config != nil {
				tc.config(&cfg)
			}
			if err := cfg.Validate(); err != nil {
				t.Fatal(err)
			}
			now := tc.now
			if now.IsZero() {
				now = t0
			}
			a, _ := Decide(cfg, prod, tc.last, tc.prev, now)
			if diff := cmp.Diff(tc.want, a.Replicas); diff != "" {
				t.Errorf("replicas (-want +got):\n%s\nreason: %s", diff, a.Reason)
			}
			if !a.Valid || a.Phase != PhaseProduction || a.PredictedTarget == nil {
				t.Errorf("advice %+v: want valid, in production, with a prediction", a)
			}
		})
	}
}

func TestDecideCost(t *testing.T) {
	cfg := testConfig()
	cfg.Clusters = []ClusterPrice{{Name: "cloud", PricePerHour: usd("0.3")}, {Name: "onprem", PricePerHour: usd("0.1"), MaxReplicas: 2}}
	a, _ := Decide(cfg, Status{Phase: PhaseProduction, Predictor: queue{}}, Sample{Replicas: 5, Inputs: []float64{50}}, State{}, t0)
	want := []Share{{Cluster: "onprem", Replicas: 2, CostPerHour: usd("0.2")}, {Cluster: "cloud", Replicas: 3, CostPerHour: usd("0.9")}}
	if diff := cmp.Diff(want, a.Placement); diff != "" {
		t.Errorf("placement (-want +got):\n%s", diff)
	}
	if a.CostPerHour == nil {
		t.Fatal("no cost per hour")
	}
	if diff := cmp.Diff(usd("1.1"), *a.CostPerHour); diff != "" {
		t.Errorf("cost per hour (-want +got):\n%s", diff)
	}
}

func TestDecideTraining(t *testing.T) {
	for _, tc := range []struct {
		name     string
		rule     Rule
		target   float64
		replicas int
		valid    bool
		// lo and hi bound the advised count.
		lo, hi int
	}{
		{name: "seed rule: no advice", rule: RuleSeed, target: 70, replicas: 4, valid: false, lo: 4, hi: 4},
		{name: "above max: scale up", rule: RuleMeridian, target: 130, replicas: 4, valid: true, lo: 6, hi: 6},
		// The margin is 0.2 × 60 = 12 below 100.
		{name: "in the safety margin: up by one", rule: RuleMeridian, target: 95, replicas: 4, valid: true, lo: 5, hi: 5},
		{name: "below min: down", rule: RuleMeridian, target: 20, replicas: 4, valid: true, lo: 3, hi: 3},
		{name: "inside: explore by one at most", rule: RuleMeridian, target: 70, replicas: 4, valid: true, lo: 3, hi: 5},
		{name: "at max replicas", rule: RuleMeridian, target: 130, replicas: 10, valid: true, lo: 10, hi: 10},
		{name: "at min replicas", rule: RuleMeridian, target: 20, replicas: 1, valid: true, lo: 1, hi: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.Rule = tc.rule
			for samples := range 50 {
				st := Status{Phase: PhaseTraining, Samples: samples}
				a, _ := Decide(cfg, st, Sample{Replicas: tc.replicas, Inputs: []float64{1}, Target: tc.target}, State{}, t0)
				if a.Valid != tc.valid || a.Replicas < tc.lo || a.Replicas > tc.hi {
					t.Fatalf("sample %d: advice valid=%v replicas=%d (%s), want valid=%v, replicas in [%d, %d]", samples, a.Valid, a.Replicas, a.Reason, tc.valid, tc.lo, tc.hi)
				}
				again, _ := Decide(cfg, st, Sample{Replicas: tc.replicas, Inputs: []float64{1}, Target: tc.target}, State{}, t0)
				if diff := cmp.Diff(a, again); diff != "" {
					t.Fatalf("sample %d: two decisions differ (-first +second):\n%s", samples, diff)
				}
			}
		})
	}
}

// TestExploreVisitsBothDirections: exploration inside the band is not stuck
// at the current count.
func TestExploreVisitsBothDirections(t *testing.T) {
	cfg := testConfig()
	seen := map[int]bool{}
	for samples := range 30 {
		a, _ := Decide(cfg, Status{Phase: PhaseTraining, Samples: samples}, Sample{Replicas: 4, Inputs: []float64{1}, Target: 60}, State{}, t0)
		seen[a.Replicas] = true
	}
	if diff := cmp.Diff(map[int]bool{3: true, 4: true, 5: true}, seen); diff != "" {
		t.Errorf("counts explored (-want +got):\n%s", diff)
	}
}

func TestPlace(t *testing.T) {
	clusters := []ClusterPrice{{Name: "b", PricePerHour: usd("0.2"), MaxReplicas: 2}, {Name: "a", PricePerHour: usd("0.2"), MaxReplicas: 1}, {Name: "c", PricePerHour: usd("0.5"), MaxReplicas: 1}}
	for _, tc := range []struct {
		name     string
		n        int
		want     []Share
		unplaced int
	}{
		{name: "none", n: 0},
		{name: "tie broken by name", n: 1, want: []Share{{Cluster: "a", Replicas: 1, CostPerHour: usd("0.2")}}},
		{name: "spills to dearer", n: 4, want: []Share{{Cluster: "a", Replicas: 1, CostPerHour: usd("0.2")}, {Cluster: "b", Replicas: 2, CostPerHour: usd("0.4")}, {Cluster: "c", Replicas: 1, CostPerHour: usd("0.5")}}},
		{name: "beyond capacity", n: 6, want: []Share{{Cluster: "a", Replicas: 1, CostPerHour: usd("0.2")}, {Cluster: "b", Replicas: 2, CostPerHour: usd("0.4")}, {Cluster: "c", Replicas: 1, CostPerHour: usd("0.5")}}, unplaced: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _, unplaced := Place(clusters, tc.n)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("shares (-want +got):\n%s", diff)
			}
			if unplaced != tc.unplaced {
				t.Errorf("unplaced %d, want %d", unplaced, tc.unplaced)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*Config)
		field  string
	}{
		{name: "valid", change: func(*Config) {}},
		{name: "no inputs", change: func(c *Config) { c.Inputs = nil }, field: "inputs"},
		{name: "duplicate input", change: func(c *Config) { c.Inputs = []string{"a", "a"} }, field: "inputs[1]"},
		{name: "empty band", change: func(c *Config) { c.Target.Max = c.Target.Min }, field: "target.max"},
		{name: "max below min", change: func(c *Config) { c.MaxReplicas = 0 }, field: "maxReplicas"},
		{name: "zero delta", change: func(c *Config) { c.MaxUpscaleDelta = 0 }, field: "maxUpscaleDelta"},
		{name: "few samples", change: func(c *Config) { c.TrainingSamplesRequired = 3 }, field: "trainingSamplesRequired"},
		{name: "rule", change: func(c *Config) { c.Rule = "best" }, field: "rule"},
		{name: "negative price", change: func(c *Config) { c.Clusters = []ClusterPrice{{Name: "a", PricePerHour: usd("-1")}} }, field: "clusters[0].pricePerHour"},
		{name: "prices in two currencies", change: func(c *Config) {
			c.Clusters = []ClusterPrice{{Name: "a", PricePerHour: usd("0.04")}, {Name: "b", PricePerHour: money.New(resource.MustParse("0.1"), "EUR")}}
		}, field: "clusters[1].pricePerHour.currency"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := testConfig()
			tc.change(&c)
			got := ""
			if err := c.Validate(); err != nil {
				var fe *FieldError
				if !errors.As(err, &fe) {
					t.Fatalf("error %v is not a *FieldError", err)
				}
				got = fe.Field
			}
			if diff := cmp.Diff(tc.field, got); diff != "" {
				t.Errorf("field (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDecideDefaultAdviceMargin: with the default margin (30 % of the band's
// width per edge) production advice does not aim at a count predicted in the
// band's upper 30 %: band [40, 100], load 45: 5 -> 90 is in the band but in
// its top 30 % (above 82), 6 -> 75 is the advice.
func TestDecideDefaultAdviceMargin(t *testing.T) {
	cfg := testConfig()
	cfg.AdviceMargin = DefaultAdviceMargin
	prod := Status{Phase: PhaseProduction, Reliability: 90, Predictor: queue{}}
	a, _ := Decide(cfg, prod, Sample{Replicas: 5, Inputs: []float64{45}}, State{}, t0)
	if a.Replicas != 6 {
		t.Errorf("Decide with the default advice margin = %d replicas, want 6 (%s)", a.Replicas, a.Reason)
	}
}

// usd is amount US dollars.
func usd(amount string) money.Money { return money.New(resource.MustParse(amount), "USD") }
