package clusterenv

import (
	"fmt"
	"math/rand/v2"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/sim/scenario"
	"github.com/meridian-dev/meridian/internal/sim/workload"
)

// nodeShapes are the member nodes training draws from: the two Grid'5000
// shapes of seed 001's VI-B and the larger ones of the heavy-tail
// scenario, in cores and GiB.
var nodeShapes = []struct{ cpu, memGiB int64 }{{2, 4}, {4, 16}, {4, 8}, {8, 32}}

// TrainingScenario returns the random world of one training episode: 3 to
// 6 member clusters of 3 to 8 nodes of one shape each, round-trip times of
// 2 to 30 ms, a cloud of seed 001's flavors, and a Google-trace-like
// workload (internal/sim/workload's generator, with VI-B's requests and
// duration mixture) of 1 to 6 replicas per task, 8 to 20 tasks an hour per
// member core, over window. The built-in scenarios of
// `meridian sim` are never drawn, so they stay for evaluation.
func TrainingScenario(seed uint64, window time.Duration) *scenario.Scenario {
	rng := rand.New(rand.NewPCG(seed, 0x636c7573))
	n := 3 + rng.IntN(4)
	sc := &scenario.Scenario{
		Name:      fmt.Sprintf("train-%d", seed),
		Duration:  window + window/2,
		LatencyMs: map[string]map[string]float64{},
	}
	var cores int64
	for i := range n {
		shape := nodeShapes[rng.IntN(len(nodeShapes))]
		count := 3 + rng.IntN(6)
		cores += shape.cpu * int64(count)
		sc.Clusters = append(sc.Clusters, scenario.Cluster{
			Name: fmt.Sprintf("member%d", i+1),
			Nodes: []scenario.NodePool{{Count: count, CPU: *resource.NewQuantity(shape.cpu, resource.DecimalSI),
				Memory: *resource.NewQuantity(shape.memGiB<<30, resource.BinarySI), Pods: 110}},
		})
	}
	names := []string{"cloud"}
	for _, c := range sc.Clusters {
		names = append(names, c.Name)
	}
	for i, a := range names {
		sc.LatencyMs[a] = map[string]float64{}
		for _, b := range names[i+1:] {
			sc.LatencyMs[a][b] = 2 + 28*rng.Float64()
		}
	}
	sc.Cloud = &scenario.Cloud{Name: "cloud", MaxNodes: 20, Flavors: []scenario.Flavor{
		{Name: "m1.large", CPU: resource.MustParse("4"), Memory: resource.MustParse("8Gi"), Pods: 110, PricePerHour: usdPerHour("0.16")},
		{Name: "m1.xlarge", CPU: resource.MustParse("8"), Memory: resource.MustParse("16Gi"), Pods: 110, PricePerHour: usdPerHour("0.32")},
	}}
	// VI-B submits 16 tasks of one replica an hour per member core and
	// bursts to the cloud; tasks here have about two replicas, so 5 to 11
	// tasks an hour per core (a fifth of them stay to the end: 0.6 to 1.4
	// times the members' CPU by then) range from members that hold it all to a
	// cloud that takes a good part.
	perHour := (8 + 12*rng.Float64()) * float64(cores)
	var locations []workload.LocationShare
	for _, c := range sc.Clusters {
		locations = append(locations, workload.LocationShare{Cluster: c.Name, Tasks: 0.2 + rng.Float64()})
	}
	sc.Workload.Generator = &workload.Generator{
		Tasks:     max(1, int(perHour*window.Hours())),
		Window:    window,
		CPUMilli:  workload.Dist{Kind: workload.LogNormal, Median: 250, Sigma: 0.9, Min: 50, Max: 2000},
		MemoryMiB: workload.Dist{Kind: workload.LogNormal, Median: 256, Sigma: 1.0, Min: 32, Max: 3072},
		DurationMinutes: workload.Dist{Kind: workload.Mixture, Components: []workload.Component{
			{Weight: 0.81, Dist: workload.Dist{Kind: workload.LogNormal, Median: 0.5, Sigma: 1.3, Max: 60}},
			{Weight: 0.19, Dist: workload.Dist{Kind: workload.Pareto, Scale: 60, Alpha: 1.5}},
		}},
		Replicas:  &workload.Dist{Kind: workload.LogNormal, Median: 1.5, Sigma: 0.8, Min: 1, Max: 6},
		Locations: locations,
	}
	seedCopy := seed
	sc.Seed = &seedCopy
	return sc
}

// usdPerHour is a flavor's price of amount US dollars an hour.
func usdPerHour(amount string) *multiclusterv1alpha1.Money {
	return &multiclusterv1alpha1.Money{Amount: resource.MustParse(amount), Currency: "USD"}
}
