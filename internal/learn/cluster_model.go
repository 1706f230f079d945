package learn

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// ClusterFormatVersion is the version of the cluster model file; it differs
// from FormatVersion so that a node model is never loaded to score clusters
// nor the other way round.
const ClusterFormatVersion = "meridian.learn.cluster-model/v1"

// ClusterSchema is the cluster feature encoding a model was trained with.
type ClusterSchema struct {
	Version  string   `json:"version"`
	Cluster  []string `json:"cluster"`
	Workload []string `json:"workload"`
}

// CurrentClusterSchema is the cluster schema this build encodes.
func CurrentClusterSchema() ClusterSchema {
	return ClusterSchema{Version: ClusterSchemaVersion, Cluster: slices.Clone(ClusterColumns), Workload: slices.Clone(WorkloadColumns)}
}

// DefaultClusterHidden are the widths of the hidden layers of a new cluster
// model: a member list is short (tens of clusters), so width costs little.
var DefaultClusterHidden = []int{16, 8}

// ClusterModel is a network that scores member clusters for a workload,
// with what it was trained for. It is the node Model's network on cluster
// rows.
type ClusterModel struct {
	Net *Network
	// Reward is the reward the model was trained with.
	Reward string
	// Info records how the model was trained (steps, seeds, scenarios,
	// hyper-parameters).
	Info map[string]string
}

// NewClusterModel returns an untrained cluster model with the current
// schema.
func NewClusterModel(hidden []int, seed uint64) (*ClusterModel, error) {
	net, err := NewNetwork(len(ClusterColumns), len(WorkloadColumns), hidden, seed)
	if err != nil {
		return nil, err
	}
	return &ClusterModel{Net: net, Info: map[string]string{}}, nil
}

type clusterModelFile struct {
	Format string            `json:"format"`
	Schema ClusterSchema     `json:"schema"`
	Hidden []int             `json:"hidden"`
	Reward string            `json:"reward"`
	Info   map[string]string `json:"info,omitempty"`
	Params []float64         `json:"params"`
}

// Write writes m as JSON.
func (m *ClusterModel) Write(w io.Writer) error {
	return json.NewEncoder(w).Encode(clusterModelFile{
		Format: ClusterFormatVersion, Schema: CurrentClusterSchema(), Hidden: m.Net.Hidden,
		Reward: m.Reward, Info: m.Info, Params: m.Net.Params,
	})
}

// Save writes m to path.
func (m *ClusterModel) Save(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("failed to create cluster model file: %w", err)
	}
	if err := m.Write(f); err != nil {
		f.Close()
		return fmt.Errorf("failed to write cluster model file %s: %w", path, err)
	}
	return f.Close()
}

// ReadClusterModel reads a model written by ClusterModel.Write. A file of
// another format version or feature schema is refused with
// ErrFormatVersion or ErrSchema; every error names the field at fault.
func ReadClusterModel(r io.Reader) (*ClusterModel, error) {
	var f clusterModelFile
	if err := json.NewDecoder(r).Decode(&f); err != nil {
		return nil, fmt.Errorf("failed to decode cluster model: %w", err)
	}
	if f.Format != ClusterFormatVersion {
		return nil, fmt.Errorf("%w: format %q, this build reads %q", ErrFormatVersion, f.Format, ClusterFormatVersion)
	}
	want := CurrentClusterSchema()
	switch {
	case f.Schema.Version != want.Version:
		return nil, fmt.Errorf("%w: schema.version %q, this build encodes %q", ErrSchema, f.Schema.Version, want.Version)
	case !slices.Equal(f.Schema.Cluster, want.Cluster):
		return nil, fmt.Errorf("%w: schema.cluster is [%s], this build encodes [%s]", ErrSchema, strings.Join(f.Schema.Cluster, ","), strings.Join(want.Cluster, ","))
	case !slices.Equal(f.Schema.Workload, want.Workload):
		return nil, fmt.Errorf("%w: schema.workload is [%s], this build encodes [%s]", ErrSchema, strings.Join(f.Schema.Workload, ","), strings.Join(want.Workload, ","))
	}
	// As in Read: the widths decide what NewNetwork allocates, so they are
	// checked against the parameters the file holds first.
	if !fills(len(want.Cluster)+len(want.Workload), f.Hidden, len(f.Params)) {
		return nil, fmt.Errorf("params: %d values do not fill a network of hidden widths %v", len(f.Params), f.Hidden)
	}
	net, err := NewNetwork(len(want.Cluster), len(want.Workload), f.Hidden, 0)
	if err != nil {
		return nil, fmt.Errorf("hidden %v: %w", f.Hidden, err)
	}
	if len(f.Params) != len(net.Params) {
		return nil, fmt.Errorf("params: %d values, hidden %v needs %d", len(f.Params), f.Hidden, len(net.Params))
	}
	copy(net.Params, f.Params)
	if f.Info == nil {
		f.Info = map[string]string{}
	}
	return &ClusterModel{Net: net, Reward: f.Reward, Info: f.Info}, nil
}

// LoadClusterModel reads the cluster model file at path; see
// ReadClusterModel.
func LoadClusterModel(path string) (*ClusterModel, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("failed to open cluster model file: %w", err)
	}
	defer f.Close()
	m, err := ReadClusterModel(f)
	if err != nil {
		return nil, fmt.Errorf("cluster model file %s: %w", path, err)
	}
	return m, nil
}
