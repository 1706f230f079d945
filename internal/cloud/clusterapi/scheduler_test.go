package clusterapi

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

// TestSchedulerConfig reads the cloud cluster's kube-scheduler
// configuration as kube-scheduler would and checks that it packs.
func TestSchedulerConfig(t *testing.T) {
	var cfg struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Profiles   []struct {
			SchedulerName string `json:"schedulerName"`
			PluginConfig  []struct {
				Name string `json:"name"`
				Args struct {
					ScoringStrategy struct {
						Type string `json:"type"`
					} `json:"scoringStrategy"`
				} `json:"args"`
			} `json:"pluginConfig"`
		} `json:"profiles"`
	}
	if err := yaml.Unmarshal([]byte(schedulerConfig), &cfg); err != nil {
		t.Fatalf("parse: %v", err)
	}
	type got struct{ APIVersion, Kind, Scheduler, Plugin, Strategy string }
	g := got{APIVersion: cfg.APIVersion, Kind: cfg.Kind}
	if len(cfg.Profiles) == 1 && len(cfg.Profiles[0].PluginConfig) == 1 {
		p := cfg.Profiles[0]
		g.Scheduler, g.Plugin, g.Strategy = p.SchedulerName, p.PluginConfig[0].Name, p.PluginConfig[0].Args.ScoringStrategy.Type
	}
	want := got{"kubescheduler.config.k8s.io/v1", "KubeSchedulerConfiguration", "default-scheduler", "NodeResourcesFit", "MostAllocated"}
	if diff := cmp.Diff(want, g); diff != "" {
		t.Errorf("scheduler configuration (-want +got):\n%s", diff)
	}
}
