package advisor

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/meridian-dev/meridian/internal/optimizer"
)

// KnowledgeBase is what persists between runs: which metrics the samples
// hold, and the samples.
type KnowledgeBase struct {
	Inputs  []string           `json:"inputs"`
	Target  string             `json:"target"`
	Samples []optimizer.Sample `json:"samples"`
}

// Holds reports whether kb's samples are of the metrics cfg names: its
// inputs in the same order, and its target.
func (kb *KnowledgeBase) Holds(cfg optimizer.Config) bool {
	return slices.Equal(kb.Inputs, cfg.Inputs) && kb.Target == cfg.Target.Name
}

// Store keeps the knowledge base.
type Store interface {
	// Load returns the stored knowledge base, nil if there is none.
	Load() (*KnowledgeBase, error)
	// Save replaces the stored knowledge base.
	Save(*KnowledgeBase) error
}

// FileStore keeps the knowledge base in one JSON file, replaced atomically
// (written beside it, then renamed) so a crash leaves the old or the new one.
type FileStore struct {
	Path string
}

// Load reads the file; a missing file is no knowledge base.
func (s FileStore) Load() (*KnowledgeBase, error) {
	data, err := os.ReadFile(s.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("failed to read the knowledge base: %w", err)
	}
	var kb KnowledgeBase
	if err := json.Unmarshal(data, &kb); err != nil {
		return nil, fmt.Errorf("failed to parse the knowledge base %s: %w", s.Path, err)
	}
	return &kb, nil
}

// Save writes the file.
func (s FileStore) Save(kb *KnowledgeBase) error {
	data, err := json.Marshal(kb)
	if err != nil {
		return fmt.Errorf("failed to encode the knowledge base: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.Path), ".kb-*.json")
	if err != nil {
		return fmt.Errorf("failed to write the knowledge base: %w", err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("failed to write the knowledge base: %w", err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("failed to write the knowledge base: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.Path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("failed to replace the knowledge base %s: %w", s.Path, err)
	}
	return nil
}

// MemStore keeps the knowledge base in memory.
type MemStore struct {
	mu sync.Mutex
	kb *KnowledgeBase
}

// Load returns a copy of the stored knowledge base.
func (s *MemStore) Load() (*KnowledgeBase, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.kb == nil {
		return nil, nil
	}
	c := *s.kb
	c.Samples = slices.Clone(c.Samples)
	return &c, nil
}

// Save stores a copy of kb.
func (s *MemStore) Save(kb *KnowledgeBase) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := *kb
	c.Samples = slices.Clone(c.Samples)
	s.kb = &c
	return nil
}
