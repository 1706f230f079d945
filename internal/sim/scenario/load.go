package scenario

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/meridian-dev/meridian/internal/decide"
	"github.com/meridian-dev/meridian/internal/provision"
	"github.com/meridian-dev/meridian/internal/sim/workload"
)

//go:embed builtin
var builtin embed.FS

// Info names a built-in scenario.
type Info struct {
	Name        string
	Description string
}

// Builtins lists the built-in scenarios, by name.
func Builtins() ([]Info, error) {
	entries, err := fs.ReadDir(builtin, "builtin")
	if err != nil {
		return nil, fmt.Errorf("failed to list the built-in scenarios: %w", err)
	}
	var out []Info
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".yaml")
		if !ok {
			continue
		}
		s, err := Load(name)
		if err != nil {
			return nil, err
		}
		out = append(out, Info{Name: s.Name, Description: s.Description})
	}
	return out, nil
}

// Load reads a built-in scenario by name, or else a scenario file.
func Load(nameOrFile string) (*Scenario, error) {
	if !strings.ContainsAny(nameOrFile, `/\`) && !strings.HasSuffix(nameOrFile, ".yaml") && !strings.HasSuffix(nameOrFile, ".yml") {
		p := "builtin/" + nameOrFile + ".yaml"
		data, err := fs.ReadFile(builtin, p)
		if err != nil {
			names, _ := fs.Glob(builtin, "builtin/*.yaml")
			for i, n := range names {
				names[i] = strings.TrimSuffix(path.Base(n), ".yaml")
			}
			return nil, fmt.Errorf("no built-in scenario %q (built-in: %s; or give a file path)", nameOrFile, strings.Join(names, ", "))
		}
		return Parse(data, p, builtin, "builtin")
	}
	data, err := os.ReadFile(nameOrFile)
	if err != nil {
		return nil, fmt.Errorf("failed to read scenario: %w", err)
	}
	return Parse(data, nameOrFile, os.DirFS(filepath.Dir(nameOrFile)), ".")
}

var yamlLine = regexp.MustCompile(`line (\d+)`)

// Parse decodes, checks and completes a scenario; file names it in errors,
// and fsys/dir is where relative paths in it (the trace) are read. Every
// problem found is returned, joined, each with its position.
func Parse(data []byte, file string, fsys fs.FS, dir string) (*Scenario, error) {
	var root yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&root); err != nil {
		line := 1
		if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
			line, _ = strconv.Atoi(m[1])
		}
		return nil, &Error{File: file, Line: line, Column: 1, Err: fmt.Errorf("not valid YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))}
	}
	d := &decoder{file: file, positions: map[string]*yaml.Node{}}
	s := &Scenario{}
	d.decode(&root, "", reflect.ValueOf(s).Elem())
	var problems []problem
	if len(d.errs) == 0 {
		problems = validate(s)
	}
	if errs := d.fieldErrors(problems); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	s.File = file
	s.fsys, s.dir = fsys, dir
	s.traceLine = d.position("workload.trace").Line
	s.setDefaults()
	return s, nil
}

func (s *Scenario) setDefaults() {
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&s.SampleInterval, 10*time.Second)
	if s.Seed == nil {
		one := uint64(1)
		s.Seed = &one
	}
	for i := range s.Clusters {
		for j := range s.Clusters[i].Nodes {
			if s.Clusters[i].Nodes[j].Pods == 0 {
				s.Clusters[i].Nodes[j].Pods = 110
			}
		}
	}
	if c := s.Cloud; c != nil {
		c.MinNodes = max(c.MinNodes, 1)
		if c.MaxNodes == 0 {
			c.MaxNodes = max(20, c.MinNodes)
		}
		def(&c.ScaleDownDelay, 10*time.Minute)
		def(&c.DeprovisionDelay, 20*time.Minute)
		if c.ScaleDownUtilization == 0 {
			c.ScaleDownUtilization = 0.5
		}
		for i := range c.Flavors {
			if c.Flavors[i].Pods == 0 {
				c.Flavors[i].Pods = 110
			}
		}
	}
	for i := range s.Workload.Services {
		if a := s.Workload.Services[i].Autoscaler; a != nil {
			def(&a.CoolDown, 10*time.Minute)
		}
	}
	def(&s.Controllers.AutoscalerPeriod, 30*time.Second)
	def(&s.Controllers.ProvisionerPeriod, 30*time.Second)
	def(&s.Controllers.ReschedulerPeriod, time.Minute)
	def(&s.Controllers.PlacementRetry, 5*time.Second)
	def(&s.Controllers.PendingGrace, 30*time.Second)
	def(&s.Controllers.TrafficInterval, 30*time.Second)
	def(&s.Controllers.FailoverGrace, decide.DefaultTiming.FailoverGrace)
	for i := range s.Policies {
		p := &s.Policies[i]
		if p.TargetUtilization == 0 {
			p.TargetUtilization = provision.DefaultTargetUtilization
		}
		def(&p.TrendWindow, provision.DefaultTrendWindow)
	}
}

// Tasks returns the scenario's tasks for seed: generated, or read from the
// trace (which ignores the seed).
func (s *Scenario) Tasks(seed uint64) ([]workload.Task, error) {
	w := s.Workload
	switch {
	case w.Generator != nil:
		tasks, err := w.Generator.Generate(seed)
		if err != nil {
			return nil, fmt.Errorf("failed to generate the workload of %s: %w", s.File, err)
		}
		return tasks, nil
	case w.Trace != "":
		p := path.Join(s.dir, filepath.ToSlash(w.Trace))
		f, err := s.fsys.Open(p)
		if err != nil {
			return nil, &Error{File: s.File, Line: s.traceLine, Column: 1, Field: "workload.trace", Err: fmt.Errorf("failed to open the trace: %w", err)}
		}
		defer f.Close()
		known := func(name string) bool {
			for _, c := range s.Clusters {
				if c.Name == name {
					return true
				}
			}
			return false
		}
		return workload.ReadTrace(f, w.Trace, s.Duration, known)
	}
	return nil, nil
}
