package e2e_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/sharing/broker"
	"github.com/meridian-dev/meridian/internal/testbed"
	"github.com/meridian-dev/meridian/internal/testenv"
	"github.com/meridian-dev/meridian/internal/virtualnode"
)

// sharingWorld is a testbed of profile sharing: the consumer home and the
// providers big (virtual nodes of 4 CPU), small (twenty of 1 CPU) and
// pricey (refused by price), each with its `meridian agent` process, and
// the broker (`meridian broker`) whose state is in the management
// cluster, which big and pricey lend through and home borrows through.
type sharingWorld struct {
	dir                      string
	home, big, small, pricey client.Client
	// homeConfig and bigConfig reach home and big as their administrator.
	homeConfig, bigConfig *rest.Config
	// mgmt is the broker's API server, as its administrator.
	mgmt client.Client
	// homeNS holds the test's pods in home, twinNS their twins in every
	// provider.
	homeNS, twinNS string
}

// startSharing builds meridian, brings up the sharing testbed with the
// agents running that binary, and waits for the accepted providers'
// virtual nodes.
func startSharing(t *testing.T) *sharingWorld {
	t.Helper()
	if testing.Short() {
		t.Skip("skipping end-to-end test on real clusters in -short mode")
	}
	ctrllog.SetLogger(logr.Discard())
	bin := testenv.MeridianBinary(t)
	profile, err := testbed.LoadProfile("sharing")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "testbed")
	t.Cleanup(func() {
		if _, err := testbed.Down(context.Background(), dir); err != nil {
			t.Errorf("failed to stop the testbed: %v", err)
		}
	})
	begin := time.Now()
	tb, err := testbed.Up(t.Context(), testbed.Options{Name: "e2e", Dir: dir, Profile: profile, MeridianBinary: bin})
	if err != nil {
		t.Fatalf("failed to start the testbed: %v", err)
	}
	t.Logf("sharing testbed up in %s", time.Since(begin).Round(100*time.Millisecond))
	w := &sharingWorld{dir: dir, homeNS: "apps"}
	for name, c := range map[string]*client.Client{"home": &w.home, "big": &w.big, "small": &w.small, "pricey": &w.pricey, testbed.ManagementCluster: &w.mgmt} {
		if *c, err = tb.Cluster(name).Client(); err != nil {
			t.Fatal(err)
		}
	}
	w.homeConfig, w.bigConfig = tb.Cluster("home").Config, tb.Cluster("big").Config
	w.twinNS = virtualnode.TwinNamespace("home", w.homeNS)
	if err := w.home.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: w.homeNS}}); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 3*time.Minute, "virtual nodes of big (3) and small (20) Ready", func() string {
		got := w.readyVirtualNodes(t)
		return cmp.Diff(map[string]int{"big": 3, "small": 20}, got)
	})
	return w
}

// readyVirtualNodes counts home's Ready virtual nodes per provider.
func (w *sharingWorld) readyVirtualNodes(t *testing.T) map[string]int {
	var nodes corev1.NodeList
	if err := w.home.List(t.Context(), &nodes, client.MatchingLabels{sharingv1alpha1.LabelVirtualNode: "true"}); err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, n := range nodes.Items {
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
				out[n.Labels[sharingv1alpha1.LabelProvider]]++
			}
		}
	}
	return out
}

// offloaded is a pod that opts into virtual nodes (and only them), with
// requests, limits, env, command, ports and a ConfigMap volume.
func offloaded(name, cpu string, selector map[string]string) *corev1.Pod {
	sel := map[string]string{"type": "virtual-node"}
	for k, v := range selector {
		sel[k] = v
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: name, Labels: map[string]string{"app": name}},
		Spec: corev1.PodSpec{
			NodeSelector: sel,
			Tolerations:  []corev1.Toleration{{Key: sharingv1alpha1.TaintVirtualNode, Operator: corev1.TolerationOpExists}},
			Volumes: []corev1.Volume{{Name: "conf", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
				LocalObjectReference: corev1.LocalObjectReference{Name: "web-conf"}}}}},
			Containers: []corev1.Container{{
				Name: "web", Image: "nginx:1.27", Command: []string{"nginx"}, Args: []string{"-g", "daemon off;"},
				Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
				Env:   []corev1.EnvVar{{Name: "MODE", Value: "prod"}},
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("256Mi")},
					Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("512Mi")},
				},
				VolumeMounts: []corev1.VolumeMount{{Name: "conf", MountPath: "/etc/web"}},
			}},
		},
	}
}

