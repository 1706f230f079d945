package inventory

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/decide"
	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/placement/plugins"
)

// inmemInventory returns an inventory of members clusters of nodes nodes
// each, fed through the capacity index as the informers feed it but without
// an API server: every node offers 16 CPU, 64Gi and 110 pods and runs one
// pod that uses between 0% and 90% of it, every tenth member is a cloud
// cluster, and every member declares its latency to every other one.
func inmemInventory(tb testing.TB, members, nodes int) *Inventory {
	tb.Helper()
	inv := New(Options{})
	allocatable := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("16"),
		corev1.ResourceMemory: resource.MustParse("64Gi"),
		corev1.ResourcePods:   resource.MustParse("110"),
	}
	labels := map[string]string{"topology.kubernetes.io/zone": "a"}
	ready := []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
	for i := range members {
		name := benchMember(i)
		m := &Member{Name: name, capacity: newCapacityIndex()}
		for j := range nodes {
			n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("node-%d", j), Labels: labels}}
			n.Status.Capacity, n.Status.Allocatable, n.Status.Conditions = allocatable, allocatable, ready
			m.capacity.setNode(n)
			used := int64((i*7 + j*13) % 10) // tenths used
			m.capacity.setPod(benchPod(types.UID(fmt.Sprintf("%s-%d", name, j)), n.Name, 1600*used*9/10, 64<<30*used/10))
		}
		inv.members[name] = m
		c := &multiclusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: name}}
		c.Spec.Cloud = i%10 == 9
		for k := range members {
			if k != i {
				c.Spec.Latencies = append(c.Spec.Latencies, multiclusterv1alpha1.ClusterLatency{
					Cluster: multiclusterv1alpha1.ClusterName(benchMember(k)),
					RTT:     metav1.Duration{Duration: time.Duration(1+(i*37+k*11)%100) * time.Millisecond},
				})
			}
		}
		inv.SetCluster(c, true)
	}
	return inv
}

func benchMember(i int) string { return fmt.Sprintf("member-%03d", i) }

func benchPod(uid types.UID, node string, milliCPU, memory int64) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: string(uid), Namespace: "default", UID: uid}}
	p.Spec.NodeName = node
	p.Spec.Containers = []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
		corev1.ResourceCPU:    *resource.NewMilliQuantity(milliCPU, resource.DecimalSI),
		corev1.ResourceMemory: *resource.NewQuantity(memory, resource.BinarySI),
	}}}}
	p.Status.Phase = corev1.PodRunning
	return p
}

// cpuTime is the CPU time the process used so far, in nanoseconds, user and
// system, garbage collection included. On a shared machine it says more
// than the wall clock of what one decision costs.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkDecisionPath measures what the MultiClusterDeployment controller
// does to decide one workload, snapshot included: report the members'
// pods to the assumptions, take a snapshot of the inventory with the
// assumed replicas reserved (SnapshotFor), decide (decide.Deployment) and
// assume the result. The inventory is in memory, at Karmada's published
// test scale of 100 members of 5,000 nodes, with ten other workloads'
// replicas still assumed in some members. In "steady" no member changes
// between decisions; in "churn" a pod is bound in three members before
// every decision (the informer's work, a few microseconds, is timed too).
// Besides the wall clock per decision it reports the process's CPU time
// per decision, which a busy machine inflates less.
func BenchmarkDecisionPath(b *testing.B) {
	const members, nodes = 100, 5000
	inv := inmemInventory(b, members, nodes)
	fw, err := plugins.NewFramework()
	if err != nil {
		b.Fatal(err)
	}
	request := placement.Resources{MilliCPU: 500, Memory: 512 << 20, Pods: 1}
	w := &placement.Workload{
		Key: "MultiClusterDeployment/default/web", Kind: placement.KindDeployment, Replicas: 100,
		Policy: placement.PolicyWorstFit, Bursting: true, PodRequests: request,
	}
	for _, churn := range []int{0, 3} {
		name := "steady"
		if churn > 0 {
			name = fmt.Sprintf("churn=%d", churn)
		}
		b.Run(fmt.Sprintf("members=%d/nodes=%d/%s", members, nodes, name), func(b *testing.B) {
			a := placement.NewAssumptions()
			for k := range 10 {
				other := &placement.Workload{Key: fmt.Sprintf("MultiClusterDeployment/default/other-%d", k), PodRequests: request}
				a.Assume(other, &placement.Decision{Assignments: []placement.Assignment{{Cluster: benchMember(k * 7), Replicas: 20}}})
			}
			ms := make(map[string]decide.Member, members)
			for i := range members {
				ms[benchMember(i)] = decide.Member{Ready: true, Connected: true}
			}
			// The controller takes snapshots all the time: start from one.
			inv.SnapshotFor(nil, a)
			ctx, now := b.Context(), time.Now()
			b.ReportAllocs()
			round, cpu0 := 0, cpuTime()
			for b.Loop() {
				for k := range churn {
					m := inv.members[benchMember((round*churn+k)%members)]
					uid := types.UID(fmt.Sprintf("churn-%d-%d", round, k))
					m.capacity.setPod(benchPod(uid, fmt.Sprintf("node-%d", round%nodes), 100, 128<<20))
				}
				round++
				decide.ObserveMembers(a, w, ms)
				in := decide.DeploymentInput{Workload: w, Members: ms, Now: now, Snapshot: inv.SnapshotFor(nil, a)}
				p, err := decide.Deployment(ctx, fw, in)
				if err != nil {
					b.Fatal(err)
				}
				if p.Decision.Unplaced != 0 {
					b.Fatalf("%d replicas unplaced", p.Decision.Unplaced)
				}
				p.Assume(a)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/decision")
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/1e6, "cpu-ms/decision")
		})
	}
}
