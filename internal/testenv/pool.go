package testenv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Starting an API server costs seconds of CPU, more with Meridian's CRDs
// (docs/development.md has the measurement and its command), and most
// envtests need a management cluster and three members: before the pool,
// starting servers was nearly all the CPU time of the controllers' test
// packages. A package that calls Main from its TestMain keeps the servers
// its tests stopped using and gives them to its next tests, once every
// object a test made is gone; a package that does not, and every package
// when MERIDIAN_TESTENV_FRESH is set, starts fresh servers for each test as
// before.

// pool holds the idle servers of this test process, by what they serve
// (their CRDs): a test's Start takes from it, and the test's cleanup gives
// back what it can reset.
type pool struct {
	mu sync.Mutex
	// on is set by Main.
	on   bool
	idle map[string][]*Cluster
	// all are every server the pool started, for Main to stop.
	all []*Cluster
}

var servers = &pool{idle: map[string][]*Cluster{}}

// Main runs a package's tests (m.Run) with its API servers shared between
// tests, and stops them all before returning the exit code for os.Exit:
//
//	func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }
func Main(m *testing.M) int {
	servers.mu.Lock()
	servers.on = os.Getenv("MERIDIAN_TESTENV_FRESH") == ""
	servers.mu.Unlock()
	code := m.Run()
	servers.mu.Lock()
	all := servers.all
	servers.all, servers.idle = nil, map[string][]*Cluster{}
	servers.mu.Unlock()
	for _, c := range all {
		if err := c.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "testenv: failed to stop the API server of %s: %v\n", c.Name, err)
			code = 1
		}
	}
	return code
}

// take returns an idle server serving key, renamed name, or nil when none
// is idle or the pool is off.
func (p *pool) take(key, name string) *Cluster {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.on || len(p.idle[key]) == 0 {
		return nil
	}
	c := p.idle[key][0]
	p.idle[key] = p.idle[key][1:]
	c.Name = name
	return c
}

// started records c, which serves key, as the pool's when the pool is on,
// with its objects as the state a reset returns it to, and reports whether
// it did: the caller's test then gives it back rather than stopping it.
func (p *pool) started(c *Cluster) (bool, error) {
	p.mu.Lock()
	on := p.on
	p.mu.Unlock()
	if !on {
		return false, nil
	}
	base, err := c.objects(context.Background())
	if err != nil {
		return false, fmt.Errorf("failed to list the objects of a new API server: %w", err)
	}
	c.baseline = base
	p.mu.Lock()
	p.all = append(p.all, c)
	p.mu.Unlock()
	return true, nil
}

// giveBack resets c and makes it idle again; a server that was stopped, or
// that cannot be brought back to its first state, is stopped and dropped.
func (p *pool) giveBack(key string, c *Cluster) error {
	if c.isStopped() {
		return nil
	}
	if err := c.reset(context.Background()); err != nil {
		p.drop(c)
		if stopErr := c.Stop(); stopErr != nil {
			return errors.Join(err, stopErr)
		}
		// The next test starts a fresh server: nothing is wrong with the
		// test that left this one, so this is no failure.
		fmt.Fprintf(os.Stderr, "testenv: not reusing the API server of %s: %v\n", c.Name, err)
		return nil
	}
	p.mu.Lock()
	p.idle[key] = append(p.idle[key], c)
	p.mu.Unlock()
	return nil
}

func (p *pool) drop(c *Cluster) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, o := range p.all {
		if o == c {
			p.all = append(p.all[:i], p.all[i+1:]...)
			return
		}
	}
}

// object is one object of a server: where to find it, and its UID.
type object struct {
	resource  schema.GroupVersionResource
	namespace string
	name      string
	uid       types.UID
	// finalizers is whether it has any, which a reset removes.
	finalizers bool
	// deleting is whether its deletion began.
	deleting bool
}

