package learn

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Env is an environment the agent places pods in, one decision at a time.
type Env interface {
	// Observe returns the current decision: the node columns of every row
	// (rows×len(NodeColumns)), the pod columns and the action mask, valid
	// until the next Step. ok is false once the episode is over.
	Observe() (x []float64, rows int, pod []float64, mask []bool, ok bool)
	// Step places the pod on node a (a feasible row) and returns the
	// reward.
	Step(a int) float64
}

// TrainConfig are the hyper-parameters of Train; see docs/learn.md for why
// each has its value.
type TrainConfig struct {
	Hidden []int
	// Steps is the number of decisions to train on.
	Steps int
	// Gamma is the discount; LR Adam's learning rate.
	Gamma, LR float64
	Batch     int
	// Replay is the replay buffer's capacity in decisions; WarmUp the
	// decisions taken at random before learning starts.
	Replay, WarmUp int
	// TargetSync is how many gradient steps pass between copies of the
	// online network into the target network.
	TargetSync int
	// EpsilonStart decays linearly to EpsilonEnd over the first
	// EpsilonDecay fraction of Steps (ε-greedy exploration among feasible
	// nodes).
	EpsilonStart, EpsilonEnd, EpsilonDecay float64
	// Huber is the Huber loss's threshold.
	Huber float64
	Seed  uint64
}

// DefaultTrainConfig are the hyper-parameters `meridian learn train` uses.
func DefaultTrainConfig() TrainConfig {
	return TrainConfig{
		Hidden: DefaultHidden, Steps: 40000, Gamma: 0.95, LR: 1e-3, Batch: 32,
		Replay: 40000, WarmUp: 1000, TargetSync: 500,
		EpsilonStart: 1, EpsilonEnd: 0.02, EpsilonDecay: 0.5, Huber: 1, Seed: 1,
	}
}

// Validate reports the first hyper-parameter out of range.
func (c TrainConfig) Validate() error {
	switch {
	case c.Steps <= 0:
		return fmt.Errorf("steps %d: must be positive", c.Steps)
	case c.Gamma < 0 || c.Gamma >= 1:
		return fmt.Errorf("gamma %g: must be in [0, 1)", c.Gamma)
	case c.LR <= 0:
		return fmt.Errorf("learning rate %g: must be positive", c.LR)
	case c.Batch <= 0:
		return fmt.Errorf("batch %d: must be positive", c.Batch)
	case c.Replay < c.Batch+1:
		return fmt.Errorf("replay %d: must hold more than a batch (%d)", c.Replay, c.Batch)
	case c.TargetSync <= 0:
		return fmt.Errorf("target sync %d: must be positive", c.TargetSync)
	case c.EpsilonDecay <= 0 || c.EpsilonDecay > 1:
		return fmt.Errorf("epsilon decay %g: must be in (0, 1]", c.EpsilonDecay)
	case c.Huber <= 0:
		return fmt.Errorf("huber %g: must be positive", c.Huber)
	}
	return nil
}

// Progress is reported while training.
type Progress struct {
	Step, Episode int
	Epsilon       float64
	// MeanReward is the mean reward per decision since the last report,
	// Loss the mean Huber loss of the gradient steps since then.
	MeanReward, Loss float64
}

// replay is a ring of decisions; the next state of a decision is the one
// written after it, unless the decision ended its episode.
type replay struct {
	x      [][]float32
	pod    [][]float32
	mask   [][]bool
	rows   []int
	action []int
	reward []float64
	done   []bool
	next   int
	size   int
}

func newReplay(n int) *replay {
	return &replay{x: make([][]float32, n), pod: make([][]float32, n), mask: make([][]bool, n),
		rows: make([]int, n), action: make([]int, n), reward: make([]float64, n), done: make([]bool, n)}
}

func (r *replay) push(x []float64, rows int, pod []float64, mask []bool) int {
	i := r.next
	r.x[i] = toF32(r.x[i], x[:rows*len(NodeColumns)])
	r.pod[i] = toF32(r.pod[i], pod)
	r.mask[i] = append(r.mask[i][:0], mask[:rows]...)
	r.rows[i] = rows
	r.done[i] = false
	r.next = (r.next + 1) % len(r.x)
	r.size = min(r.size+1, len(r.x))
	return i
}

func toF32(dst []float32, src []float64) []float32 {
	dst = dst[:0]
	for _, v := range src {
		dst = append(dst, float32(v))
	}
	return dst
}

func toF64(dst []float64, src []float32) []float64 {
	dst = dst[:0]
	for _, v := range src {
		dst = append(dst, float64(v))
	}
	return dst
}

