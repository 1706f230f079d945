package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/meridian-dev/meridian/internal/placement"
)

// LocationShare is how many tasks prefer one cluster.
type LocationShare struct {
	Cluster string  `json:"cluster"`
	Tasks   float64 `json:"tasks"`
}

// Generator describes a synthetic trace; see the package documentation for
// the model.
type Generator struct {
	// Tasks is how many tasks arrive during Window.
	Tasks  int           `json:"tasks"`
	Window time.Duration `json:"window"`
	// CPUMilli is the CPU request of a replica in millicores, MemoryMiB its
	// memory request in MiB, DurationMinutes the task's duration.
	CPUMilli        Dist `json:"cpuMilli"`
	MemoryMiB       Dist `json:"memoryMiB"`
	DurationMinutes Dist `json:"durationMinutes"`
	// Replicas defaults to one replica per task, as in seed 001.
	Replicas *Dist `json:"replicas,omitempty"`
	// ServiceThreshold separates Deployments (longer) from Jobs; zero means
	// Window.
	ServiceThreshold time.Duration `json:"serviceThreshold,omitempty"`
	// Locations are exact counts when they add up to Tasks, weights
	// otherwise; empty means tasks have no preferred cluster.
	Locations []LocationShare `json:"locations,omitempty"`
}

// The random streams, one per attribute.
const (
	streamArrival = iota + 1
	streamCPU
	streamMemory
	streamDuration
	streamReplicas
	streamLocation
)

func stream(seed uint64, id uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x6d6572696469616e^id))
}

// Generate returns the tasks of g for seed, ordered by submission.
func (g Generator) Generate(seed uint64) ([]Task, error) {
	if g.Tasks <= 0 || g.Window <= 0 {
		return nil, fmt.Errorf("tasks %d and window %v: both must be positive", g.Tasks, g.Window)
	}
	arrivals := stream(seed, streamArrival)
	submits := make([]time.Duration, g.Tasks)
	for i := range submits {
		submits[i] = time.Duration(arrivals.Float64() * float64(g.Window)).Truncate(time.Millisecond)
	}
	slices.Sort(submits)

	locations, err := g.locations(stream(seed, streamLocation))
	if err != nil {
		return nil, err
	}
	threshold := g.ServiceThreshold
	if threshold == 0 {
		threshold = g.Window
	}
	replicas := Dist{Kind: Constant, Value: 1}
	if g.Replicas != nil {
		replicas = *g.Replicas
	}
	cpu, mem := stream(seed, streamCPU), stream(seed, streamMemory)
	dur, rep := stream(seed, streamDuration), stream(seed, streamReplicas)
	tasks := make([]Task, g.Tasks)
	width := len(fmt.Sprint(g.Tasks))
	for i := range tasks {
		t := Task{
			Name:     fmt.Sprintf("task-%0*d", width, i+1),
			Submit:   submits[i],
			MilliCPU: max(1, int64(math.Round(g.CPUMilli.Sample(cpu)))),
			Memory:   max(1, int64(math.Round(g.MemoryMiB.Sample(mem)))) << 20,
			Duration: max(time.Second, time.Duration(g.DurationMinutes.Sample(dur)*float64(time.Minute)).Truncate(time.Second)),
			Replicas: max(1, int32(math.Round(replicas.Sample(rep)))),
			Location: locations[i],
		}
		t.Kind = placement.KindJob
		if t.Duration > threshold {
			t.Kind = placement.KindDeployment
		}
		tasks[i] = t
	}
	return tasks, nil
}

// locations deals the preferred clusters: exact counts when they add up to
// the number of tasks, else a categorical draw per task.
func (g Generator) locations(r *rand.Rand) ([]string, error) {
	out := make([]string, g.Tasks)
	if len(g.Locations) == 0 {
		return out, nil
	}
	var total float64
	exact := true
	for _, l := range g.Locations {
		if l.Tasks < 0 {
			return nil, fmt.Errorf("location %q: tasks %g must not be negative", l.Cluster, l.Tasks)
		}
		total += l.Tasks
		exact = exact && l.Tasks == math.Trunc(l.Tasks)
	}
	if total <= 0 {
		return nil, fmt.Errorf("locations: tasks add up to %g, need more than 0", total)
	}
	if exact && int(total) == g.Tasks {
		i := 0
		for _, l := range g.Locations {
			for range int(l.Tasks) {
				out[i] = l.Cluster
				i++
			}
		}
		r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
		return out, nil
	}
	for i := range out {
		x := r.Float64() * total
		for _, l := range g.Locations {
			out[i] = l.Cluster
			if x < l.Tasks {
				break
			}
			x -= l.Tasks
		}
	}
	return out, nil
}