// objects lists every object c serves, through discovery: built-in kinds,
// CRDs' and aggregated APIs' alike.
func (c *Cluster) objects(ctx context.Context) (map[types.UID]object, error) {
	disco, err := discovery.NewDiscoveryClientForConfig(unlimited(c.Config))
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(unlimited(c.Config))
	if err != nil {
		return nil, err
	}
	lists, err := disco.ServerPreferredResources()
	var failed *discovery.ErrGroupDiscoveryFailed
	if err != nil && !errors.As(err, &failed) {
		return nil, err
	}
	// An aggregated API whose server went with its test fails discovery;
	// its APIService is an object like any other, which a reset deletes.
	var resources []schema.GroupVersionResource
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			return nil, err
		}
		for _, r := range list.APIResources {
			if !strings.Contains(r.Name, "/") && hasVerbs(r.Verbs, "list", "delete") {
				resources = append(resources, gv.WithResource(r.Name))
			}
		}
	}
	// In parallel: the first list of a kind whose CRD was just made waits
	// about a second for the API server's cache of it.
	var mu sync.Mutex
	out := map[types.UID]object{}
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(16)
	for _, gvr := range resources {
		g.Go(func() error {
			items, err := dyn.Resource(gvr).List(ctx, metav1.ListOptions{})
			if apierrors.IsNotFound(err) || apierrors.IsMethodNotSupported(err) {
				return nil
			}
			if err != nil {
				return fmt.Errorf("failed to list %s: %w", gvr, err)
			}
			mu.Lock()
			defer mu.Unlock()
			for _, it := range items.Items {
				out[it.GetUID()] = object{resource: gvr, namespace: it.GetNamespace(), name: it.GetName(), uid: it.GetUID(),
					finalizers: len(it.GetFinalizers()) > 0, deleting: it.GetDeletionTimestamp() != nil}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// unlimited is cfg without client-go's default limit of 5 requests a
// second, which would make a reset of sixty kinds take seconds, and without
// warnings.
func unlimited(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = 1000, 2000
	// Listing every kind lists deprecated ones (v1 Endpoints).
	cfg.WarningHandler = rest.NoWarnings{}
	return cfg
}

func hasVerbs(verbs metav1.Verbs, want ...string) bool {
	for _, w := range want {
		found := false
		for _, v := range verbs {
			found = found || v == w
		}
		if !found {
			return false
		}
	}
	return true
}

// reset deletes every object c did not hold when it started (finalizers
// removed, no grace period, namespaces finalized, as no controller runs to
// do it) and waits until they are gone. It fails when an object of the
// first state went missing or a new one stays.
func (c *Cluster) reset(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	dyn, err := dynamic.NewForConfig(unlimited(c.Config))
	if err != nil {
		return err
	}
	core, err := kubernetes.NewForConfig(unlimited(c.Config))
	if err != nil {
		return err
	}
	for {
		now, err := c.objects(ctx)
		if err != nil {
			return err
		}
		for uid, o := range c.baseline {
			if _, ok := now[uid]; !ok && !serverOwned(o) {
				return fmt.Errorf("%s %s/%s, which the server had at start, was deleted", o.resource.Resource, o.namespace, o.name)
			}
		}
		var left []object
		for uid, o := range now {
			if _, ok := c.baseline[uid]; !ok && !serverOwned(o) {
				left = append(left, o)
			}
		}
		if len(left) == 0 {
			return nil
		}
		// A namespace goes last: the objects in it cannot be changed, so
		// their finalizers not removed, once it is gone.
		full := map[string]bool{}
		for _, o := range left {
			full[o.namespace] = true
		}
		for _, o := range left {
			if isNamespace(o) && full[o.name] {
				continue
			}
			if err := c.remove(ctx, dyn, core, o); err != nil {
				return err
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%d objects still there after 30s, such as %s %s/%s", len(left), left[0].resource.Resource, left[0].namespace, left[0].name)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func isNamespace(o object) bool { return o.resource.Group == "" && o.resource.Resource == "namespaces" }

// serverOwned reports whether the API server itself made o and keeps it,
// maybe after its first state was recorded: a reset neither removes it nor
// asks for it. The system namespaces hold only such objects in these tests.
func serverOwned(o object) bool {
	switch {
	case o.namespace == "kube-system", o.namespace == "kube-public", o.namespace == "kube-node-lease":
		return true
	case o.namespace == "default" && o.name == "kubernetes":
		return true // its Service, Endpoints and EndpointSlice
	case o.resource.Group == "flowcontrol.apiserver.k8s.io":
		return true
	case o.resource.Group == "networking.k8s.io" && (o.resource.Resource == "ipaddresses" || o.resource.Resource == "servicecidrs"):
		return true
	}
	return false
}

// remove deletes one object at once.
func (c *Cluster) remove(ctx context.Context, dyn dynamic.Interface, core kubernetes.Interface, o object) error {
	r := dyn.Resource(o.resource).Namespace(o.namespace)
	ignore := func(err error) error {
		if err == nil || apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
			return nil
		}
		return fmt.Errorf("failed to delete %s %s/%s: %w", o.resource.Resource, o.namespace, o.name, err)
	}
	if o.finalizers {
		_, err := r.Patch(ctx, o.name, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
		if err := ignore(err); err != nil {
			return err
		}
	}
	policy := metav1.DeletePropagationBackground
	if err := ignore(r.Delete(ctx, o.name, metav1.DeleteOptions{GracePeriodSeconds: new(int64), PropagationPolicy: &policy})); err != nil {
		return err
	}
	if isNamespace(o) {
		// No namespace controller runs: empty the namespace's finalizers,
		// and the API server removes it once its objects are gone.
		ns, err := core.CoreV1().Namespaces().Get(ctx, o.name, metav1.GetOptions{})
		if err != nil {
			return ignore(err)
		}
		ns.Spec.Finalizers = nil
		_, err = core.CoreV1().Namespaces().Finalize(ctx, ns, metav1.UpdateOptions{})
		return ignore(err)
	}
	return nil
}
