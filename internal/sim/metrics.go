package sim

import (
	"slices"
	"time"
)

// recorder samples the run and sums it up.
type recorder struct {
	w       *world
	series  Series
	index   map[string]int // cluster name -> index in series.Clusters
	billing billing

	provisionedAt, readyAt, removedAt *float64
	// Replica-samples of loaded services: all, in the cluster their users
	// are at, and the sum of their round-trip times to the users.
	loaded, local int
	userRTT       time.Duration
}

func newRecorder(w *world) *recorder {
	r := &recorder{w: w, index: map[string]int{}}
	for _, m := range w.members {
		r.cluster(m.Name)
	}
	if w.sc.Cloud != nil && w.prov != nil {
		r.cluster(w.sc.Cloud.Name)
	}
	return r
}

func (r *recorder) cluster(name string) int {
	if i, ok := r.index[name]; ok {
		return i
	}
	i := len(r.series.Clusters)
	r.index[name] = i
	s := &r.series
	s.Clusters = append(s.Clusters, name)
	s.AssignedCores = append(s.AssignedCores, make([]float64, len(s.Minutes)))
	s.AllocatableCores = append(s.AllocatableCores, make([]float64, len(s.Minutes)))
	s.RunningPods = append(s.RunningPods, make([]int, len(s.Minutes)))
	s.PendingPods = append(s.PendingPods, make([]int, len(s.Minutes)))
	return i
}

func at(now time.Duration) *float64 {
	v := seconds(now)
	return &v
}

func (r *recorder) cloudReady() {
	if r.readyAt == nil {
		r.readyAt = at(r.w.eng.Now())
	}
}

func (r *recorder) cloudProvisioning() {
	if r.provisionedAt == nil {
		r.provisionedAt = at(r.w.eng.Now())
	}
}

func (r *recorder) cloudRemoved() { r.removedAt = at(r.w.eng.Now()) }

// sample records the state now.
func (r *recorder) sample() {
	w, s := r.w, &r.series
	s.Minutes = append(s.Minutes, w.eng.Now().Minutes())
	for i := range s.Clusters {
		s.AssignedCores[i] = append(s.AssignedCores[i], 0)
		s.AllocatableCores[i] = append(s.AllocatableCores[i], 0)
		s.RunningPods[i] = append(s.RunningPods[i], 0)
		s.PendingPods[i] = append(s.PendingPods[i], 0)
	}
	last := len(s.Minutes) - 1
	var assigned, allocatable float64
	cloudCores := 0.0
	running := 0
	for _, m := range w.members {
		i := r.cluster(m.Name)
		a := float64(m.Assigned().MilliCPU) / 1000
		c := float64(m.Allocatable().MilliCPU) / 1000
		pending := len(m.Pending())
		s.AssignedCores[i][last] = a
		s.AllocatableCores[i][last] = c
		s.PendingPods[i][last] = pending
		s.RunningPods[i][last] = m.PodCount() - pending
		running += m.PodCount() - pending
		assigned += a
		allocatable += c
		if m.cloud {
			cloudCores += c
		}
	}
	asked, unplaced := 0, 0
	for _, wl := range w.active {
		asked += int(wl.asked())
		unplaced += int(wl.unplaced())
	}
	r.sampleTraffic()
	s.Asked = append(s.Asked, asked)
	s.Running = append(s.Running, running)
	s.Unplaced = append(s.Unplaced, unplaced)
	frac := 0.0
	if asked > 0 {
		frac = float64(max(0, asked-running)) / float64(asked)
	}
	s.PendingFraction = append(s.PendingFraction, frac)
	alloc := 0.0
	if allocatable > 0 {
		alloc = assigned / allocatable
	}
	s.Allocation = append(s.Allocation, alloc)
	s.CloudCores = append(s.CloudCores, cloudCores)
	s.CloudPaidCores = append(s.CloudPaidCores, r.billing.cores)
}

