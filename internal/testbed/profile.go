package testbed

import (
	"embed"
	"fmt"
	"math"
	"os"
	"path"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
)

// UniformProfile is the name of the profile made of identical members
// (Uniform); the others are read from profiles/*.yaml.
const UniformProfile = "uniform"

// DefaultPodsPerNode is the pod capacity of a node whose pool does not say.
const DefaultPodsPerNode = 110

// Profile is the layout of a testbed's members: their nodes, where they
// are, and the round-trip times between them. Profiles are data: the
// built-in ones are YAML files embedded from profiles/, and a profile file
// of the same shape can be given by path.
type Profile struct {
	// Name identifies the profile, as `--profile` takes it.
	Name string `json:"name"`
	// Description says in one line what the profile is.
	Description string `json:"description"`
	// Source says where the layout comes from.
	Source string `json:"source,omitempty"`
	// Clusters are the members; the management cluster is added by Up.
	Clusters []ClusterProfile `json:"clusters"`
	// LatencyMs is the round-trip time between members in milliseconds;
	// one direction of each pair is enough. When given, every pair must be.
	LatencyMs map[string]map[string]float64 `json:"latencyMs,omitempty"`
	// Sharing, when set, runs Meridian's sharing agents on the members it
	// names and peers them (SharingProfile).
	Sharing *SharingProfile `json:"sharing,omitempty"`
	// ControllerManager sets every cluster's kube-controller-manager client
	// limits; without it they are DefaultKubeAPIQPS and DefaultKubeAPIBurst.
	ControllerManager *ControllerManagerProfile `json:"controllerManager,omitempty"`
}

// ControllerManagerProfile is the client side of every cluster's
// kube-controller-manager.
type ControllerManagerProfile struct {
	// KubeAPIQPS and KubeAPIBurst are its --kube-api-qps and
	// --kube-api-burst (upstream's defaults are 20 and 30).
	KubeAPIQPS   int `json:"kubeAPIQPS"`
	KubeAPIBurst int `json:"kubeAPIBurst"`
}

// The testbed's kube-controller-manager client limits, as clusters sized
// for bursts raise them: with upstream's 20 requests a second (burst 30) a
// ReplicaSet's pods wait on the client once the burst is spent (10 pods
// created back to back: 0.72 s against 0.10 s, docs/testbed.md).
const (
	DefaultKubeAPIQPS   = 200
	DefaultKubeAPIBurst = 300
)

// controllerManagerLimits returns the profile's kube-controller-manager
// client limits, or the defaults.
func (p *Profile) controllerManagerLimits() (qps, burst int) {
	if cm := p.ControllerManager; cm != nil {
		return cm.KubeAPIQPS, cm.KubeAPIBurst
	}
	return DefaultKubeAPIQPS, DefaultKubeAPIBurst
}

// ClusterProfile is one member cluster of a profile.
type ClusterProfile struct {
	// Name is the cluster's name: the Cluster object, the kubeconfig
	// context suffix and the folder under the testbed's.
	Name string `json:"name"`
	// Region and Zone go to the Cluster's spec and to every node's
	// topology.kubernetes.io labels.
	Region string `json:"region"`
	Zone   string `json:"zone,omitempty"`
	// GridZone is the electricity grid zone, as Cluster.spec.gridZone.
	GridZone string `json:"gridZone,omitempty"`
	// Coordinates locate the cluster, as Cluster.spec.coordinates.
	Coordinates *multiclusterv1alpha1.Coordinates `json:"coordinates,omitempty"`
	// Labels go to the Cluster object's metadata.
	Labels map[string]string `json:"labels,omitempty"`
	// Nodes are the cluster's worker nodes, in pools of identical nodes.
	Nodes []NodePool `json:"nodes"`
}

// NodePool is a group of identical fake nodes.
type NodePool struct {
	Count  int               `json:"count"`
	CPU    resource.Quantity `json:"cpu"`
	Memory resource.Quantity `json:"memory"`
	// Pods is each node's pod capacity; DefaultPodsPerNode when zero.
	Pods int64 `json:"pods,omitempty"`
}

// NodeCount is the number of nodes of the cluster.
func (c *ClusterProfile) NodeCount() int {
	n := 0
	for _, p := range c.Nodes {
		n += p.Count
	}
	return n
}

// String describes the pool as "5 × 4 CPU / 16Gi".
func (p NodePool) String() string {
	return fmt.Sprintf("%d × %s CPU / %s", p.Count, p.CPU.String(), p.Memory.String())
}

