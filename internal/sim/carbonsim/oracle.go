package carbonsim

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"

	"github.com/meridian-dev/meridian/internal/carbon"
)

// Defaults of an Oracle.
const (
	// DefaultIterations bounds the oracle's subgradient iterations.
	DefaultIterations = 400
	// DefaultSimplexLimit is the largest LP, in variables, the oracle also
	// solves with gonum's simplex (dense, so only small instances).
	DefaultSimplexLimit = 400
)

// Oracle knows the actual intensities of every hour in advance and solves
// the scheduling problem of the whole trace at once, under the constraints
// the other policies obey: each job runs once, uninterrupted, in one of its
// candidates, from its arrival or a whole hour after it (the starts the
// product's scheduler considers), ending by its deadline, and in every
// region and hour the CPU of the jobs that touch the hour stays within the
// declared capacity (the Ledger's rule). It minimises the total actual
// emissions.
//
// That is an integer program (a job's hours cannot be split). The oracle
// solves its LP relaxation's Lagrangian dual: prices on every region and
// hour, raised by projected subgradient steps (Polyak's step towards the
// best schedule found) where the jobs' cheapest options overfill the
// region, so that each job then chooses on its own. At any prices the dual
// value is a lower bound on the emissions of every feasible schedule,
// integer or fractional; its best is the LP relaxation's optimum. Small
// problems (SimplexLimit variables) are also solved exactly by gonum's
// simplex, and the better of the two bounds is kept. From the prices of each
// iteration a repair pass builds a feasible integer schedule (jobs with the
// least slack first, each taking its cheapest option with room); the best,
// improved by moving single jobs to cheaper options with room, is the
// oracle's schedule. Bound is then below the true optimum and Grams above
// it: savings measured against Bound are an upper bound on what any schedule
// could save, so a policy's fraction of them is conservative.
type Oracle struct {
	// Iterations bounds the subgradient iterations; DefaultIterations when
	// zero.
	Iterations int
	// SimplexLimit is the largest LP solved with the simplex too;
	// DefaultSimplexLimit when zero, negative never.
	SimplexLimit int
}

// OracleResult is the oracle's answer.
type OracleResult struct {
	// Placements is the best feasible schedule found, indexed like the
	// jobs; a job with no room anywhere is Unplaced.
	Placements []Placement
	// Grams is the schedule's actual emissions.
	Grams float64
	// Bound is the lower bound on the emissions of any schedule that meets
	// every deadline within capacity.
	Bound float64
	// Method says how Bound was obtained: "lagrangian" or "simplex".
	Method string
	// Iterations is how many subgradient iterations ran.
	Iterations int
}

// Gap returns the schedule's emissions over the bound, relative to the
// bound: zero when the schedule is proven optimal.
func (r OracleResult) Gap() float64 {
	if r.Bound <= 0 {
		return 0
	}
	return (r.Grams - r.Bound) / r.Bound
}

// oracleOption is one candidate and start of a job.
type oracleOption struct {
	cand        int
	region      int
	start       time.Time
	first, last int // hour indexes
	grams       float64
}

// problem is the oracle's instance.
type problem struct {
	s        *Scenario
	options  [][]oracleOption
	capacity []float64 // per region; +Inf when undeclared
	hours    int
	base     time.Time
	regions  map[string]int
}

func newProblem(s *Scenario) *problem {
	p := &problem{s: s, base: carbon.Hour(s.From), regions: map[string]int{}}
	for i, r := range s.Regions {
		p.regions[r.Key] = i
		c, ok := s.Capacity.At(r.Key, s.From)
		if !ok {
			p.capacity = append(p.capacity, math.Inf(1))
		} else {
			p.capacity = append(p.capacity, float64(c))
		}
	}
	p.options = make([][]oracleOption, len(s.Jobs))
	for i := range s.Jobs {
		j := &s.Jobs[i]
		for ci, c := range j.Candidates {
			r, ok := p.regions[carbon.RegionKey(c)]
			if !ok {
				continue
			}
			for start := j.Arrival; !start.Add(j.Duration).After(j.Deadline); {
				end := start.Add(j.Duration)
				o := oracleOption{cand: ci, region: r, start: start, grams: s.Grams(j, c, start),
					first: p.hour(start), last: p.hour(end.Add(-time.Nanosecond))}
				p.hours = max(p.hours, o.last+1)
				p.options[i] = append(p.options[i], o)
				if start.Equal(j.Arrival) {
					start = carbon.Hour(start).Add(time.Hour)
				} else {
					start = start.Add(time.Hour)
				}
			}
		}
	}
	return p
}

