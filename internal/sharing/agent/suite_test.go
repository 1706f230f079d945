package agent_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/policy"
	"github.com/meridian-dev/meridian/internal/sharing/agent"
	"github.com/meridian-dev/meridian/internal/testenv"
	"github.com/meridian-dev/meridian/internal/virtualnode"
)

const agentNS = "meridian-system"

// peer makes, in from, the Peer for to: to writes into from's namespace
// ns, and from writes into to's namespace remoteNS with to's kubeconfig.
func peer(t *testing.T, from, to *testenv.Cluster, id sharingv1alpha1.ClusterID, role sharingv1alpha1.PeerRole, ns, remoteNS string, out *sharingv1alpha1.OutgoingPolicy) {
	t.Helper()
	peerVia(t, from, to.Kubeconfig, id, role, ns, remoteNS, out)
}

// peerVia is peer with the kubeconfig that reaches the peer (through a
// proxy, for a test that cuts the network).
func peerVia(t *testing.T, from *testenv.Cluster, kubeconfig []byte, id sharingv1alpha1.ClusterID, role sharingv1alpha1.PeerRole, ns, remoteNS string, out *sharingv1alpha1.OutgoingPolicy) {
	t.Helper()
	cfg, err := clientcmd.Load(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cfg.Contexts {
		c.Namespace = remoteNS
	}
	kc, err := clientcmd.Write(*cfg)
	if err != nil {
		t.Fatal(err)
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "peer-" + string(id), Namespace: agentNS}, Data: map[string][]byte{"kubeconfig": kc}}
	if err := from.Client.Create(t.Context(), secret); err != nil {
		t.Fatal(err)
	}
	p := &sharingv1alpha1.Peer{
		ObjectMeta: metav1.ObjectMeta{Name: string(id), Namespace: agentNS},
		Spec: sharingv1alpha1.PeerSpec{
			ClusterID: id, Role: role, APIServer: "https://" + string(id) + ".example",
			CredentialsSecretRef: sharingv1alpha1.SecretReference{Name: secret.Name},
			Identity:             sharingv1alpha1.PeerIdentity{Username: "system:serviceaccount:" + ns + ":agent"},
			Namespace:            ns, Outgoing: out,
		},
	}
	if err := from.Client.Create(t.Context(), p); err != nil {
		t.Fatalf("failed to create peer %s in %s: %v", id, from.Name, err)
	}
}

// node makes a Ready node with allocatable cpu and memory.
func node(t *testing.T, c *testenv.Cluster, name, cpu, mem string) {
	t.Helper()
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelArchStable: "amd64", corev1.LabelOSStable: "linux"}}}
	if err := c.Client.Create(t.Context(), n); err != nil {
		t.Fatal(err)
	}
	rl := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem), corev1.ResourcePods: resource.MustParse("110")}
	n.Status = corev1.NodeStatus{Capacity: rl, Allocatable: rl, Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", LastHeartbeatTime: metav1.Now()}}}
	if err := c.Client.Status().Update(t.Context(), n); err != nil {
		t.Fatal(err)
	}
}

// startAgent runs the agent of cluster c as id until the returned stop is
// called or t ends.
func startAgent(t *testing.T, c *testenv.Cluster, id sharingv1alpha1.ClusterID, with ...func(*agent.Options)) (stop func()) {
	t.Helper()
	skip := true
	// The agent runs with the rights its markers generate, as the chart
	// grants them, so a use its markers miss fails here.
	mgr, err := ctrl.NewManager(c.ComponentConfig(t, "agent"), ctrl.Options{
		Scheme: testenv.Scheme(), Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Controller: config.Controller{SkipNameValidation: &skip},
	})
	if err != nil {
		t.Fatal(err)
	}
	engine, err := policy.New(t.Context(), policy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	opts := agent.Options{ClusterID: id, Namespace: agentNS, PollInterval: 300 * time.Millisecond, AuctionWindow: 3 * time.Second, OfferHold: 5 * time.Second}
	for _, w := range with {
		w(&opts)
	}
	if err := agent.Setup(mgr, opts, engine, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := agent.SetupVirtualNodes(mgr, opts, virtualnode.Options{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := mgr.Start(ctx); err != nil {
			t.Errorf("agent %s stopped with error: %v", id, err)
		}
	}()
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			cancel()
			<-done
		}
	}
	t.Cleanup(stop)
	return stop
}

func eur(amount string) []sharingv1alpha1.Price {
	return []sharingv1alpha1.Price{{Resource: "cpu", Amount: resource.MustParse(amount), Currency: "EUR", Unit: resource.MustParse("1"), Period: sharingv1alpha1.PeriodHour}}
}