// Latency returns the declared round-trip time between two members, and
// whether the profile declares one.
func (p *Profile) Latency(a, b string) (time.Duration, bool) {
	if ms, ok := p.LatencyMs[a][b]; ok {
		return msToDuration(ms), true
	}
	if ms, ok := p.LatencyMs[b][a]; ok {
		return msToDuration(ms), true
	}
	return 0, false
}

func msToDuration(ms float64) time.Duration {
	return time.Duration(math.Round(ms * float64(time.Millisecond)))
}

// UniformOptions size the uniform profile.
type UniformOptions struct {
	// Clusters is the number of members, named member-1, member-2, ...
	Clusters int
	// Nodes per member; 3 when zero.
	Nodes int
	// CPU and Memory of each node; 4 and 16Gi when zero.
	CPU    resource.Quantity
	Memory resource.Quantity
}

// uniformStepMs is the round-trip time between neighbouring uniform
// members: member-i and member-j are |i-j| steps apart, so nearest-first
// policies have a well-defined order on a uniform testbed too.
const uniformStepMs = 2.0

// Uniform returns a profile of o.Clusters identical members in region
// "local", one zone each, on a line uniformStepMs apart.
func Uniform(o UniformOptions) *Profile {
	if o.Nodes == 0 {
		o.Nodes = 3
	}
	if o.CPU.IsZero() {
		o.CPU = resource.MustParse("4")
	}
	if o.Memory.IsZero() {
		o.Memory = resource.MustParse("16Gi")
	}
	p := &Profile{
		Name: UniformProfile,
		Description: fmt.Sprintf("%d identical members of %d nodes (%s CPU / %s each), %gms apart on a line",
			o.Clusters, o.Nodes, o.CPU.String(), o.Memory.String(), uniformStepMs),
		Source:    "synthetic",
		LatencyMs: map[string]map[string]float64{},
	}
	for i := 1; i <= o.Clusters; i++ {
		name := fmt.Sprintf("member-%d", i)
		p.Clusters = append(p.Clusters, ClusterProfile{
			Name:   name,
			Region: "local",
			Zone:   fmt.Sprintf("local-%d", i),
			Nodes:  []NodePool{{Count: o.Nodes, CPU: o.CPU, Memory: o.Memory}},
		})
		for j := i + 1; j <= o.Clusters; j++ {
			if p.LatencyMs[name] == nil {
				p.LatencyMs[name] = map[string]float64{}
			}
			p.LatencyMs[name][fmt.Sprintf("member-%d", j)] = uniformStepMs * float64(j-i)
		}
	}
	return p
}

//go:embed profiles/*.yaml
var builtinProfiles embed.FS

// Profiles returns the built-in profiles read from profiles/*.yaml, sorted
// by name. The uniform profile is not among them: it is sized by flags
// (Uniform).
func Profiles() ([]*Profile, error) {
	entries, err := builtinProfiles.ReadDir("profiles")
	if err != nil {
		return nil, fmt.Errorf("failed to list built-in profiles: %w", err)
	}
	var out []*Profile
	for _, e := range entries {
		data, err := builtinProfiles.ReadFile(path.Join("profiles", e.Name()))
		if err != nil {
			return nil, fmt.Errorf("failed to read built-in profile %s: %w", e.Name(), err)
		}
		p, err := ParseProfile(data)
		if err != nil {
			return nil, fmt.Errorf("built-in profile %s: %w", e.Name(), err)
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// LoadProfile returns the built-in profile of that name, or reads a
// profile file when name is a path (it contains a slash or ends in .yaml).
func LoadProfile(name string) (*Profile, error) {
	if strings.Contains(name, "/") || strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml") {
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("failed to read profile file: %w", err)
		}
		p, err := ParseProfile(data)
		if err != nil {
			return nil, fmt.Errorf("profile file %s: %w", name, err)
		}
		return p, nil
	}
	all, err := Profiles()
	if err != nil {
		return nil, err
	}
	names := []string{UniformProfile}
	for _, p := range all {
		if p.Name == name {
			return p, nil
		}
		names = append(names, p.Name)
	}
	return nil, fmt.Errorf("%w %q: valid profiles are %s, or a path to a profile file",
		ErrUnknownProfile, name, strings.Join(names, ", "))
}

// ParseProfile decodes a profile from YAML, refusing unknown fields, and
// validates it.
func ParseProfile(data []byte) (*Profile, error) {
	p := &Profile{}
	if err := yaml.UnmarshalStrict(data, p); err != nil {
		return nil, fmt.Errorf("failed to decode profile: %w", err)
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return p, nil
}
