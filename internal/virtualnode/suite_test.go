package virtualnode_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/testenv"
	"github.com/meridian-dev/meridian/internal/virtualnode"
)

const (
	consumerID   = "c1"
	providerID   = "p1"
	peerNS       = "peer-p1"
	workloadNS   = "shop"
	waitFor      = 60 * time.Second
	providerNode = "p1-node-1"
)

// harness is a consumer API server (the envtest management cluster, with
// Meridian's CRDs) and a provider API server (a member), the Peer of the
// provider in the consumer, and a fake kubelet in the provider that runs
// every twin.
type harness struct {
	env      *testenv.Env
	consumer client.Client
	provider client.Client
	opts     virtualnode.Options
}

func setup(tb testing.TB, opts virtualnode.Options) *harness {
	tb.Helper()
	env := testenv.Start(tb, testenv.Options{Members: 1})
	opts.ConsumerID, opts.ProviderID = consumerID, providerID
	h := &harness{env: env, consumer: env.Management.Client, provider: env.Members[0].Client, opts: opts}
	ctx := context.Background()
	for _, ns := range []string{peerNS, workloadNS} {
		create(tb, h.consumer, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	}
	create(tb, h.consumer, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: workloadNS, Name: "default"}})
	peer := &sharingv1alpha1.Peer{
		ObjectMeta: metav1.ObjectMeta{Namespace: peerNS, Name: providerID},
		Spec: sharingv1alpha1.PeerSpec{
			ClusterID: providerID, Role: sharingv1alpha1.RoleProvider, APIServer: "https://p1.example:6443",
			CredentialsSecretRef: sharingv1alpha1.SecretReference{Name: "p1-kubeconfig"},
			Identity:             sharingv1alpha1.PeerIdentity{Username: "system:serviceaccount:meridian:p1"}, Namespace: peerNS,
		},
	}
	create(tb, h.consumer, peer)
	h.setPeerPhase(tb, sharingv1alpha1.PeerEstablished)
	kctx, cancel := context.WithCancel(ctx)
	tb.Cleanup(cancel)
	go h.fakeKubelet(kctx)
	return h
}

func create(tb testing.TB, c client.Client, o client.Object) {
	tb.Helper()
	if err := c.Create(context.Background(), o); err != nil {
		tb.Fatalf("failed to create %T %s: %v", o, o.GetName(), err)
	}
}

func (h *harness) setPeerPhase(tb testing.TB, phase sharingv1alpha1.PeerPhase) {
	tb.Helper()
	peer := &sharingv1alpha1.Peer{}
	if err := h.consumer.Get(context.Background(), client.ObjectKey{Namespace: peerNS, Name: providerID}, peer); err != nil {
		tb.Fatal(err)
	}
	peer.Status.Phase = phase
	if err := h.consumer.Status().Update(context.Background(), peer); err != nil {
		tb.Fatal(err)
	}
}

// agent is one run of the agent: the provider's manager and the
// consumer's, as the agent command makes them.
type agent struct {
	consumer *testenv.Manager
	cancel   context.CancelFunc
	wg       sync.WaitGroup
}

// Stop stops the agent as a crash would.
func (a *agent) Stop() {
	a.consumer.Stop()
	a.cancel()
	a.wg.Wait()
}

func (h *harness) startAgent(tb testing.TB) *agent {
	tb.Helper()
	skip := true
	pm, err := ctrl.NewManager(h.env.Members[0].Config, ctrl.Options{
		Scheme: testenv.Scheme(), Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Controller: config.Controller{SkipNameValidation: &skip}, Cache: virtualnode.ProviderCacheOptions(consumerID),
	})
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	a := &agent{cancel: cancel}
	a.wg.Go(func() {
		if err := pm.Start(ctx); err != nil {
			tb.Errorf("provider manager stopped with error: %v", err)
		}
	})
	a.consumer = h.env.StartManagerAs(tb, "agent", func(mgr ctrl.Manager) error {
		return virtualnode.Setup(mgr, pm, h.opts)
	})
	tb.Cleanup(a.Stop)
	return a
}

