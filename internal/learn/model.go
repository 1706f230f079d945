package learn

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// FormatVersion is the version of the model file; Load refuses others.
const FormatVersion = "meridian.learn.model/v1"

// The errors Load returns, wrapped with what it found.
var (
	// ErrFormatVersion is a file of another format version.
	ErrFormatVersion = errors.New("unsupported model file format version")
	// ErrSchema is a model trained on other features than this build
	// encodes.
	ErrSchema = errors.New("model feature schema differs from this build's")
)

// Schema is the feature encoding a model was trained with.
type Schema struct {
	Version string   `json:"version"`
	Node    []string `json:"node"`
	Pod     []string `json:"pod"`
}

// CurrentSchema is the schema this build encodes.
func CurrentSchema() Schema {
	return Schema{Version: SchemaVersion, Node: slices.Clone(NodeColumns), Pod: slices.Clone(PodColumns)}
}

// DefaultHidden are the widths of the hidden layers of a new model: small
// enough to score 5,000 nodes in about a millisecond on one core, wide
// enough for the rewards of package nodeenv.
var DefaultHidden = []int{12, 8}

// Model is a trained network with what it was trained for.
type Model struct {
	Net *Network
	// Reward is the reward the model was trained with (EE, LB or EL-RL).
	Reward string
	// Info records how the model was trained: free-form key-values such as
	// the seed, the steps and the hyper-parameters.
	Info map[string]string
}

// NewModel returns an untrained model with the current schema.
func NewModel(hidden []int, seed uint64) (*Model, error) {
	net, err := NewNetwork(len(NodeColumns), len(PodColumns), hidden, seed)
	if err != nil {
		return nil, err
	}
	return &Model{Net: net, Info: map[string]string{}}, nil
}

type modelFile struct {
	Format string            `json:"format"`
	Schema Schema            `json:"schema"`
	Hidden []int             `json:"hidden"`
	Reward string            `json:"reward"`
	Info   map[string]string `json:"info,omitempty"`
	Params []float64         `json:"params"`
}

// Write writes m as JSON.
func (m *Model) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	return enc.Encode(modelFile{
		Format: FormatVersion, Schema: CurrentSchema(), Hidden: m.Net.Hidden,
		Reward: m.Reward, Info: m.Info, Params: m.Net.Params,
	})
}

// Save writes m to path.
func (m *Model) Save(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("failed to create model file: %w", err)
	}
	if err := m.Write(f); err != nil {
		f.Close()
		return fmt.Errorf("failed to write model file %s: %w", path, err)
	}
	return f.Close()
}

// Read reads a model written by Write. A file of another format version or
// feature schema is refused with ErrFormatVersion or ErrSchema.
func Read(r io.Reader) (*Model, error) {
	var f modelFile
	if err := json.NewDecoder(r).Decode(&f); err != nil {
		return nil, fmt.Errorf("failed to decode model: %w", err)
	}
	if f.Format != FormatVersion {
		return nil, fmt.Errorf("%w: format %q, this build reads %q", ErrFormatVersion, f.Format, FormatVersion)
	}
	want := CurrentSchema()
	if f.Schema.Version != want.Version || !slices.Equal(f.Schema.Node, want.Node) || !slices.Equal(f.Schema.Pod, want.Pod) {
		return nil, fmt.Errorf("%w: the file has %s (node %s; pod %s), this build encodes %s (node %s; pod %s)", ErrSchema,
			f.Schema.Version, strings.Join(f.Schema.Node, ","), strings.Join(f.Schema.Pod, ","),
			want.Version, strings.Join(want.Node, ","), strings.Join(want.Pod, ","))
	}
	// The hidden widths decide how much NewNetwork allocates: check them
	// against the parameters the file holds first, so that a file of a
	// few bytes cannot ask for terabytes.
	if !fills(len(want.Node)+len(want.Pod), f.Hidden, len(f.Params)) {
		return nil, fmt.Errorf("params: %d values do not fill a network of hidden widths %v", len(f.Params), f.Hidden)
	}
	net, err := NewNetwork(len(want.Node), len(want.Pod), f.Hidden, 0)
	if err != nil {
		return nil, fmt.Errorf("invalid model shape: %w", err)
	}
	if len(f.Params) != len(net.Params) {
		return nil, fmt.Errorf("params: %d values, hidden %v needs %d", len(f.Params), f.Hidden, len(net.Params))
	}
	copy(net.Params, f.Params)
	if f.Info == nil {
		f.Info = map[string]string{}
	}
	return &Model{Net: net, Reward: f.Reward, Info: f.Info}, nil
}

// fills reports whether params values can fill a network of inputs
// features and the hidden widths, without computing a count that would
// overflow. A width that is not positive passes, for NewNetwork to refuse
// with its reason.
func fills(inputs int, hidden []int, params int) bool {
	in, c := inputs, 0
	for _, out := range append(slices.Clone(hidden), 1) {
		if out <= 0 {
			return true
		}
		if out > params {
			return false
		}
		// in and out are at most params, which the file's length bounds,
		// so the product does not overflow.
		c += 2*in*out + out
		if c > params {
			return false
		}
		in = out
	}
	return c == params
}

// Load reads the model file at path; see Read.
func Load(path string) (*Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("failed to open model file: %w", err)
	}
	defer f.Close()
	m, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("model file %s: %w", path, err)
	}
	return m, nil
}
