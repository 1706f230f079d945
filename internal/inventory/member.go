package inventory

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/scheme"
)

// ownedSelector matches the objects Meridian made in a member.
var ownedSelector = labels.SelectorFromSet(labels.Set{
	multiclusterv1alpha1.LabelManagedBy: multiclusterv1alpha1.ManagedByMeridian,
})

// ownedReplicaSets matches the ReplicaSets Meridian made in a member (a
// plain ReplicaSet's share), not those the member's Deployments made from
// Meridian's Deployments (which carry a pod-template-hash).
var ownedReplicaSets = func() labels.Selector {
	noHash, err := labels.NewRequirement(appsv1.DefaultDeploymentUniqueLabelKey, selection.DoesNotExist, nil)
	if err != nil {
		panic(err)
	}
	return ownedSelector.Add(*noHash)
}()

// PodOwnerIndex is the field index of a member's cached pods by the
// Meridian object they belong to (OwnerKey of their labels), so that a
// controller lists one workload's pods without scanning its namespace.
const PodOwnerIndex = "meridian.dev/owner"

// podOwner is PodOwnerIndex's function: pods Meridian did not make have no
// key.
func podOwner(o client.Object) []string {
	if k := OwnerKey(o.GetLabels()); k != "" {
		return []string{k}
	}
	return nil
}

// memberScheme holds the kinds Meridian reads and writes in members.
var memberScheme = scheme.New()

// Member is a live connection to one member cluster.
type Member struct {
	// Name of the Cluster object.
	Name string
	// Client reads from the member's informer cache and writes to its API
	// server.
	Client client.Client
	// Cache is the member's informer cache; callers may add informers.
	Cache cache.Cache
	// APIReader reads from the member's API server directly, for APIs that
	// cannot be watched (metrics.k8s.io).
	APIReader client.Reader

	config    *rest.Config
	hash      string
	capacity  *capacityIndex
	discovery discovery.DiscoveryInterface
	cancel    context.CancelFunc
	done      chan struct{}

	mu      sync.Mutex
	version string
}

// startMember connects to a member, starts its cache with node and pod
// informers feeding the capacity index and informers on the workloads
// Meridian made there, and waits until they have synced or ctx ends.
// onChange is called after every node, pod or workload event, onOwned with
// every pod or workload that changed.
func startMember(ctx context.Context, name string, cfg *rest.Config, hash string, syncTimeout time.Duration, onChange func(), onOwned func(metav1.Object)) (*Member, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = 50, 100
	cl, err := cluster.New(cfg, func(o *cluster.Options) {
		o.Scheme = memberScheme
		o.Cache.DefaultTransform = trimForCache
		o.Cache.ByObject = map[client.Object]cache.ByObject{
			// Meridian reads only the workloads it made.
			&appsv1.Deployment{}:  {Label: ownedSelector},
			&appsv1.StatefulSet{}: {Label: ownedSelector},
			&appsv1.ReplicaSet{}:  {Label: ownedReplicaSets},
			&appsv1.DaemonSet{}:   {Label: ownedSelector},
			&batchv1.Job{}:        {Label: ownedSelector},
			&batchv1.CronJob{}:    {Label: ownedSelector},
			&corev1.Service{}:     {Label: ownedSelector},
		}
	})
	if err != nil {
		return nil, fmt.Errorf("failed to create client of member %q: %w", name, err)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("failed to create discovery client of member %q: %w", name, err)
	}
	m := &Member{
		Name:      name,
		Client:    cl.GetClient(),
		Cache:     cl.GetCache(),
		APIReader: cl.GetAPIReader(),
		config:    cfg,
		hash:      hash,
		capacity:  newCapacityIndex(),
		discovery: dc,
		done:      make(chan struct{}),
	}
	if err := m.Cache.IndexField(ctx, &corev1.Pod{}, PodOwnerIndex, podOwner); err != nil {
		return nil, fmt.Errorf("failed to index the pods of member %q by owner: %w", name, err)
	}
	if err := m.watchCapacity(ctx, onChange, onOwned); err != nil {
		return nil, err
	}
	if err := m.watchOwned(ctx, onChange, onOwned); err != nil {
		return nil, err
	}

	runCtx, cancel := context.WithCancel(context.Background())
	m.cancel = cancel
	go func() {
		defer close(m.done)
		_ = m.Cache.Start(runCtx)
	}()
	syncCtx, cancelSync := context.WithTimeout(ctx, syncTimeout)
	defer cancelSync()
	if !m.Cache.WaitForCacheSync(syncCtx) {
		m.stop()
		return nil, fmt.Errorf("member %q: caches did not sync within %s", name, syncTimeout)
	}
	return m, nil
}