func (p *problem) hour(t time.Time) int { return int(carbon.Hour(t).Sub(p.base) / time.Hour) }

// Solve returns the oracle's schedule and bound; progress, when not nil,
// is told the iterations done.
func (o Oracle) Solve(ctx context.Context, s *Scenario, progress func(done, total int)) (OracleResult, error) {
	iterations := o.Iterations
	if iterations == 0 {
		iterations = DefaultIterations
	}
	p := newProblem(s)
	for i, opts := range p.options {
		if len(opts) == 0 {
			return OracleResult{}, fmt.Errorf("oracle: job %s has no option that meets its deadline", s.Jobs[i].Name)
		}
	}
	nr := len(s.Regions)
	lambda := make([][]float64, nr)
	prefix := make([][]float64, nr)
	load := make([][]float64, nr)
	for r := range nr {
		lambda[r] = make([]float64, p.hours)
		prefix[r] = make([]float64, p.hours+1)
		load[r] = make([]float64, p.hours+1)
	}
	choice := make([]int, len(p.options))
	// best is the least-emitting feasible schedule found, as each job's
	// option.
	var best []int
	res := OracleResult{Bound: math.Inf(-1), Grams: math.Inf(1), Method: "lagrangian"}
	theta, sinceBest := 1.0, 0
	for it := 0; it < iterations; it++ {
		if err := ctx.Err(); err != nil {
			return OracleResult{}, fmt.Errorf("oracle stopped after %d iterations: %w", it, err)
		}
		for r := range nr {
			for h, v := range lambda[r] {
				prefix[r][h+1] = prefix[r][h] + v
			}
		}
		// Each job alone at these prices.
		dual := 0.0
		for i, opts := range p.options {
			cpu := float64(s.Jobs[i].CPUMilli)
			best, bestCost := 0, math.Inf(1)
			for k, op := range opts {
				c := op.grams + cpu*(prefix[op.region][op.last+1]-prefix[op.region][op.first])
				if c < bestCost {
					best, bestCost = k, c
				}
			}
			choice[i] = best
			dual += bestCost
		}
		for r := range nr {
			if !math.IsInf(p.capacity[r], 1) {
				dual -= prefix[r][p.hours] * p.capacity[r]
			}
		}
		if dual > res.Bound*(1+1e-12) {
			res.Bound, sinceBest = dual, 0
		} else if sinceBest++; sinceBest >= 20 {
			theta, sinceBest = theta/2, 0
		}
		if it%10 == 0 || it == iterations-1 {
			if c, g, ok := p.repair(prefix); ok && g < res.Grams {
				best, res.Grams = c, g
			}
		}
		res.Iterations = it + 1
		if progress != nil {
			progress(it+1, iterations)
		}
		// The subgradient: each region and hour's load over its capacity.
		for r := range nr {
			clear(load[r])
		}
		for i, k := range choice {
			op := p.options[i][k]
			load[op.region][op.first] += float64(s.Jobs[i].CPUMilli)
			load[op.region][op.last+1] -= float64(s.Jobs[i].CPUMilli)
		}
		var norm float64
		feasible := true
		for r := range nr {
			if math.IsInf(p.capacity[r], 1) {
				continue
			}
			run := 0.0
			for h := range p.hours {
				run += load[r][h]
				g := run - p.capacity[r]
				feasible = feasible && g <= 0
				if lambda[r][h] <= 0 && g < 0 {
					g = 0
				}
				load[r][h] = g
				norm += g * g
			}
		}
		if feasible {
			// The jobs' own choices fit: a schedule, and an optimal one when
			// no priced hour is left idle (norm zero).
			if g := p.grams(choice); g < res.Grams {
				best, res.Grams = slices.Clone(choice), g
			}
		}
		if norm == 0 || res.Grams <= res.Bound*(1+1e-9) {
			break
		}
		step := theta * math.Max(res.Grams-dual, 1e-9*math.Abs(dual)) / norm
		if math.IsInf(res.Grams, 1) {
			step = theta * 0.01 * math.Abs(dual) / norm
		}
		for r := range nr {
			if math.IsInf(p.capacity[r], 1) {
				continue
			}
			for h := range p.hours {
				lambda[r][h] = math.Max(0, lambda[r][h]+step*load[r][h])
			}
		}
	}
	if progress != nil && res.Iterations < iterations {
		// Stopped early, proven optimal: done all the same.
		progress(iterations, iterations)
	}
	limit := o.SimplexLimit
	if limit == 0 {
		limit = DefaultSimplexLimit
	}
	if n := p.variables(); limit > 0 && n <= limit {
		v, err := p.simplex()
		if err != nil {
			return OracleResult{}, err
		}
		// The LP's optimum is the best bound the dual approaches.
		res.Bound, res.Method = math.Max(v, res.Bound), "simplex"
	}
	if best == nil {
		// No repair fitted everything: the cheapest option of each job, and
		// those without room unplaced, as the other policies count them.
		res.Placements, res.Grams = p.greedy()
		return res, nil
	}
	p.improve(best)
	res.Grams = p.grams(best)
	res.Placements = make([]Placement, len(best))
	for i, k := range best {
		op := p.options[i][k]
		res.Placements[i] = Placement{Candidate: s.Jobs[i].Candidates[op.cand], Start: op.start}
	}
	return res, nil
}