// sampleTraffic measures how close the Running replicas of services with
// a load are to their users.
func (r *recorder) sampleTraffic() {
	w := r.w
	for _, wl := range w.active {
		if wl.load == nil {
			continue
		}
		src, level, _ := wl.load.At(w.eng.Now())
		if src == "" || level <= 0 {
			continue
		}
		for _, p := range wl.pods {
			if !p.Running() {
				continue
			}
			r.loaded++
			if p.Cluster.Name == src {
				r.local++
				continue
			}
			r.userRTT += w.latency[src][p.Cluster.Name]
		}
	}
}

// summary sums the series up at the end of the run.
func (r *recorder) summary() Summary {
	w, s := r.w, &r.series
	r.billing.change(w.eng.Now(), 0, 0)
	out := Summary{
		CloudCPUHours:             r.billing.cpuHours,
		CloudCost:                 r.billing.cost,
		CloudProvisionedAtSeconds: r.provisionedAt,
		CloudReadyAtSeconds:       r.readyAt,
		CloudRemovedAtSeconds:     r.removedAt,
		ReplicasMovedBack:         w.movedBack,
		ReplicasLeftCloud:         w.leftCloud,
		Decisions:                 len(w.decisions),
		JobsCompleted:             w.completed,
		PodsEvicted:               w.evicted,
	}
	if w.cloud != nil {
		out.CloudRemovedAtSeconds = nil
	}
	var sumFrac, sumAlloc float64
	n := 0
	for k := range s.Minutes {
		if s.Asked[k] > 0 {
			sumFrac += s.PendingFraction[k]
			n++
		}
		out.MaxPendingFraction = max(out.MaxPendingFraction, s.PendingFraction[k])
		out.MaxPendingReplicas = max(out.MaxPendingReplicas, s.Asked[k]-min(s.Asked[k], s.Running[k]))
		out.MaxOverallAllocation = max(out.MaxOverallAllocation, s.Allocation[k])
		sumAlloc += s.Allocation[k]
		out.CloudMaxCores = max(out.CloudMaxCores, s.CloudCores[k])
	}
	if n > 0 {
		out.MeanPendingFraction = sumFrac / float64(n)
	}
	if len(s.Minutes) > 0 {
		out.MeanOverallAllocation = sumAlloc / float64(len(s.Minutes))
	}
	for i, name := range s.Clusters {
		cs := ClusterSummary{Cluster: name, Cloud: w.sc.Cloud != nil && name == w.sc.Cloud.Name}
		var sum float64
		samples := 0
		for k := range s.Minutes {
			cs.MaxPendingPods = max(cs.MaxPendingPods, s.PendingPods[i][k])
			if s.AllocatableCores[i][k] == 0 {
				continue
			}
			a := s.AssignedCores[i][k] / s.AllocatableCores[i][k]
			cs.MaxAllocation = max(cs.MaxAllocation, a)
			sum += a
			samples++
		}
		if samples > 0 {
			cs.MeanAllocation = sum / float64(samples)
		}
		for _, m := range w.members {
			if m.Name == name {
				cs.ReplicasScheduled = m.scheduled
			}
		}
		cs.ReplicasScheduled += w.scheduledGone[name]
		if cs.MaxAllocation > out.MaxClusterAllocation {
			out.MaxClusterAllocation, out.MaxClusterAllocationCluster = cs.MaxAllocation, name
		}
		out.Clusters = append(out.Clusters, cs)
	}
	if r.loaded > 0 {
		local := float64(r.local) / float64(r.loaded)
		rtt := float64(r.userRTT) / float64(r.loaded) / float64(time.Millisecond)
		out.TrafficLocalFraction, out.MeanUserRTTMs = &local, &rtt
	}
	p50, p99 := percentiles(w.decisions)
	out.DecisionP50Seconds, out.DecisionP99Seconds = p50.Seconds(), p99.Seconds()
	return out
}

// percentiles returns the 50th and 99th percentiles (nearest rank).
func percentiles(ds []time.Duration) (p50, p99 time.Duration) {
	if len(ds) == 0 {
		return 0, 0
	}
	sorted := slices.Clone(ds)
	slices.Sort(sorted)
	rank := func(p float64) time.Duration {
		i := int(p*float64(len(sorted))+0.999999) - 1
		return sorted[min(max(i, 0), len(sorted)-1)]
	}
	return rank(0.50), rank(0.99)
}
