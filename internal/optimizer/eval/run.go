package eval

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/meridian-dev/meridian/internal/autoscale"
	"github.com/meridian-dev/meridian/internal/money"
	"github.com/meridian-dev/meridian/internal/optimizer"
)

// Scenario is one evaluation run.
type Scenario struct {
	App   App
	Load  Load
	Step  time.Duration
	Steps int
	// MinReplicas and MaxReplicas bound every policy.
	MinReplicas, MaxReplicas int
	// Band is the latency band, in ms.
	Band     optimizer.Target
	Clusters []optimizer.ClusterPrice
	// HPATarget is the HPA's CPU utilization target, percent.
	HPATarget float64
	// SeedSweepEvery is how many intervals the seed's hand-driven training
	// sweep holds each count.
	SeedSweepEvery int
	Seed           uint64
}

// DefaultScenario is two days at one-minute intervals of an application of
// 10 requests/s per replica, a load of 60 requests/s swinging ±60 % over the
// day with four 20-minute bursts of ×1.6 a day on average, and a latency
// band of [105, 160] ms, on an on-premises cluster (8 replicas at 0.04/h)
// that bursts into a cloud (0.10/h).
func DefaultScenario() Scenario {
	return Scenario{
		App:         App{ServiceRate: 10, Timeout: 2, Noise: 0.03},
		Load:        Load{Base: 60, Amplitude: 0.6, PeakHour: 14, BurstsPerDay: 4, BurstFactor: 1.6, BurstLength: 20 * time.Minute},
		Step:        time.Minute,
		Steps:       2 * 24 * 60,
		MinReplicas: 1, MaxReplicas: 24,
		Band:           optimizer.Target{Name: "AVG_LAT", Min: 105, Max: 160},
		Clusters:       []optimizer.ClusterPrice{{Name: "onprem", PricePerHour: perHour("0.04"), MaxReplicas: 8}, {Name: "cloud", PricePerHour: perHour("0.10")}},
		HPATarget:      70,
		SeedSweepEvery: 5,
		Seed:           1,
	}
}

// perHour is a replica-hour's price in the scenario's currency, the US
// dollar.
func perHour(amount string) money.Money { return money.New(resource.MustParse(amount), "USD") }

// PolicyResult is one policy's outcome.
type PolicyResult struct {
	Name         string  `json:"name"`
	ReplicaHours float64 `json:"replica_hours"`
	Cost         float64 `json:"cost"`
	// InBand is the fraction of intervals whose latency was in the band;
	// AtMostMax the fraction at or below its maximum.
	InBand    float64 `json:"in_band"`
	AtMostMax float64 `json:"at_most_max"`
	// SamplesToProduction is the samples before the optimizer entered
	// production, -1 if it never did, 0 for policies that do not learn.
	SamplesToProduction int       `json:"samples_to_production"`
	Replicas            []float64 `json:"-"`
	Latency             []float64 `json:"-"`
}

// Result is a run's outcome.
type Result struct {
	Scenario Scenario       `json:"-"`
	Load     []float64      `json:"-"`
	Policies []PolicyResult `json:"policies"`
}

// policy decides the replicas of the next interval from this interval's
// observation.
type policy interface {
	next(i int, now time.Time, c int, inputs []float64, latency float64) (int, error)
	production() int
}