// grams returns the emissions of the options chosen.
func (p *problem) grams(choice []int) float64 {
	var g float64
	for i, k := range choice {
		g += p.options[i][k].grams
	}
	return g
}

// improve moves the jobs of a feasible schedule, one at a time, to their
// least-emitting option with room given all the others, until a pass moves
// none (at most maxImprovePasses).
func (p *problem) improve(choice []int) {
	const maxImprovePasses = 10
	used := make([][]float64, len(p.capacity))
	for r := range used {
		used[r] = make([]float64, p.hours)
	}
	add := func(op oracleOption, cpu float64) {
		for h := op.first; h <= op.last; h++ {
			used[op.region][h] += cpu
		}
	}
	for i, k := range choice {
		add(p.options[i][k], float64(p.s.Jobs[i].CPUMilli))
	}
	for range maxImprovePasses {
		moved := false
		for i, k := range choice {
			cpu := float64(p.s.Jobs[i].CPUMilli)
			opts := p.options[i]
			add(opts[k], -cpu)
			best := k
			for k2, op := range opts {
				if op.grams < opts[best].grams*(1-1e-12) && p.fits(used[op.region], op, cpu) {
					best = k2
				}
			}
			add(opts[best], cpu)
			if best != k {
				choice[i], moved = best, true
			}
		}
		if !moved {
			return
		}
	}
}

// repairOrders are the orders in which repair places the jobs, as
// carbon.ScheduleBatch tries several: in arrival order, the least slack
// first, the largest first.
var repairOrders = []carbon.BatchOrder{carbon.Arrival, carbon.LeastSlack, carbon.LargestFirst}

// repair builds feasible schedules at the prices, one per order of
// repairOrders, each job taking its cheapest option at the prices among
// those with room, and returns the least-emitting; false when in every
// order some job finds none.
func (p *problem) repair(prefix [][]float64) ([]int, float64, bool) {
	var best []int
	bestGrams := math.Inf(1)
	for _, order := range repairOrders {
		if c, g, ok := p.repairIn(prefix, p.order(order)); ok && g < bestGrams {
			best, bestGrams = c, g
		}
	}
	return best, bestGrams, best != nil
}

// order returns the jobs' indexes in the batch order (stable).
func (p *problem) order(o carbon.BatchOrder) []int {
	jobs := p.s.Jobs
	idx := make([]int, len(jobs))
	for i := range idx {
		idx[i] = i
	}
	size := func(i int) float64 { return float64(jobs[i].CPUMilli) * jobs[i].Duration.Hours() }
	switch o {
	case carbon.LeastSlack:
		slices.SortStableFunc(idx, func(a, b int) int {
			sa, sb := jobs[a].Deadline.Sub(jobs[a].Arrival)-jobs[a].Duration, jobs[b].Deadline.Sub(jobs[b].Arrival)-jobs[b].Duration
			if c := cmp.Compare(sa, sb); c != 0 {
				return c
			}
			return cmp.Compare(size(b), size(a))
		})
	case carbon.LargestFirst:
		slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(size(b), size(a)) })
	}
	return idx
}