// sample returns a decision whose outcome is known: it ended its episode
// or its successor is in the buffer.
func (r *replay) sample(rng *rand.Rand) int {
	for {
		i := rng.IntN(r.size)
		last := (r.next - 1 + len(r.x)) % len(r.x)
		if i == last && !r.done[i] {
			continue
		}
		return i
	}
}

// Train trains m with double DQN on the environments newEnv returns, one
// per episode, calling report every reportEvery decisions. It is
// deterministic for a config, its seed and deterministic environments.
func Train(m *Model, cfg TrainConfig, newEnv func(episode int) (Env, error), reportEvery int, report func(Progress)) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	online := m.Net
	target := online.Clone()
	opt := NewAdam(len(online.Params), cfg.LR)
	rb := newReplay(cfg.Replay)
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x647171))
	grad := make([]float64, len(online.Params))
	var wsAct, wsS, wsNext, wsTarget Workspace
	var q, qNext, qTarget, dq, xs, xn, ps, pn []float64

	episode := 0
	env, err := newEnv(episode)
	if err != nil {
		return err
	}
	prev := -1
	var sumReward, sumLoss float64
	var nReward, nLoss, gradSteps int
	for step := 0; step < cfg.Steps; step++ {
		x, rows, pod, mask, ok := env.Observe()
		if !ok {
			if prev >= 0 {
				rb.done[prev] = true
			}
			prev = -1
			episode++
			if env, err = newEnv(episode); err != nil {
				return err
			}
			step--
			continue
		}
		i := rb.push(x, rows, pod, mask)
		frac := math.Min(1, float64(step)/(cfg.EpsilonDecay*float64(cfg.Steps)))
		eps := cfg.EpsilonStart + frac*(cfg.EpsilonEnd-cfg.EpsilonStart)
		var a int
		if step < cfg.WarmUp || rng.Float64() < eps {
			a = randomFeasible(rng, mask[:rows])
		} else {
			q = grow(q, rows)
			online.Forward(&wsAct, x, rows, pod, q)
			a = Best(q[:rows], mask[:rows])
		}
		r := env.Step(a)
		rb.action[i], rb.reward[i] = a, r
		prev = i
		sumReward += r
		nReward++

		if step >= cfg.WarmUp && rb.size > cfg.Batch {
			clear(grad)
			var loss float64
			for range cfg.Batch {
				j := rb.sample(rng)
				y := rb.reward[j]
				if !rb.done[j] {
					k := (j + 1) % len(rb.x)
					xn, pn = toF64(xn, rb.x[k]), toF64(pn, rb.pod[k])
					rn := rb.rows[k]
					qNext, qTarget = grow(qNext, rn), grow(qTarget, rn)
					online.Forward(&wsNext, xn, rn, pn, qNext)
					if b := Best(qNext[:rn], rb.mask[k]); b >= 0 {
						target.Forward(&wsTarget, xn, rn, pn, qTarget)
						y += cfg.Gamma * qTarget[b]
					}
				}
				xs, ps = toF64(xs, rb.x[j]), toF64(ps, rb.pod[j])
				rs := rb.rows[j]
				q, dq = grow(q, rs), grow(dq, rs)
				online.Forward(&wsS, xs, rs, ps, q)
				d := q[rb.action[j]] - y
				clear(dq[:rs])
				if math.Abs(d) <= cfg.Huber {
					loss += 0.5 * d * d
					dq[rb.action[j]] = d / float64(cfg.Batch)
				} else {
					loss += cfg.Huber * (math.Abs(d) - 0.5*cfg.Huber)
					dq[rb.action[j]] = math.Copysign(cfg.Huber, d) / float64(cfg.Batch)
				}
				online.Backward(&wsS, rs, ps, dq, grad)
			}
			opt.Step(online.Params, grad)
			gradSteps++
			sumLoss += loss / float64(cfg.Batch)
			nLoss++
			if gradSteps%cfg.TargetSync == 0 {
				target.CopyFrom(online)
			}
		}
		if report != nil && reportEvery > 0 && (step+1)%reportEvery == 0 {
			p := Progress{Step: step + 1, Episode: episode, Epsilon: eps, MeanReward: sumReward / float64(max(nReward, 1))}
			if nLoss > 0 {
				p.Loss = sumLoss / float64(nLoss)
			}
			report(p)
			sumReward, sumLoss, nReward, nLoss = 0, 0, 0, 0
		}
	}
	return nil
}

func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

func randomFeasible(rng *rand.Rand, mask []bool) int {
	n := 0
	for _, ok := range mask {
		if ok {
			n++
		}
	}
	k := rng.IntN(n)
	for i, ok := range mask {
		if ok {
			if k == 0 {
				return i
			}
			k--
		}
	}
	return -1
}
