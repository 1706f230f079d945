package brokered_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/policy"
	"github.com/meridian-dev/meridian/internal/sharing/agent"
	"github.com/meridian-dev/meridian/internal/testenv"
)

const agentNS = "meridian-system"

// clientOf is a client that authenticates with kubeconfig (a service
// account token), so RBAC applies to what it writes.
func clientOf(t *testing.T, kubeconfig []byte) client.Client {
	t.Helper()
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, client.Options{Scheme: testenv.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// brokerPeer makes, in member c, the Peer for the broker: the member
// writes into the broker with atBroker (Onboard's kubeconfig), the broker
// writes into the member's namespace "from-broker".
func brokerPeer(t *testing.T, c *testenv.Cluster, role sharingv1alpha1.PeerRole, atBroker []byte, out *sharingv1alpha1.OutgoingPolicy) {
	t.Helper()
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "broker", Namespace: agentNS}, Data: map[string][]byte{"kubeconfig": atBroker}}
	if err := c.Client.Create(t.Context(), secret); err != nil {
		t.Fatal(err)
	}
	p := &sharingv1alpha1.Peer{
		ObjectMeta: metav1.ObjectMeta{Name: "broker", Namespace: agentNS},
		Spec: sharingv1alpha1.PeerSpec{
			ClusterID: "broker", Role: role, Broker: true, APIServer: "https://broker.example",
			CredentialsSecretRef: sharingv1alpha1.SecretReference{Name: secret.Name},
			Identity:             sharingv1alpha1.PeerIdentity{Username: "system:serviceaccount:from-broker:broker"},
			Namespace:            "from-broker", Outgoing: out,
		},
	}
	if err := c.Client.Create(t.Context(), p); err != nil {
		t.Fatalf("failed to create the broker's peer in %s: %v", c.Name, err)
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

// startAgent runs the sharing agent of member c as id until t ends.
func startAgent(t *testing.T, c *testenv.Cluster, id sharingv1alpha1.ClusterID, with func(*agent.Options)) {
	t.Helper()
	skip := true
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
	opts := agent.Options{ClusterID: id, Namespace: agentNS, PollInterval: 300 * time.Millisecond}
	if with != nil {
		with(&opts)
	}
	if err := agent.Setup(mgr, opts, engine, nil); err != nil {
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
	t.Cleanup(func() { cancel(); <-done })
}

func eur(amount string) []sharingv1alpha1.Price {
	return []sharingv1alpha1.Price{{Resource: "cpu", Amount: resource.MustParse(amount), Currency: "EUR", Unit: resource.MustParse("1"), Period: sharingv1alpha1.PeriodHour}}
}

func rl(cpu, mem string) map[corev1.ResourceName]resource.Quantity {
	out := map[corev1.ResourceName]resource.Quantity{}
	if cpu != "" {
		out[corev1.ResourceCPU] = resource.MustParse(cpu)
	}
	if mem != "" {
		out[corev1.ResourceMemory] = resource.MustParse(mem)
	}
	return out
}