// Run runs every policy on the same load and noise.
func Run(sc Scenario) (*Result, error) {
	load := sc.Load.Series(sc.Steps, sc.Step, sc.Seed)
	res := &Result{Scenario: sc, Load: load}
	start := time.Date(2025, 1, 6, 0, 0, 0, 0, time.UTC)
	oracle := make([]int, len(load))
	for i, l := range load {
		oracle[i] = sc.MaxReplicas
		for c := sc.MinReplicas; c <= sc.MaxReplicas; c++ {
			if sc.App.MeanLatency(l, c) <= sc.Band.Max {
				oracle[i] = c
				break
			}
		}
	}
	newOpt := func(rule optimizer.Rule) (*optimizer.Optimizer, error) {
		cfg := optimizer.Default(Inputs, sc.Band, sc.MinReplicas, sc.MaxReplicas)
		cfg.Rule, cfg.Seed, cfg.Clusters = rule, sc.Seed, sc.Clusters
		cfg.KnowledgeBaseSize = 600
		if rule == optimizer.RuleSeed {
			cfg.TrainingSamplesRequired, cfg.AdviceMargin = optimizer.DefaultSeedTrainingSamples, 0
		}
		return optimizer.New(cfg, nil)
	}
	seedOpt, err := newOpt(optimizer.RuleSeed)
	if err != nil {
		return nil, err
	}
	merOpt, err := newOpt(optimizer.RuleMeridian)
	if err != nil {
		return nil, err
	}
	hpa := autoscale.New(autoscale.Spec{MinReplicas: int32(sc.MinReplicas), MaxReplicas: int32(sc.MaxReplicas), TargetUtilization: sc.HPATarget, CoolDown: 5 * time.Minute})
	if err := hpa.Spec.Validate(); err != nil {
		return nil, fmt.Errorf("invalid HPA: %w", err)
	}
	policies := []struct {
		name string
		p    policy
	}{
		{"seed (300 samples, in-sample reliability)", &learner{opt: seedOpt, sweep: sc.SeedSweepEvery, min: sc.MinReplicas, max: sc.MaxReplicas}},
		{"meridian", &learner{opt: merOpt}},
		{fmt.Sprintf("cpu hpa (%g %%)", sc.HPATarget), hpaPolicy{a: hpa}},
		{"oracle (hindsight)", oraclePolicy(oracle)},
	}
	for _, pl := range policies {
		rng := rand.New(rand.NewPCG(sc.Seed, 0x6e6f697365))
		r := PolicyResult{Name: pl.name, Replicas: make([]float64, len(load)), Latency: make([]float64, len(load))}
		c := max(sc.MinReplicas, oracle[0])
		if _, ok := pl.p.(oraclePolicy); ok {
			c = oracle[0]
		}
		in, atMost := 0, 0
		var cost money.Money
		step := big.NewRat(int64(sc.Step), int64(time.Hour))
		for i, l := range load {
			now := start.Add(time.Duration(i) * sc.Step)
			lat := sc.App.MeanLatency(l, c)
			inputs, observed := sc.App.Observe(rng, l, c)
			r.Replicas[i], r.Latency[i] = float64(c), lat
			hours := sc.Step.Hours()
			r.ReplicaHours += float64(c) * hours
			_, perHour, _ := optimizer.Place(sc.Clusters, c)
			cost, _ = cost.Add(perHour.MulRat(step))
			r.Cost = cost.Float64()
			if lat >= sc.Band.Min && lat <= sc.Band.Max {
				in++
			}
			if lat <= sc.Band.Max {
				atMost++
			}
			next, err := pl.p.next(i, now, c, inputs, observed)
			if err != nil {
				return nil, fmt.Errorf("policy %s at interval %d: %w", pl.name, i, err)
			}
			c = next
		}
		r.InBand = float64(in) / float64(len(load))
		r.AtMostMax = float64(atMost) / float64(len(load))
		r.SamplesToProduction = pl.p.production()
		res.Policies = append(res.Policies, r)
	}
	return res, nil
}

// learner is the optimizer observed and asked every interval; with sweep
// set it scales min -> max -> min by one every sweep intervals while in
// training, as the seed's evaluation did by hand.
type learner struct {
	opt        *optimizer.Optimizer
	sweep      int
	min, max   int
	dir        int
	producedAt int
}

func (l *learner) next(i int, now time.Time, c int, inputs []float64, latency float64) (int, error) {
	if err := l.opt.Observe(optimizer.Sample{Time: now, Replicas: c, Inputs: inputs, Target: latency}); err != nil {
		return 0, err
	}
	a, err := l.opt.Advise(now)
	if err != nil {
		return 0, err
	}
	if a.Phase == optimizer.PhaseProduction && l.producedAt == 0 {
		l.producedAt = l.opt.Seen()
	}
	if a.Valid {
		return a.Replicas, nil
	}
	if l.sweep > 0 && (i+1)%l.sweep == 0 {
		if l.dir == 0 {
			l.dir = 1
		}
		if c+l.dir > l.max || c+l.dir < l.min {
			l.dir = -l.dir
		}
		return c + l.dir, nil
	}
	return c, nil
}

func (l *learner) production() int {
	if l.producedAt == 0 {
		return -1
	}
	return l.producedAt
}

type hpaPolicy struct{ a *autoscale.Autoscaler }

func (h hpaPolicy) next(_ int, now time.Time, c int, inputs []float64, _ float64) (int, error) {
	r := h.a.Recommend(now, autoscale.Observation{Current: int32(c), Ready: int32(c), Utilization: inputs[2]})
	return int(r.Desired), nil
}

func (hpaPolicy) production() int { return 0 }

type oraclePolicy []int

func (o oraclePolicy) next(i int, _ time.Time, _ int, _ []float64, _ float64) (int, error) {
	return o[min(i+1, len(o)-1)], nil
}

func (oraclePolicy) production() int { return 0 }

// finite reports whether v is a finite number.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
