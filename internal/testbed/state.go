package testbed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// Role says what a cluster is for.
type Role string

// Roles of a testbed's clusters.
const (
	RoleManagement Role = "management"
	RoleMember     Role = "member"
)

// Phases of a testbed as testbed.json records them.
const (
	PhaseStarting = "Starting"
	PhaseUp       = "Up"
	PhaseFailed   = "Failed"
)

// state is testbed.json: what Up decided, so that Status and Down work
// from another process, even after Up died half-way.
type state struct {
	Name              string         `json:"name"`
	Profile           string         `json:"profile"`
	BinDir            string         `json:"binDir"`
	KubernetesVersion string         `json:"kubernetesVersion"`
	Phase             string         `json:"phase"`
	StartedAt         time.Time      `json:"startedAt"`
	Clusters          []clusterState `json:"clusters"`
}

type clusterState struct {
	Name string `json:"name"`
	// Index numbers the clusters: 0 for the management cluster, 1 and up
	// for the members in profile order, then the added ones. Addresses
	// derive from it.
	Index int   `json:"index"`
	Role  Role  `json:"role"`
	Ports Ports `json:"ports"`
	// Nodes is the number of nodes the profile gave a member.
	Nodes int `json:"nodes"`
	// Region and Zone label a member's nodes.
	Region string `json:"region,omitempty"`
	Zone   string `json:"zone,omitempty"`
	// SchedulerConfig is the member's kube-scheduler configuration, when
	// it has its own (ClusterSpec.SchedulerConfig).
	SchedulerConfig string `json:"schedulerConfig,omitempty"`
	// SchedulerBinary is the member's own kube-scheduler binary, when it
	// has one (ClusterSpec.SchedulerBinary).
	SchedulerBinary string `json:"schedulerBinary,omitempty"`
	// KubeAPIQPS and KubeAPIBurst are the kube-controller-manager's client
	// limits (Profile.ControllerManager); zero in a state written before
	// they were recorded, which means the defaults.
	KubeAPIQPS   int `json:"kubeAPIQPS,omitempty"`
	KubeAPIBurst int `json:"kubeAPIBurst,omitempty"`
	// Added is true for a member AddCluster started on the running
	// testbed, outside its profile.
	Added bool `json:"added,omitempty"`
	// Phase is an added member's: Starting, Up or Failed.
	Phase string `json:"phase,omitempty"`
}

func (s *clusterState) server() string {
	return fmt.Sprintf("https://127.0.0.1:%d", s.Ports.KubeAPIServer)
}

// find returns the state of the cluster of that name; the error wraps
// ErrClusterNotFound when there is none.
func (s *state) find(name string) (*clusterState, error) {
	if cs := s.cluster(name); cs != nil {
		return cs, nil
	}
	return nil, fmt.Errorf("%w: testbed %q has no cluster %q", ErrClusterNotFound, s.Name, name)
}

// readStateIn resolves dir and reads the state recorded there, without the
// lock: for reading only.
func readStateIn(dir string) (layout, *state, error) {
	l, err := openLayout(dir)
	if err != nil {
		return l, nil, err
	}
	st, err := l.readState()
	return l, st, err
}

// cluster returns the state of the cluster of that name, nil if there is
// none.
func (s *state) cluster(name string) *clusterState {
	for i := range s.Clusters {
		if s.Clusters[i].Name == name {
			return &s.Clusters[i]
		}
	}
	return nil
}

func (l layout) writeState(s *state) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("failed to encode testbed state: %w", err)
	}
	tmp := l.stateFile() + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("failed to write testbed state: %w", err)
	}
	if err := os.Rename(tmp, l.stateFile()); err != nil {
		return fmt.Errorf("failed to write testbed state: %w", err)
	}
	return nil
}

// readState returns ErrNotFound when the folder holds no testbed.
func (l layout) readState() (*state, error) {
	data, err := os.ReadFile(l.stateFile())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w in %s", ErrNotFound, l.dir)
	}
	if err != nil {
		return nil, fmt.Errorf("failed to read testbed state: %w", err)
	}
	s := &state{}
	if err := json.Unmarshal(data, s); err != nil {
		return nil, fmt.Errorf("failed to decode %s: %w", l.stateFile(), err)
	}
	return s, nil
}

// lock takes the testbed's lock without waiting; the returned function
// releases it. The lock dies with its process, so a killed command never
// leaves the testbed locked. It is a lock on an open file, so two
// goroutines of one process exclude each other too.
func (l layout) lock() (func(), error) {
	if err := os.MkdirAll(l.dir, 0o700); err != nil {
		return nil, fmt.Errorf("failed to create testbed folder: %w", err)
	}
	f, err := os.OpenFile(l.lockFile(), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("failed to open testbed lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w: another meridian testbed command is working on %s; wait for it or stop it", ErrBusy, l.dir)
		}
		return nil, fmt.Errorf("failed to lock %s: %w", l.lockFile(), err)
	}
	return func() { _ = f.Close() }, nil
}

// lockWait takes the testbed's lock, waiting while another command or
// call holds it, until ctx ends. It does not create the folder: the
// calls that wait act on a testbed that exists.
func (l layout) lockWait(ctx context.Context) (func(), error) {
	if _, err := os.Stat(l.stateFile()); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w in %s", ErrNotFound, l.dir)
	}
	var unlock func()
	err := poll(ctx, 50*time.Millisecond, func() (bool, error) {
		var err error
		unlock, err = l.lock()
		if errors.Is(err, ErrBusy) {
			return false, nil
		}
		return err == nil, err
	})
	if err != nil {
		return nil, fmt.Errorf("failed to take the lock of the testbed in %s: %w", l.dir, err)
	}
	if _, err := os.Stat(l.stateFile()); errors.Is(err, fs.ErrNotExist) {
		// Down removed the testbed while this call waited, and taking the
		// lock made the folder again: leave nothing behind.
		_ = os.Remove(l.lockFile())
		_ = os.Remove(l.dir)
		unlock()
		return nil, fmt.Errorf("%w in %s", ErrNotFound, l.dir)
	}
	return unlock, nil
}

// clean removes everything in the folder but the lock, which the caller
// holds.
func (l layout) clean() error {
	entries, err := os.ReadDir(l.dir)
	if err != nil {
		return fmt.Errorf("failed to read testbed folder: %w", err)
	}
	for _, e := range entries {
		p := filepath.Join(l.dir, e.Name())
		if p == l.lockFile() {
			continue
		}
		if err := os.RemoveAll(p); err != nil {
			return fmt.Errorf("failed to remove %s: %w", p, err)
		}
	}
	return nil
}
