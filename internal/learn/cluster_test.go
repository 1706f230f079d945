package learn

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestEncodeCluster(t *testing.T) {
	c := ClusterState{
		AllocatableMilliCPU: 20000, RequestedMilliCPU: 5000, AllocatableMemory: 80 << 30, RequestedMemory: 20 << 30,
		AllocatablePods: 550, RequestedPods: 55, Nodes: 5, LargestFreeMilliCPU: 4000, LargestFreeMemory: 16 << 30,
		Cloud: true, CPUHourPrice: 0.04, LatencyMs: 25, Fit: 30,
	}
	w := WorkloadState{MilliCPU: 500, Memory: 1 << 30, Replicas: 10}
	row := make([]float64, len(ClusterColumns))
	EncodeCluster(row, &c, &w)
	want := []float64{15.0 / 128, 60.0 / 512, 495.0 / 1100, 0.25, 0.25, 0.1, 5.0 / 32, 4.0 / 64, 16.0 / 256, 1, 0.4, 0.25, 2}
	if diff := cmp.Diff(want, row, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("cluster row (-want +got):\n%s", diff)
	}
	wl := make([]float64, len(WorkloadColumns))
	EncodeWorkload(wl, &w)
	if diff := cmp.Diff([]float64{500.0 / 8000, 1.0 / 32, 0.1, 5000.0 / 64000}, wl, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("workload columns (-want +got):\n%s", diff)
	}
}

func TestClusterModelRoundTrip(t *testing.T) {
	m, err := NewClusterModel(DefaultClusterHidden, 4)
	if err != nil {
		t.Fatal(err)
	}
	m.Reward, m.Info["scenarioSeeds"] = "cloud-pending", "1-2"
	var buf bytes.Buffer
	if err := m.Write(&buf); err != nil {
		t.Fatal(err)
	}
	got, err := ReadClusterModel(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(m, got, cmpopts.IgnoreUnexported(Network{}), cmpopts.IgnoreFields(Network{}, "Layers")); diff != "" {
		t.Errorf("read model (-want +got):\n%s", diff)
	}
	// A node model file is not a cluster model, nor the other way round.
	nm, _ := NewModel(DefaultHidden, 1)
	buf.Reset()
	if err := nm.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadClusterModel(&buf); err == nil {
		t.Errorf("ReadClusterModel read a node model")
	}
	buf.Reset()
	if err := m.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(&buf); err == nil {
		t.Errorf("Read read a cluster model")
	}
}
