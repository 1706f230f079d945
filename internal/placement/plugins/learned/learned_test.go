package learned_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meridian-dev/meridian/internal/learn"
	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/placement/plugins"
	"github.com/meridian-dev/meridian/internal/placement/plugins/learned"
	"github.com/meridian-dev/meridian/internal/placement/plugins/nearestfirst"
)

const gi = 1 << 30

// member returns a cluster of n nodes of 4 CPU and 16 GiB, each with
// freeMilli CPU free.
func member(name string, n int, freeMilli int64, cloud bool) placement.Cluster {
	c := placement.Cluster{Name: name, Ready: true, Cloud: cloud}
	for i := range n {
		c.Nodes = append(c.Nodes, placement.Node{
			Name:        fmt.Sprintf("%s-%d", name, i),
			Allocatable: placement.Resources{MilliCPU: 4000, Memory: 16 * gi, Pods: 110},
			Requested:   placement.Resources{MilliCPU: 4000 - freeMilli, Memory: 4 * gi, Pods: 5},
		})
	}
	return c
}

func workload(replicas int32) *placement.Workload {
	return &placement.Workload{Key: "default/w", Kind: placement.KindDeployment, Replicas: replicas,
		PodRequests: placement.Resources{MilliCPU: 500, Memory: gi, Pods: 1}, Policy: placement.PolicyWorstFit, Bursting: true}
}