// repairIn places the jobs in the order given.
func (p *problem) repairIn(prefix [][]float64, order []int) ([]int, float64, bool) {
	jobs := p.s.Jobs
	used := make([][]float64, len(p.capacity))
	for r := range used {
		used[r] = make([]float64, p.hours)
	}
	out := make([]int, len(p.options))
	var grams float64
	idx := make([]int, 0, 64)
	costs := make([]float64, 0, 64)
	for _, i := range order {
		cpu := float64(jobs[i].CPUMilli)
		opts := p.options[i]
		idx, costs = idx[:0], costs[:0]
		for k, op := range opts {
			idx = append(idx, k)
			costs = append(costs, op.grams+cpu*(prefix[op.region][op.last+1]-prefix[op.region][op.first]))
		}
		slices.SortStableFunc(idx, func(a, b int) int {
			if c := cmp.Compare(costs[a], costs[b]); c != 0 {
				return c
			}
			return cmp.Compare(opts[a].grams, opts[b].grams)
		})
		placed := false
		for _, k := range idx {
			op := opts[k]
			if !p.fits(used[op.region], op, cpu) {
				continue
			}
			for h := op.first; h <= op.last; h++ {
				used[op.region][h] += cpu
			}
			out[i] = k
			grams += op.grams
			placed = true
			break
		}
		if !placed {
			return nil, 0, false
		}
	}
	return out, grams, true
}

func (p *problem) fits(used []float64, op oracleOption, cpu float64) bool {
	c := p.capacity[op.region]
	for h := op.first; h <= op.last; h++ {
		if used[h]+cpu > c {
			return false
		}
	}
	return true
}

// greedy places each job at its cheapest option with room, in arrival
// order, and the others unplaced at their origin at once.
func (p *problem) greedy() ([]Placement, float64) {
	used := make([][]float64, len(p.capacity))
	for r := range used {
		used[r] = make([]float64, p.hours)
	}
	out := make([]Placement, len(p.options))
	var grams float64
	for i, opts := range p.options {
		j := &p.s.Jobs[i]
		out[i] = Placement{Candidate: j.Candidates[0], Start: j.Arrival, Unplaced: true}
		order := slices.SortedStableFunc(slices.Values(opts), func(a, b oracleOption) int { return cmp.Compare(a.grams, b.grams) })
		for _, op := range order {
			if p.fits(used[op.region], op, float64(j.CPUMilli)) {
				for h := op.first; h <= op.last; h++ {
					used[op.region][h] += float64(j.CPUMilli)
				}
				out[i] = Placement{Candidate: j.Candidates[op.cand], Start: op.start}
				break
			}
		}
		if out[i].Unplaced {
			grams += p.s.Grams(j, j.Candidates[0], j.Arrival)
		} else {
			grams += p.s.Grams(j, out[i].Candidate, out[i].Start)
		}
	}
	return out, grams
}

// rows returns the region and hour pairs whose capacity the options could
// exceed: the only capacity rows of the LP that can bind.
func (p *problem) rows() [][2]int {
	potential := map[[2]int]float64{}
	for i, opts := range p.options {
		for _, op := range opts {
			for h := op.first; h <= op.last; h++ {
				potential[[2]int{op.region, h}] += float64(p.s.Jobs[i].CPUMilli)
			}
		}
	}
	var rows [][2]int
	for k, v := range potential {
		if v > p.capacity[k[0]] {
			rows = append(rows, k)
		}
	}
	slices.SortFunc(rows, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	return rows
}

func (p *problem) variables() int {
	n := len(p.rows())
	for _, opts := range p.options {
		n += len(opts)
	}
	return n
}

// simplex solves the LP relaxation in standard form: one variable per job
// option (the share of the job run so), one slack per capacity row.
func (p *problem) simplex() (float64, error) {
	rows := p.rows()
	var c []float64
	type col struct{ job, opt int }
	var cols []col
	for i, opts := range p.options {
		for k, op := range opts {
			c = append(c, op.grams)
			cols = append(cols, col{i, k})
		}
	}
	nx := len(c)
	for range rows {
		c = append(c, 0)
	}
	m := len(p.options) + len(rows)
	a := mat.NewDense(m, len(c), nil)
	b := make([]float64, m)
	rowOf := map[[2]int]int{}
	for k, rh := range rows {
		rowOf[rh] = len(p.options) + k
		b[len(p.options)+k] = p.capacity[rh[0]]
		a.Set(len(p.options)+k, nx+k, 1)
	}
	for v, cl := range cols {
		a.Set(cl.job, v, 1)
		op := p.options[cl.job][cl.opt]
		for h := op.first; h <= op.last; h++ {
			if r, ok := rowOf[[2]int{op.region, h}]; ok {
				a.Set(r, v, float64(p.s.Jobs[cl.job].CPUMilli))
			}
		}
	}
	for i := range p.options {
		b[i] = 1
	}
	v, _, err := lp.Simplex(c, a, b, 1e-10, nil)
	if err != nil {
		return 0, fmt.Errorf("oracle: the simplex failed on the LP relaxation (%d rows, %d variables): %w", m, len(c), err)
	}
	return v, nil
}
