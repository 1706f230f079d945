package learn

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// FuzzRead reads model files, as `meridian suggest --model` and the
// kube-scheduler plugin do: Read must not panic, must refuse a file of
// another format or schema with its sentinel error, and a model it accepts
// must score nodes and read back the same after Write.
func FuzzRead(f *testing.F) {
	for _, hidden := range [][]int{DefaultHidden, {4}, nil} {
		m, err := NewModel(hidden, 7)
		if err != nil {
			f.Fatal(err)
		}
		m.Reward = "EL-RL"
		m.Info["seed"] = "7"
		var b bytes.Buffer
		if err := m.Write(&b); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
	}
	f.Add([]byte(`{"format":"meridian.learn.model/v0"}`))
	f.Add([]byte(`{"format":"meridian.learn.model/v1","schema":{"version":"x"},"hidden":[-1],"params":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Read(bytes.NewReader(data))
		var head struct {
			Format string `json:"format"`
		}
		if json.Unmarshal(data, &head) == nil && head.Format != FormatVersion && err == nil {
			t.Fatalf("accepted format %q", head.Format)
		}
		if err != nil {
			if err.Error() == "" {
				t.Fatal("refused with an empty error")
			}
			return
		}
		if m.Info == nil {
			t.Fatal("accepted model has nil Info")
		}
		var b bytes.Buffer
		if err := m.Write(&b); err != nil {
			t.Fatalf("failed to write an accepted model: %v", err)
		}
		again, err := Read(&b)
		if err != nil {
			t.Fatalf("Read refused what Write wrote: %v", err)
		}
		if diff := cmp.Diff(m, again, cmpopts.EquateEmpty(), cmpopts.IgnoreFields(Network{}, "Layers")); diff != "" {
			t.Errorf("model changed through Write and Read (-first +second):\n%s", diff)
		}
		nodes := []NodeState{
			{AllocatableMilliCPU: 4000, RequestedMilliCPU: 1000, AllocatableMemory: 8 << 30, AllocatablePods: 110, LatencyMs: 10},
			{AllocatableMilliCPU: 2000, AllocatableMemory: 4 << 30, AllocatablePods: 110, LatencyMs: 40},
		}
		pod := PodState{MilliCPU: 500, Memory: 1 << 30}
		q, mask := make([]float64, len(nodes)), make([]bool, len(nodes))
		NewScorer(m).Score(&pod, nodes, q, mask)
		for i := range nodes {
			if want := pod.Feasible(&nodes[i]); mask[i] != want {
				t.Errorf("node %d: mask %v, want %v: feasibility must not depend on the model", i, mask[i], want)
			}
		}
	})
}