// phase is "<home pod's phase>/<its twin's phase in provider>".
func (w *sharingWorld) phase(t *testing.T, name string, provider client.Client) string {
	pod := &corev1.Pod{}
	if err := w.home.Get(t.Context(), client.ObjectKey{Namespace: w.homeNS, Name: name}, pod); err != nil {
		return "home: " + err.Error()
	}
	twin := &corev1.Pod{}
	if err := provider.Get(t.Context(), client.ObjectKey{Namespace: w.twinNS, Name: name}, twin); err != nil {
		return "twin: " + err.Error()
	}
	return fmt.Sprintf("%s/%s", pod.Status.Phase, twin.Status.Phase)
}

// TestSharingOnTestbed: on real clusters (kube-scheduler places pods on
// virtual nodes, kwok runs the twins), a pod bound to a virtual node runs
// in the provider with its spec intact and its status flows back;
// deletion goes both ways; the consumer's agent killed in the middle of
// reflecting pods and started again leaves one twin per pod; and the
// provider of twenty 1-CPU nodes never gets a pod none of its nodes can
// run; and the broker answers queries with the providers' advertised
// capacity, runs home's auction, won by the cheapest fitting offer, which
// becomes a virtual node whose pod runs in the provider, and is killed
// and restarted without losing anything (sharingBroker).
func TestSharingOnTestbed(t *testing.T) {
	w := startSharing(t)
	ctx := t.Context()
	if err := w.home.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: w.homeNS, Name: "web-conf"}, Data: map[string]string{"web.conf": "listen 8080;"}}); err != nil {
		t.Fatal(err)
	}

	t.Run("spec intact, status back", func(t *testing.T) {
		pod := offloaded("web", "1", map[string]string{sharingv1alpha1.LabelProvider: "big"})
		if err := w.home.Create(ctx, pod); err != nil {
			t.Fatal(err)
		}
		testenv.Eventually(t, time.Minute, "web Running in big and in home", func() string {
			return cmp.Diff("Running/Running", w.phase(t, "web", w.big))
		})
		twin := &corev1.Pod{}
		if err := w.big.Get(ctx, client.ObjectKey{Namespace: w.twinNS, Name: "web"}, twin); err != nil {
			t.Fatal(err)
		}
		if err := w.home.Get(ctx, client.ObjectKeyFromObject(pod), pod); err != nil {
			t.Fatal(err)
		}
		want := offloaded("web", "1", nil).Spec.Containers[0]
		got := twin.Spec.Containers[0]
		got.TerminationMessagePath, got.TerminationMessagePolicy, got.ImagePullPolicy = "", "", ""
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("twin's container (-want +got):\n%s", diff)
		}
		if !strings.HasPrefix(pod.Spec.NodeName, "vn-big-") {
			t.Errorf("web bound to %q, want one of big's virtual nodes", pod.Spec.NodeName)
		}
		if pod.Status.PodIP == "" || pod.Status.PodIP != twin.Status.PodIP {
			t.Errorf("home pod IP %q, twin's %q: want the twin's", pod.Status.PodIP, twin.Status.PodIP)
		}
		if err := w.big.Get(ctx, client.ObjectKey{Namespace: w.twinNS, Name: "web-conf"}, &corev1.ConfigMap{}); err != nil {
			t.Errorf("the ConfigMap web reads is not in big: %v", err)
		}
	})

	t.Run("logs, exec, port-forward from home", func(t *testing.T) { kubeletOfOffloaded(t, w) })

	t.Run("deletion both ways", func(t *testing.T) {
		if err := w.home.Delete(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: w.homeNS, Name: "web"}}); err != nil {
			t.Fatal(err)
		}
		testenv.Eventually(t, time.Minute, "web gone from home and big", func() string {
			return cmp.Diff("home: not found/twin: not found", w.gone(t, "web", w.big))
		})
		pod := offloaded("web-2", "1", map[string]string{sharingv1alpha1.LabelProvider: "big"})
		if err := w.home.Create(ctx, pod); err != nil {
			t.Fatal(err)
		}
		testenv.Eventually(t, time.Minute, "web-2 Running", func() string { return cmp.Diff("Running/Running", w.phase(t, "web-2", w.big)) })
		if err := w.big.Delete(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: w.twinNS, Name: "web-2"}}); err != nil {
			t.Fatal(err)
		}
		testenv.Eventually(t, time.Minute, "web-2 Failed in home once its twin is deleted", func() string {
			if err := w.home.Get(ctx, client.ObjectKeyFromObject(pod), pod); err != nil {
				return err.Error()
			}
			return cmp.Diff("Failed/"+virtualnode.ReasonTwinDeleted, string(pod.Status.Phase)+"/"+pod.Status.Reason)
		})
	})

	t.Run("agent killed mid-reflection", func(t *testing.T) {
		const pods = 12
		for i := range pods {
			p := offloaded(fmt.Sprintf("batch-%d", i), "250m", map[string]string{sharingv1alpha1.LabelProvider: "small"})
			if err := w.home.Create(ctx, p); err != nil {
				t.Fatal(err)
			}
		}
		testenv.Eventually(t, time.Minute, "some twins made", func() string {
			if n := len(w.twins(t, w.small, "batch-")); n == 0 || n == pods {
				return fmt.Sprintf("%d twins", n)
			}
			return ""
		})
		t.Logf("killing home's agent with %d of %d twins made", len(w.twins(t, w.small, "batch-")), pods)
		if err := testbed.KillAgent(ctx, w.dir, "home"); err != nil {
			t.Fatal(err)
		}
		if err := testbed.StartAgent(w.dir, "home"); err != nil {
			t.Fatal(err)
		}
		testenv.Eventually(t, 2*time.Minute, "every batch pod Running, one twin each", func() string {
			want, got := map[string]string{}, map[string]string{}
			for i := range pods {
				name := fmt.Sprintf("batch-%d", i)
				want[name] = "Running/Running x1"
				got[name] = w.phase(t, name, w.small)
			}
			byUID := map[string]int{}
			for _, tw := range w.twins(t, w.small, "batch-") {
				byUID[tw.Labels[virtualnode.LabelOriginUID]]++
			}
			for i := range pods {
				p := &corev1.Pod{}
				name := fmt.Sprintf("batch-%d", i)
				if err := w.home.Get(ctx, client.ObjectKey{Namespace: w.homeNS, Name: name}, p); err == nil {
					got[name] += fmt.Sprintf(" x%d", byUID[string(p.UID)])
				}
			}
			return cmp.Diff(want, got)
		})
	})

	t.Run("no pod larger than a provider node", func(t *testing.T) {
		// 1.5 CPU fits none of small's 1-CPU virtual nodes: it stays
		// Pending when only small may take it, and goes to big otherwise.
		only := offloaded("wide-small", "1500m", map[string]string{sharingv1alpha1.LabelProvider: "small"})
		anywhere := offloaded("wide-any", "1500m", nil)
		for _, p := range []*corev1.Pod{only, anywhere} {
			if err := w.home.Create(ctx, p); err != nil {
				t.Fatal(err)
			}
		}
		testenv.Eventually(t, time.Minute, "wide-any Running in big", func() string {
			return cmp.Diff("Running/Running", w.phase(t, "wide-any", w.big))
		})
		testenv.Eventually(t, time.Minute, "wide-small unschedulable in home", func() string {
			if err := w.home.Get(ctx, client.ObjectKeyFromObject(only), only); err != nil {
				return err.Error()
			}
			for _, c := range only.Status.Conditions {
				if c.Type == corev1.PodScheduled && c.Reason == corev1.PodReasonUnschedulable {
					return ""
				}
			}
			return fmt.Sprintf("phase %s, node %q", only.Status.Phase, only.Spec.NodeName)
		})
		var twins corev1.PodList
		if err := w.small.List(ctx, &twins, client.HasLabels{sharingv1alpha1.LabelConsumer}); err != nil {
			t.Fatal(err)
		}
		for _, tw := range twins.Items {
			if cpu := tw.Spec.Containers[0].Resources.Requests.Cpu(); cpu.Cmp(resource.MustParse("1")) > 0 {
				t.Errorf("small got twin %s of %s CPU, more than any of its nodes has", tw.Name, cpu)
			}
			if tw.Status.Phase != corev1.PodRunning {
				t.Errorf("twin %s in small is %s, want every twin Running", tw.Name, tw.Status.Phase)
			}
		}
	})

	t.Run("broker: query, restart, auction", func(t *testing.T) { sharingBroker(t, w) })
}