// fakeKubelet runs the provider's twins: it binds every pending twin to a
// provider node and reports it Running with an IP, as the provider's
// scheduler and kubelet would.
func (h *harness) fakeKubelet(ctx context.Context) {
	ip := 0
	for ctx.Err() == nil {
		var pods corev1.PodList
		if err := h.provider.List(ctx, &pods, client.HasLabels{sharingv1alpha1.LabelConsumer}); err == nil {
			for i := range pods.Items {
				p := &pods.Items[i]
				if (p.Status.Phase != "" && p.Status.Phase != corev1.PodPending) || !p.DeletionTimestamp.IsZero() || p.Labels["test.meridian.dev/hold"] == "true" {
					continue
				}
				ip++
				now := metav1.Now()
				p.Status.Phase = corev1.PodRunning
				p.Status.PodIP = fmt.Sprintf("10.42.%d.%d", ip/250, ip%250+1)
				p.Status.PodIPs = []corev1.PodIP{{IP: p.Status.PodIP}}
				p.Status.HostIP = "192.168.7.1"
				p.Status.StartTime = &now
				p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now}}
				p.Status.ContainerStatuses = nil
				for _, c := range p.Spec.Containers {
					p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{
						Name: c.Name, Image: c.Image, Ready: true, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}},
					})
				}
				_ = h.provider.Status().Update(ctx, p)
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// advertise writes an accepted advertisement of one shape with count
// nodes of 2 CPU and 4Gi, valid for ttl from now.
func (h *harness) advertise(tb testing.TB, name, shape string, count int32, ttl time.Duration) {
	tb.Helper()
	if err := h.tryAdvertise(name, shape, count, ttl); err != nil {
		tb.Fatal(err)
	}
}

// tryAdvertise is advertise for goroutines other than the test's.
func (h *harness) tryAdvertise(name, shape string, count int32, ttl time.Duration) error {
	ctx := context.Background()
	adv := &sharingv1alpha1.Advertisement{
		ObjectMeta: metav1.ObjectMeta{Namespace: peerNS, Name: name},
		Spec: sharingv1alpha1.AdvertisementSpec{
			ClusterID: providerID, Consumer: consumerID, Type: sharingv1alpha1.AdvertisementFull, Region: "eu-west",
			Availability: []sharingv1alpha1.NodeShape{{Name: shape, Count: count, Resources: map[corev1.ResourceName]resource.Quantity{
				corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("4Gi"),
			}}},
			Prices:    []sharingv1alpha1.Price{{Resource: "cpu", Amount: resource.MustParse("0.031"), Currency: "EUR", Unit: resource.MustParse("1"), Period: sharingv1alpha1.PeriodHour}},
			Timestamp: metav1.Now(), TimeToLive: metav1.Duration{Duration: ttl},
		},
	}
	if err := h.consumer.Create(ctx, adv); err != nil {
		return fmt.Errorf("failed to create advertisement %s: %w", name, err)
	}
	adv.Status.Decision = sharingv1alpha1.DecisionAccepted
	if err := h.consumer.Status().Update(ctx, adv); err != nil {
		return fmt.Errorf("failed to accept advertisement %s: %w", name, err)
	}
	return nil
}

// decide writes the incoming policy's decision, as the advertisement
// controller would.
func (h *harness) decide(tb testing.TB, name string, d sharingv1alpha1.AdvertisementDecision) {
	tb.Helper()
	adv := &sharingv1alpha1.Advertisement{}
	if err := h.consumer.Get(context.Background(), client.ObjectKey{Namespace: peerNS, Name: name}, adv); err != nil {
		tb.Fatal(err)
	}
	adv.Status.Decision = d
	if err := h.consumer.Status().Update(context.Background(), adv); err != nil {
		tb.Fatalf("failed to decide advertisement %s: %v", name, err)
	}
}

// bind binds pod to node through the binding subresource, as the
// scheduler does.
func bind(tb testing.TB, c client.Client, pod *corev1.Pod, node string) {
	tb.Helper()
	b := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name}, Target: corev1.ObjectReference{Kind: "Node", Name: node}}
	if err := c.SubResource("binding").Create(context.Background(), pod, b); err != nil {
		tb.Fatalf("failed to bind pod %s to %s: %v", pod.Name, node, err)
	}
}

func isReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