func (m *Member) watchCapacity(ctx context.Context, onChange func(), onOwned func(metav1.Object)) error {
	nodes, err := m.Cache.GetInformer(ctx, &corev1.Node{})
	if err != nil {
		return fmt.Errorf("failed to watch nodes of member %q: %w", m.Name, err)
	}
	pods, err := m.Cache.GetInformer(ctx, &corev1.Pod{})
	if err != nil {
		return fmt.Errorf("failed to watch pods of member %q: %w", m.Name, err)
	}
	if _, err := nodes.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { m.onNode(o, false); onChange() },
		UpdateFunc: func(_, o any) { m.onNode(o, false); onChange() },
		DeleteFunc: func(o any) { m.onNode(o, true); onChange() },
	}); err != nil {
		return fmt.Errorf("failed to watch nodes of member %q: %w", m.Name, err)
	}
	if _, err := pods.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { m.onPod(o, false); onChange(); notify(o, onOwned) },
		UpdateFunc: func(_, o any) { m.onPod(o, false); onChange(); notify(o, onOwned) },
		DeleteFunc: func(o any) { m.onPod(o, true); onChange(); notify(o, onOwned) },
	}); err != nil {
		return fmt.Errorf("failed to watch pods of member %q: %w", m.Name, err)
	}
	return nil
}

// watchOwned watches the Deployments, StatefulSets, ReplicaSets,
// DaemonSets, Jobs, CronJobs and Services Meridian made in the member (the
// cache holds only those).
func (m *Member) watchOwned(ctx context.Context, onChange func(), onOwned func(metav1.Object)) error {
	handler := toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { onChange(); notify(o, onOwned) },
		UpdateFunc: func(_, o any) { onChange(); notify(o, onOwned) },
		DeleteFunc: func(o any) { onChange(); notify(o, onOwned) },
	}
	for _, obj := range []client.Object{&appsv1.Deployment{}, &appsv1.StatefulSet{}, &appsv1.ReplicaSet{}, &appsv1.DaemonSet{}, &batchv1.Job{}, &batchv1.CronJob{}, &corev1.Service{}} {
		inf, err := m.Cache.GetInformer(ctx, obj)
		if err != nil {
			return fmt.Errorf("failed to watch %T of member %q: %w", obj, m.Name, err)
		}
		if _, err := inf.AddEventHandler(handler); err != nil {
			return fmt.Errorf("failed to watch %T of member %q: %w", obj, m.Name, err)
		}
	}
	return nil
}

func notify(o any, onOwned func(metav1.Object)) {
	if t, ok := o.(toolscache.DeletedFinalStateUnknown); ok {
		o = t.Obj
	}
	if obj, ok := o.(metav1.Object); ok {
		onOwned(obj)
	}
}

func (m *Member) onNode(o any, deleted bool) {
	if t, ok := o.(toolscache.DeletedFinalStateUnknown); ok {
		o, deleted = t.Obj, true
	}
	n, ok := o.(*corev1.Node)
	if !ok {
		return
	}
	if deleted {
		m.capacity.deleteNode(n.Name)
		return
	}
	m.capacity.setNode(n)
}

func (m *Member) onPod(o any, deleted bool) {
	if t, ok := o.(toolscache.DeletedFinalStateUnknown); ok {
		o, deleted = t.Obj, true
	}
	p, ok := o.(*corev1.Pod)
	if !ok {
		return
	}
	if deleted {
		m.capacity.deletePod(p.UID)
		return
	}
	m.capacity.setPod(p)
}

// Heartbeat asks the member's API server for its version within timeout.
func (m *Member) Heartbeat(ctx context.Context, timeout time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	body, err := m.discovery.RESTClient().Get().AbsPath("/version").Do(ctx).Raw()
	if err != nil {
		return "", fmt.Errorf("member %q did not answer within %s: %w", m.Name, timeout, err)
	}
	var v struct {
		GitVersion string `json:"gitVersion"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return "", fmt.Errorf("member %q answered /version with something unreadable: %w", m.Name, err)
	}
	m.mu.Lock()
	m.version = v.GitVersion
	m.mu.Unlock()
	return v.GitVersion, nil
}

// Nodes returns the member's nodes with their requested resources.
func (m *Member) Nodes() []placement.Node { return m.capacity.Nodes() }

// Summary returns the member's capacity totals.
func (m *Member) Summary() Summary { return m.capacity.Summary() }

// PodsByNode returns, per node name, the requests of the pods bound to it.
func (m *Member) PodsByNode() map[string][]placement.Resources { return m.capacity.PodsByNode() }

// Workloads counts the Meridian workloads with pods bound in the member.
func (m *Member) Workloads() int { return m.capacity.Owners() }

func (m *Member) stop() {
	if m.cancel != nil {
		m.cancel()
		<-m.done
	}
}

// trimForCache drops what Meridian never reads from cached objects, to keep
// the memory of large members small.
func trimForCache(o any) (any, error) {
	if obj, ok := o.(metav1.Object); ok {
		obj.SetManagedFields(nil)
	}
	if p, ok := o.(*corev1.Pod); ok {
		p.Status.ContainerStatuses = nil
		p.Status.InitContainerStatuses = nil
		p.Status.EphemeralContainerStatuses = nil
		p.Spec.Volumes = nil
		for i := range p.Spec.Containers {
			p.Spec.Containers[i].Env = nil
			p.Spec.Containers[i].VolumeMounts = nil
		}
	}
	return o, nil
}