func model(t *testing.T, seed uint64) *learn.ClusterModel {
	t.Helper()
	m, err := learn.NewClusterModel(learn.DefaultClusterHidden, seed)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// scores runs the plugin over the clusters as the framework does.
func scores(t *testing.T, p *learned.Learned, w *placement.Workload, s *placement.Snapshot) []int64 {
	t.Helper()
	out := make([]int64, len(s.Clusters))
	for i, c := range s.Clusters {
		v, st := p.Score(t.Context(), w, c, s)
		if !st.IsSuccess() {
			t.Fatalf("Score(%s) status = %+v", c.Name, st)
		}
		out[i] = v
	}
	if st := p.NormalizeScore(t.Context(), w, s.Clusters, out); !st.IsSuccess() {
		t.Fatalf("NormalizeScore() status = %+v", st)
	}
	return out
}

func TestMaskedClusterIsNeverRankedFirst(t *testing.T) {
	// "full" passed the filters (the workload runs there) but holds no
	// further replica; random models rank it first now and then by their
	// Q-values, and the mask must still give it MinScore.
	s := placement.NewSnapshot([]placement.Cluster{
		member("a", 3, 2000, false), member("b", 5, 1000, false), member("full", 8, 0, false), member("d", 2, 4000, false),
	}, nil, nil)
	w := workload(3)
	w.Current = map[string]int32{"full": 2}
	full := slices.IndexFunc(s.Clusters, func(c *placement.ClusterInfo) bool { return c.Name == "full" })
	fullWouldWin := 0
	for seed := range uint64(40) {
		m := model(t, seed)
		got := scores(t, learned.NewWithModel(m), w, s)
		if got[full] != placement.MinScore {
			t.Fatalf("seed %d: the cluster without room scored %d, want %d (scores %v)", seed, got[full], placement.MinScore, got)
		}
		if !slices.Contains(got, placement.MaxScore) {
			t.Fatalf("seed %d: no feasible cluster scored %d: %v", seed, placement.MaxScore, got)
		}
		q := make([]float64, len(s.Clusters))
		states := make([]learn.ClusterState, len(s.Clusters))
		for i, c := range s.Clusters {
			states[i] = learned.State(w, c)
		}
		ws := learned.Workload(w)
		learn.NewClusterScorer(m).Score(&ws, states, q, nil)
		if slices.Index(q, slices.Max(q)) == full {
			fullWouldWin++
		}
	}
	if fullWouldWin == 0 {
		t.Errorf("no model ranked the masked cluster first by Q-value: the test does not exercise the mask")
	}
}

func TestEquivariantAcrossMemberOrder(t *testing.T) {
	clusters := []placement.Cluster{
		member("a", 3, 2000, false), member("b", 5, 1000, false), member("c", 8, 500, false),
		member("d", 2, 4000, false), member("cloud", 10, 4000, true),
	}
	w := workload(4)
	p := learned.NewWithModel(model(t, 7))
	s := placement.NewSnapshot(clusters, nil, nil)
	want := map[string]int64{}
	for i, v := range scores(t, p, w, s) {
		want[s.Clusters[i].Name] = v
	}
	// NormalizeScore sees the candidates in whatever order the framework
	// passes them; reversing and rotating them must move the scores along.
	for _, perm := range [][]int{{4, 3, 2, 1, 0}, {2, 3, 4, 0, 1}, {1, 0, 3, 2, 4}} {
		infos := make([]*placement.ClusterInfo, len(perm))
		for i, j := range perm {
			infos[i] = s.Clusters[j]
		}
		out := make([]int64, len(infos))
		if st := p.NormalizeScore(t.Context(), w, infos, out); !st.IsSuccess() {
			t.Fatalf("NormalizeScore() status = %+v", st)
		}
		got := map[string]int64{}
		for i, c := range infos {
			got[c.Name] = out[i]
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("order %v: scores by cluster (-want +got):\n%s", perm, diff)
		}
	}
}

func TestFactoryRefusesBadFiles(t *testing.T) {
	var good strings.Builder
	if err := model(t, 1).Write(&good); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		edit    func(string) string
		wantErr error
		want    string // the field the error names
	}{
		{name: "node model", edit: func(s string) string {
			return strings.Replace(s, learn.ClusterFormatVersion, learn.FormatVersion, 1)
		}, wantErr: learn.ErrFormatVersion, want: "format"},
		{name: "other schema version", edit: func(s string) string {
			return strings.Replace(s, learn.ClusterSchemaVersion, "meridian.learn.cluster-features/v0", 1)
		}, wantErr: learn.ErrSchema, want: "schema.version"},
		{name: "a column renamed", edit: func(s string) string {
			return strings.Replace(s, `"nodes_per_32"`, `"nodes"`, 1)
		}, wantErr: learn.ErrSchema, want: "schema.cluster"},
		{name: "a workload column renamed", edit: func(s string) string {
			return strings.Replace(s, `"replicas_per_100"`, `"replicas"`, 1)
		}, wantErr: learn.ErrSchema, want: "schema.workload"},
		{name: "params cut", edit: func(s string) string {
			return strings.Replace(s, `"params":[`, `"params":[1,`, 1)
		}, want: "params"},
		{name: "huge widths", edit: func(s string) string {
			return strings.Replace(s, `"hidden":[16,8]`, `"hidden":[100000,100000]`, 1)
		}, want: "params"},
		{name: "negative width", edit: func(s string) string {
			return strings.Replace(s, `"hidden":[16,8]`, `"hidden":[16,-8]`, 1)
		}, want: "hidden"},
	}
	dir := t.TempDir()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".json")
			bad := tc.edit(good.String())
			if bad == good.String() {
				t.Fatalf("the edit changed nothing")
			}
			if err := os.WriteFile(path, []byte(bad), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := learned.Factory(path)()
			if err == nil {
				t.Fatalf("Factory(%s)() succeeded, want an error naming %s", tc.name, tc.want)
			}
			if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Errorf("error %q is not %v", err, tc.wantErr)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name the field %q and the file", err, tc.want)
			}
		})
	}
	path := filepath.Join(dir, "good.json")
	if err := os.WriteFile(path, []byte(good.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := learned.Factory(path)(); err != nil {
		t.Errorf("Factory(good file)() = %v", err)
	}
}

func TestDefaultModelLoadsAndIsRegistered(t *testing.T) {
	p, err := plugins.NewRegistry()[learned.Name]()
	if err != nil {
		t.Fatalf("the registry's learned plugin: %v", err)
	}
	if got := p.(*learned.Learned).Model().Info["scenarioSeeds"]; got == "" {
		t.Errorf("the default model does not record the scenario seeds it was trained on")
	}
}

// TestPlacesViaFramework places with the learned plugin as a profile's
// score, as the controllers and the simulator do: all replicas go to the
// cluster the model ranks first among those that hold them all, and the
// decision records the plugin's scores.
func TestPlacesViaFramework(t *testing.T) {
	reg := plugins.NewRegistry()
	m := model(t, 11)
	reg[learned.Name] = func() (placement.Plugin, error) { return learned.NewWithModel(m), nil }
	fw, err := placement.NewFramework(reg, placement.Profile{
		Policy:  placement.PolicyWorstFit,
		Filters: plugins.Profiles()[0].Filters,
		Scores:  []placement.WeightedPlugin{{Name: learned.Name, Weight: plugins.PrimaryWeight}, {Name: nearestfirst.Name, Weight: plugins.TieBreakWeight}},
	})
	if err != nil {
		t.Fatal(err)
	}
	s := placement.NewSnapshot([]placement.Cluster{
		member("a", 3, 2000, false), member("b", 5, 1000, false), member("c", 2, 0, false),
		member("d", 4, 4000, false), member("cloud", 10, 4000, true),
	}, nil, nil)
	w := workload(6)
	d, err := fw.Place(t.Context(), s, w)
	if err != nil {
		t.Fatal(err)
	}
	// The model's own ranking of the clusters that passed the filters.
	var infos []*placement.ClusterInfo
	for i, r := range d.Clusters {
		if r.Filter == nil {
			infos = append(infos, s.Clusters[i])
		} else if r.Cluster != "c" {
			t.Errorf("cluster %s was filtered out (%s), want only c, which is full", r.Cluster, r.Filter.Reason)
		}
	}
	raw := make([]int64, len(infos))
	if st := learned.NewWithModel(m).NormalizeScore(t.Context(), w, infos, raw); !st.IsSuccess() {
		t.Fatal(st)
	}
	want, best := "", int64(-1)
	for i, c := range infos {
		if !c.Cloud && c.FitCount(w.PodRequests, nil) >= w.Replicas && raw[i] > best {
			want, best = c.Name, raw[i]
		}
	}
	if diff := cmp.Diff([]placement.Assignment{{Cluster: want, Replicas: 6, Role: placement.RoleSelected}}, d.Assignments); diff != "" {
		t.Errorf("assignments (-want +got):\n%s", diff)
	}
	for _, r := range d.Clusters {
		if r.Filter == nil && (len(r.Scores) == 0 || r.Scores[0].Plugin != learned.Name) {
			t.Errorf("cluster %s: scores %v do not record the learned plugin first", r.Cluster, r.Scores)
		}
	}
}

// TestRefusesPricesInTwoCurrencies: the model weighs the price per
// CPU-hour, so clusters priced in two currencies are refused, naming the
// field, never compared; unpriced clusters go with either.
func TestRefusesPricesInTwoCurrencies(t *testing.T) {
	priced := func(name, currency string) placement.Cluster {
		c := member(name, 2, 4000, false)
		if currency != "" {
			c.Prices = placement.Prices{CPUHour: 0.03, Currency: currency}
		}
		return c
	}
	tests := []struct {
		name     string
		clusters []placement.Cluster
		want     string
	}{
		{name: "one currency and an unpriced cluster", clusters: []placement.Cluster{priced("a", "EUR"), priced("b", ""), priced("c", "EUR")}},
		{name: "two currencies", clusters: []placement.Cluster{priced("a", "EUR"), priced("b", ""), priced("c", "USD")},
			want: `cluster "a" is priced in EUR and cluster "c" in USD: the learned scorer weighs prices, so spec.prices of every Cluster must be in one currency (or the workload another policy)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := placement.NewSnapshot(tc.clusters, nil, nil)
			raw := make([]int64, len(s.Clusters))
			st := learned.NewWithModel(model(t, 1)).NormalizeScore(t.Context(), workload(2), s.Clusters, raw)
			got := ""
			if !st.IsSuccess() {
				got = st.Reason
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("NormalizeScore reason (-want +got):\n%s", diff)
			}
		})
	}
}
