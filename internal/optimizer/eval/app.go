package eval

import (
	"math"
	"math/rand/v2"
	"time"
)

// App is a web application whose replicas each serve one request at a time
// with exponentially distributed service times behind one load balancer
// queue: an M/M/c queue with c the replica count.
type App struct {
	// ServiceRate is the requests per second one replica completes.
	ServiceRate float64
	// Timeout caps the latency: requests of an overloaded application time
	// out at this many seconds.
	Timeout float64
	// Noise is the relative standard deviation of every measurement.
	Noise float64
}

// Inputs are the metric names App.Observe reports, as the seed's policy
// keeper names them (m_opt_input_AVG_RR, m_opt_input_SUM_RR,
// m_opt_input_CPU).
var Inputs = []string{"AVG_RR", "SUM_RR", "CPU"}

// erlangC is the probability that a request waits in an M/M/c queue with
// offered load a = λ/μ, by the Erlang B recursion, which is stable for any c.
func erlangC(c int, a float64) float64 {
	b := 1.0
	for k := 1; k <= c; k++ {
		b = a * b / (float64(k) + a*b)
	}
	rho := a / float64(c)
	return b / (1 - rho*(1-b))
}

// MeanLatency is the mean response time, in milliseconds, at arrival rate
// lambda (requests per second) on c replicas: W = C(c, a)/(cμ - λ) + 1/μ,
// capped at the timeout.
func (a App) MeanLatency(lambda float64, c int) float64 {
	mu := a.ServiceRate
	if lambda <= 0 {
		return 1000 / mu
	}
	if lambda >= float64(c)*mu {
		return 1000 * a.Timeout
	}
	w := erlangC(c, lambda/mu)/(float64(c)*mu-lambda) + 1/mu
	return 1000 * math.Min(w, a.Timeout)
}

// Utilization is the replicas' CPU utilization in percent.
func (a App) Utilization(lambda float64, c int) float64 {
	return 100 * math.Min(1, lambda/(float64(c)*a.ServiceRate))
}

// Observe is one interval's measurement at arrival rate lambda on c
// replicas: the inputs in the order of Inputs and the latency in ms, each
// with relative noise drawn from rng.
func (a App) Observe(rng *rand.Rand, lambda float64, c int) (inputs []float64, latency float64) {
	noisy := func(v float64) float64 { return v * (1 + a.Noise*rng.NormFloat64()) }
	l := noisy(lambda)
	return []float64{l / float64(c), l, noisy(a.Utilization(lambda, c))}, noisy(a.MeanLatency(lambda, c))
}

// Load is a diurnal arrival rate with bursts.
type Load struct {
	// Base is the mean arrival rate, requests per second.
	Base float64
	// Amplitude is the diurnal swing as a fraction of Base.
	Amplitude float64
	// PeakHour is the hour of the day of the diurnal peak.
	PeakHour float64
	// BurstsPerDay is the mean number of bursts a day (Poisson).
	BurstsPerDay float64
	// BurstFactor multiplies the rate during a burst.
	BurstFactor float64
	// BurstLength is how long a burst lasts.
	BurstLength time.Duration
}

// Series returns the arrival rate of each of n intervals of length step,
// the bursts drawn from seed.
func (l Load) Series(n int, step time.Duration, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 0x6c6f6164))
	burstLeft := 0
	burstSteps := max(1, int(l.BurstLength/step))
	p := l.BurstsPerDay * step.Hours() / 24
	out := make([]float64, n)
	for i := range out {
		hours := float64(i) * step.Hours()
		r := l.Base * (1 + l.Amplitude*math.Cos(2*math.Pi*(hours-l.PeakHour)/24))
		if burstLeft == 0 && rng.Float64() < p {
			burstLeft = burstSteps
		}
		if burstLeft > 0 {
			r *= l.BurstFactor
			burstLeft--
		}
		out[i] = r
	}
	return out
}