// sharingBroker checks the broker of the sharing testbed: home's queries
// are answered with what big and pricey published to it, cheapest first;
// after the broker is killed (SIGKILL) and started again, its members and
// their advertisements are still there and decided, a query is answered
// again, and an auction home hands to it is won by the cheapest offer
// that fits, pricey's (big's spare capacity beside its holds and small's
// 1-CPU nodes, which it does not even publish to the broker, cannot run
// a 6-CPU pod), and becomes a virtual node whose pod runs in pricey.
func sharingBroker(t *testing.T, w *sharingWorld) {
	ctx := t.Context()
	testenv.Eventually(t, time.Minute, "members registered and advertisements listed at the broker", func() string {
		return cmp.Diff(map[string]string{
			"peer member-big/big": "Established", "peer member-pricey/pricey": "Established", "peer member-home/home": "Established",
			"adv member-big/big": "Accepted/Listed", "adv member-pricey/pricey": "Accepted/Listed",
		}, w.brokerTable(t))
	})
	secret := &corev1.Secret{}
	if err := w.home.Get(ctx, client.ObjectKey{Namespace: testbed.SharingNamespace, Name: "peer-" + testbed.DefaultBrokerID}, secret); err != nil {
		t.Fatal(err)
	}
	atBroker := secret.Data["kubeconfig"]
	query := func(cpu string) []string {
		t.Helper()
		q, err := broker.Ask(ctx, atBroker, sharingv1alpha1.CapacityQuerySpec{Requests: map[corev1.ResourceName]resource.Quantity{
			corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("1Gi")}}, 30*time.Second, true)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range q.Status.Matches {
			got = append(got, fmt.Sprintf("%s %d nodes", m.Provider, m.Nodes))
		}
		return got
	}
	// big publishes half of each 8-CPU node (4 CPU) at 0.04 EUR per
	// CPU-hour, pricey half of each 16-CPU node (8 CPU) at 0.25.
	if diff := cmp.Diff([]string{"big 3 nodes", "pricey 2 nodes"}, query("1")); diff != "" {
		t.Errorf("query for 1 CPU (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"pricey 2 nodes"}, query("5")); diff != "" {
		t.Errorf("query for 5 CPU (-want +got):\n%s", diff)
	}

	if err := testbed.KillBroker(ctx, w.dir); err != nil {
		t.Fatal(err)
	}
	before := w.brokerTable(t)
	if err := testbed.StartBroker(w.dir); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, w.brokerTable(t)); diff != "" || len(before) != 5 {
		t.Errorf("broker's table while it was down (-before kill +after restart), %d entries:\n%s", len(before), diff)
	}
	if diff := cmp.Diff([]string{"pricey 2 nodes"}, query("5")); diff != "" {
		t.Errorf("query for 5 CPU after the restart (-want +got):\n%s", diff)
	}

	pod := offloaded("brokered", "6", nil)
	if err := w.home.Create(ctx, pod); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, time.Minute, "home's auction closed by the broker", func() string {
		var list sharingv1alpha1.QuoteList
		if err := w.home.List(ctx, &list, client.InNamespace(testbed.SharingNamespace), client.MatchingLabels{virtualnode.LabelAuction: "true"}); err != nil {
			return err.Error()
		}
		for _, q := range list.Items {
			if q.Spec.AppID != "apps.brokered" {
				continue
			}
			c := meta.FindStatusCondition(q.Status.Conditions, sharingv1alpha1.QuoteAnswered)
			if c == nil {
				return "not answered yet"
			}
			if diff := cmp.Diff("True/Offered/pricey", string(c.Status)+"/"+c.Reason+"/"+string(q.Status.Provider)); diff != "" {
				return diff + c.Message
			}
			return ""
		}
		return "no auction of apps.brokered"
	})
	// big, cheaper, was asked too and had nothing that fits.
	var atBig sharingv1alpha1.QuoteList
	if err := w.big.List(ctx, &atBig, client.InNamespace(testbed.BrokerNamespace)); err != nil {
		t.Fatal(err)
	}
	var bigSaid []string
	for _, q := range atBig.Items {
		if c := meta.FindStatusCondition(q.Status.Conditions, sharingv1alpha1.QuoteAnswered); c != nil && q.Spec.AppID == "apps.brokered" {
			bigSaid = append(bigSaid, c.Reason)
		}
	}
	if diff := cmp.Diff([]string{sharingv1alpha1.QuoteReasonNoCapacity}, bigSaid); diff != "" {
		t.Errorf("big's answers to the quote the broker forwarded (-want +got):\n%s", diff)
	}
	testenv.Eventually(t, time.Minute, "brokered Running in pricey and in home", func() string {
		return cmp.Diff("Running/Running", w.phase(t, "brokered", w.pricey))
	})
	if err := w.home.Get(ctx, client.ObjectKeyFromObject(pod), pod); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(pod.Spec.NodeName, "vn-pricey-offer-") {
		t.Errorf("brokered bound to %q, want a virtual node of pricey's offer", pod.Spec.NodeName)
	}
}

