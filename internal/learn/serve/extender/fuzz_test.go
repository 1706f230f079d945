package extender_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"testing"

	corev1 "k8s.io/api/core/v1"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"

	"github.com/meridian-dev/meridian/internal/learn"
	"github.com/meridian-dev/meridian/internal/learn/serve"
	"github.com/meridian-dev/meridian/internal/learn/serve/extender"
	"github.com/meridian-dev/meridian/internal/traffic"
)

// FuzzHandler posts arbitrary bodies to the extender's /filter and
// /prioritize, as kube-scheduler (or anyone who reaches the port) does:
// the handler must not panic, must refuse what is not an ExtenderArgs with
// 400, and its answers must be about exactly the nodes asked: every
// prioritized node once, in order, with a score in [0, 100]; every
// filtered node passed or failed, none invented.
func FuzzHandler(f *testing.F) {
	cache := extender.NewCache()
	for _, s := range testNodes {
		cache.SetNode(node(s))
	}
	cache.SetPod(pod("a", "near-small", "4", "8Gi", nil))
	latency := &traffic.Static{}
	measured := map[string]float64{}
	for _, s := range testNodes {
		if s.latencyMs >= 0 {
			measured[s.name] = s.latencyMs
		}
	}
	latency.Set(serve.SourceWorkload, measured)
	metrics := serve.NewMetricsFrom(serve.Sources{Latency: latency}, 0)
	if err := metrics.Refresh(f.Context()); err != nil {
		f.Fatal(err)
	}
	model, err := learn.NewModel(learn.DefaultHidden, 7)
	if err != nil {
		f.Fatal(err)
	}
	h := extender.New(model, cache, metrics).Handler()

	names := []string{"far", "mid", "near-small", "not-cached"}
	limited := pod("web", "", "1", "2Gi", map[string]string{serve.AnnotationSoftLatency: "20", serve.AnnotationHardLatency: "30"})
	for _, args := range []extenderv1.ExtenderArgs{
		{Pod: limited, NodeNames: &names},
		{Pod: pod("batch", "", "3", "3Gi", nil), Nodes: &corev1.NodeList{Items: []corev1.Node{*node(testNodes[0]), *node(testNodes[3])}}},
		{Pod: pod("bad", "", "1", "1Gi", map[string]string{serve.AnnotationHardLatency: "-1"}), NodeNames: &names},
		{NodeNames: &names},
	} {
		body, err := json.Marshal(args)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(false, body)
		f.Add(true, body)
	}
	f.Add(true, []byte(`{"pod":{"spec":{"containers":[{"resources":{"requests":{"cpu":"1e100"}}}]}},"nodenames":["mid","mid"]}`))
	f.Fuzz(func(t *testing.T, filter bool, body []byte) {
		path := extender.PathPrioritize
		if filter {
			path = extender.PathFilter
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequestWithContext(t.Context(), http.MethodPost, path, bytes.NewReader(body)))
		var args extenderv1.ExtenderArgs
		decodes := json.Unmarshal(body, &args) == nil
		switch {
		case rec.Code == http.StatusBadRequest && !decodes:
			return
		case rec.Code == http.StatusInternalServerError && !filter && rec.Body.Len() > 0:
			return // the error kube-scheduler shows for the pod
		case rec.Code != http.StatusOK:
			t.Fatalf("POST %s answered %d: %s", path, rec.Code, rec.Body)
		}
		asked := askedNames(&args)
		if !filter {
			var list extenderv1.HostPriorityList
			if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil {
				t.Fatalf("prioritize answer is not a HostPriorityList: %v: %s", err, rec.Body)
			}
			got := make([]string, len(list))
			for i, hp := range list {
				got[i] = hp.Host
				if hp.Score < 0 || hp.Score > extenderv1.MaxExtenderPriority {
					t.Errorf("node %q scored %d", hp.Host, hp.Score)
				}
			}
			if !slices.Equal(got, asked) {
				t.Errorf("prioritized %v, asked %v", got, asked)
			}
			return
		}
		var res extenderv1.ExtenderFilterResult
		if err := json.Unmarshal(rec.Body.Bytes(), &res); err != nil {
			t.Fatalf("filter answer is not an ExtenderFilterResult: %v: %s", err, rec.Body)
		}
		if res.Error != "" {
			return
		}
		var got []string
		if res.NodeNames != nil {
			got = append(got, *res.NodeNames...)
		}
		if res.Nodes != nil {
			for _, n := range res.Nodes.Items {
				got = append(got, n.Name)
			}
		}
		for name := range res.FailedAndUnresolvableNodes {
			got = append(got, name)
		}
		for name := range res.FailedNodes {
			got = append(got, name)
		}
		sort.Strings(got)
		want := slices.Clone(asked)
		sort.Strings(want)
		// A name asked twice fails (a map key) once.
		if !slices.Equal(slices.Compact(got), slices.Compact(want)) {
			t.Errorf("filter answered about %v, asked %v", got, want)
		}
	})
}

func askedNames(args *extenderv1.ExtenderArgs) []string {
	if args.NodeNames != nil {
		return *args.NodeNames
	}
	if args.Nodes == nil {
		return nil
	}
	var out []string
	for _, n := range args.Nodes.Items {
		out = append(out, n.Name)
	}
	return out
}
