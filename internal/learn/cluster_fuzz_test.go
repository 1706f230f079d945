package learn

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// FuzzReadClusterModel reads cluster model files, as the learned placement
// plugin does: ReadClusterModel must not panic, must refuse another
// format, and a model it accepts must score clusters, mask
// the ones without room whatever its weights, and read back the same after
// Write.
func FuzzReadClusterModel(f *testing.F) {
	for _, hidden := range [][]int{DefaultClusterHidden, {4}, nil} {
		m, err := NewClusterModel(hidden, 7)
		if err != nil {
			f.Fatal(err)
		}
		m.Reward = "cloud-pending"
		m.Info["scenarioSeeds"] = "1-2"
		var b bytes.Buffer
		if err := m.Write(&b); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
	}
	f.Add([]byte(`{"format":"meridian.learn.model/v1"}`))
	f.Add([]byte(`{"format":"meridian.learn.cluster-model/v1","schema":{"version":"x"},"hidden":[-1],"params":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ReadClusterModel(bytes.NewReader(data))
		var head struct {
			Format string `json:"format"`
		}
		if json.Unmarshal(data, &head) == nil && head.Format != ClusterFormatVersion && err == nil {
			t.Fatalf("accepted format %q", head.Format)
		}
		if err != nil {
			if err.Error() == "" {
				t.Fatal("refused with an empty error")
			}
			return
		}
		var b bytes.Buffer
		if err := m.Write(&b); err != nil {
			t.Fatalf("failed to write an accepted model: %v", err)
		}
		again, err := ReadClusterModel(&b)
		if err != nil {
			t.Fatalf("ReadClusterModel refused what Write wrote: %v", err)
		}
		if diff := cmp.Diff(m, again, cmpopts.EquateEmpty(), cmpopts.IgnoreFields(Network{}, "Layers")); diff != "" {
			t.Errorf("model changed through Write and Read (-first +second):\n%s", diff)
		}
		clusters := []ClusterState{
			{AllocatableMilliCPU: 20000, RequestedMilliCPU: 5000, AllocatableMemory: 80 << 30, AllocatablePods: 550, Nodes: 5, Fit: 12},
			{AllocatableMilliCPU: 8000, RequestedMilliCPU: 8000, AllocatableMemory: 16 << 30, AllocatablePods: 220, Nodes: 2},
			{AllocatableMilliCPU: 80000, AllocatableMemory: 160 << 30, AllocatablePods: 2200, Nodes: 20, Cloud: true, Fit: 100},
		}
		w := WorkloadState{MilliCPU: 500, Memory: 1 << 30, Replicas: 3}
		q, mask := make([]float64, len(clusters)), make([]bool, len(clusters))
		NewClusterScorer(m).Score(&w, clusters, q, mask)
		if diff := cmp.Diff([]bool{true, false, true}, mask); diff != "" {
			t.Errorf("mask (-want +got): feasibility must not depend on the model\n%s", diff)
		}
	})
}