// brokerTable is what the broker decided of its members' registrations
// and advertisements, as its administrator reads it.
func (w *sharingWorld) brokerTable(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	var peers sharingv1alpha1.PeerList
	if err := w.mgmt.List(t.Context(), &peers); err != nil {
		t.Fatal(err)
	}
	for _, p := range peers.Items {
		out["peer "+p.Namespace+"/"+p.Name] = string(p.Status.Phase)
	}
	var advs sharingv1alpha1.AdvertisementList
	if err := w.mgmt.List(t.Context(), &advs); err != nil {
		t.Fatal(err)
	}
	for _, a := range advs.Items {
		out["adv "+a.Namespace+"/"+a.Name] = string(a.Status.Decision) + "/" + string(a.Status.Reason)
	}
	return out
}

// gone says which of the home pod and its twin are gone.
func (w *sharingWorld) gone(t *testing.T, name string, provider client.Client) string {
	state := func(err error) string {
		switch {
		case err == nil:
			return "present"
		case apierrors.IsNotFound(err):
			return "not found"
		}
		return err.Error()
	}
	homeErr := w.home.Get(t.Context(), client.ObjectKey{Namespace: w.homeNS, Name: name}, &corev1.Pod{})
	twinErr := provider.Get(t.Context(), client.ObjectKey{Namespace: w.twinNS, Name: name}, &corev1.Pod{})
	return "home: " + state(homeErr) + "/twin: " + state(twinErr)
}

// twins are the twins in provider whose names start with prefix.
func (w *sharingWorld) twins(t *testing.T, provider client.Client, prefix string) []corev1.Pod {
	var list corev1.PodList
	if err := provider.List(t.Context(), &list, client.InNamespace(w.twinNS), client.MatchingLabels{sharingv1alpha1.LabelConsumer: "home"}); err != nil {
		t.Fatal(err)
	}
	var out []corev1.Pod
	for _, p := range list.Items {
		if strings.HasPrefix(p.Name, prefix) && p.DeletionTimestamp.IsZero() {
			out = append(out, p)
		}
	}
	return out
}
