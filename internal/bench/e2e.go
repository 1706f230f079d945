package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/controller"
	"github.com/meridian-dev/meridian/internal/scheme"
	"github.com/meridian-dev/meridian/internal/testbed"
)

// e2eNamespace holds the e2e benchmark's workloads, in the management cluster
// and in the members.
const e2eNamespace = "meridian-bench"

// Options say what to measure.
type Options struct {
	// Testbed is the running testbed to measure on.
	Testbed *testbed.Testbed
	// Replicas are the sizes to measure (seed 001: 1, 10, 100).
	Replicas []int32
	// Policies are the placement policies to measure.
	Policies []multiclusterv1alpha1.PlacementPolicy
	// Runs is how many times each case runs; the table shows the median.
	Runs int
	// Timeout bounds one run.
	Timeout time.Duration
	// Progress receives a line per run.
	Progress io.Writer
}

// Result is one measured case.
type Result struct {
	Policy   multiclusterv1alpha1.PlacementPolicy
	Replicas int32
	// Deployed and Running are the medians over the runs of the time from
	// creating the MultiClusterDeployment until every member Deployment
	// exists with all the replicas, and until every pod is Running.
	Deployed, Running time.Duration
	// Created and Bound are the medians of the time until the members had
	// created every pod, and until their schedulers had bound every pod:
	// with Deployed and Running, where the time goes.
	Created, Bound time.Duration
	// Alone is the median of the time the members take, without Meridian,
	// from the creation of the same member Deployments (the replicas each
	// member got, the same pods) until every pod is Running: the part of
	// Running that is the members' own.
	Alone time.Duration
	// Clusters is where the replicas went in the last run.
	Clusters string
}

// paperTableIV holds seed 001's Table IV (seconds), by policy and replicas.
var paperTableIV = map[multiclusterv1alpha1.PlacementPolicy]map[int32]float64{
	multiclusterv1alpha1.TrafficAware:    {1: 8.63, 10: 8.67, 100: 9.71},
	multiclusterv1alpha1.ClusterAffinity: {1: 1.88, 10: 1.78, 100: 11.53},
}

// E2E runs the controllers against the testbed and measures every case.
func E2E(ctx context.Context, o Options) ([]Result, error) {
	tb := o.Testbed
	mgmt, err := tb.Management().Client()
	if err != nil {
		return nil, err
	}
	times := newPodTimes()
	members, err := watchMembers(ctx, tb, times)
	if err != nil {
		return nil, err
	}
	stop, err := runControllers(ctx, tb)
	if err != nil {
		return nil, err
	}
	defer stop()
	if err := waitMembersReady(ctx, mgmt, o.Timeout); err != nil {
		return nil, err
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: e2eNamespace}}
	if err := mgmt.Create(ctx, ns); client.IgnoreAlreadyExists(err) != nil {
		return nil, fmt.Errorf("failed to create namespace: %w", err)
	}

	var results []Result
	first := tb.Members()[1].Name // seed 001's cluster2 (Nantes), where the paper starts
	for _, policy := range o.Policies {
		for _, n := range o.Replicas {
			r := Result{Policy: policy, Replicas: n}
			var deployed, created, bound, running, alone []time.Duration
			for run := range o.Runs {
				name := fmt.Sprintf("bench-%s-%d-%d", strings.ToLower(string(policy)), n, run)
				start := time.Now()
				mcd := workload(name, n, policy, first)
				d, rn, clusters, shares, err := measure(ctx, mgmt, members, mcd, o.Timeout)
				if err != nil {
					return results, fmt.Errorf("%s with %d replicas, run %d: %w", policy, n, run+1, err)
				}
				c, b := times.last(name, start)
				a, err := measureAlone(ctx, members, name+"-alone", &mcd.Spec.Template, shares, o.Timeout)
				if err != nil {
					return results, fmt.Errorf("%s with %d replicas, run %d, members alone: %w", policy, n, run+1, err)
				}
				deployed, created, bound, running, alone = append(deployed, d), append(created, c), append(bound, b), append(running, rn), append(alone, a)
				r.Clusters = clusters
				if o.Progress != nil {
					fmt.Fprintf(o.Progress, "bench: %-15s %3d replicas run %d/%d: deployed %6.2fs, pods created %6.2fs, bound %6.2fs, running %6.2fs; members alone %6.2fs (%s)\n",
						policy, n, run+1, o.Runs, d.Seconds(), c.Seconds(), b.Seconds(), rn.Seconds(), a.Seconds(), clusters)
				}
			}
			r.Deployed, r.Created, r.Bound, r.Running, r.Alone = median(deployed), median(created), median(bound), median(running), median(alone)
			results = append(results, r)
		}
	}
	return results, nil
}

// workload is seed 001's VI-E deployment: pods of 0.5 CPU and 512 MB, with
// bursting; the cluster-affinity one prefers first.
func workload(name string, replicas int32, policy multiclusterv1alpha1.PlacementPolicy, first string) *multiclusterv1alpha1.MultiClusterDeployment {
	d := &multiclusterv1alpha1.MultiClusterDeployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: e2eNamespace}}
	d.Spec.Replicas = ptr.To(replicas)
	d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}
	d.Spec.Template.Labels = map[string]string{"app": name}
	d.Spec.Template.Spec.Containers = []corev1.Container{{
		Name: "app", Image: "registry.k8s.io/hpa-example",
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("512Mi"),
		}},
	}}
	d.Spec.Placement = multiclusterv1alpha1.Placement{
		Policy:   policy,
		Bursting: &multiclusterv1alpha1.Bursting{Enabled: true, Policy: multiclusterv1alpha1.BurstNearestFirst},
	}
	if policy == multiclusterv1alpha1.ClusterAffinity {
		d.Spec.Placement.Locations = []multiclusterv1alpha1.ClusterName{multiclusterv1alpha1.ClusterName(first)}
	}
	return d
}

// measure creates mcd and times it, then deletes it and waits until the
// members are clean again. shares are the replicas of each member's
// Deployment once every pod ran.
func measure(ctx context.Context, mgmt client.Client, members map[string]client.Client, mcd *multiclusterv1alpha1.MultiClusterDeployment, timeout time.Duration) (deployed, running time.Duration, clusters string, shares map[string]int32, err error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	want := *mcd.Spec.Replicas
	start := time.Now()
	if err := mgmt.Create(ctx, mcd); err != nil {
		return 0, 0, "", nil, fmt.Errorf("failed to create: %w", err)
	}
	for deployed == 0 || running == 0 {
		specs, runningPods, _, err := observe(ctx, members, mcd.Name)
		if err != nil {
			return 0, 0, "", nil, err
		}
		if deployed == 0 && specs == want {
			deployed = time.Since(start)
		}
		if runningPods == want {
			running = time.Since(start)
			if deployed == 0 {
				deployed = running
			}
		}
		if err := sleep(ctx, 20*time.Millisecond); err != nil {
			return 0, 0, "", nil, fmt.Errorf("not all %d replicas Running within %s: %w", want, timeout, err)
		}
	}
	got := &multiclusterv1alpha1.MultiClusterDeployment{}
	if err := mgmt.Get(ctx, client.ObjectKeyFromObject(mcd), got); err == nil {
		clusters = got.Status.Summary
	}
	if shares, err = memberShares(ctx, members, mcd.Name); err != nil {
		return 0, 0, "", nil, err
	}
	if err := mgmt.Delete(ctx, mcd); err != nil {
		return 0, 0, "", nil, fmt.Errorf("failed to delete: %w", err)
	}
	gone := func() bool { return apierrors.IsNotFound(mgmt.Get(ctx, client.ObjectKeyFromObject(mcd), got)) }
	if err := waitClean(ctx, members, mcd.Name, gone); err != nil {
		return 0, 0, "", nil, err
	}
	return deployed, running, clusters, shares, nil
}

// waitClean waits until gone holds and the members hold no pod of name:
// terminating pods still hold their nodes' room, so that the next case
// would not start on empty members.
func waitClean(ctx context.Context, members map[string]client.Client, name string, gone func() bool) error {
	for {
		if gone() {
			if _, _, pods, err := observe(ctx, members, name); err == nil && pods == 0 {
				return nil
			}
		}
		if err := sleep(ctx, 100*time.Millisecond); err != nil {
			return fmt.Errorf("members not clean after deletion: %w", err)
		}
	}
}

// memberShares returns the replicas of every member's Deployment name.
func memberShares(ctx context.Context, members map[string]client.Client, name string) (map[string]int32, error) {
	shares := map[string]int32{}
	for cluster, c := range members {
		d := &appsv1.Deployment{}
		err := c.Get(ctx, client.ObjectKey{Namespace: e2eNamespace, Name: name}, d)
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			return nil, fmt.Errorf("failed to read Deployment in %s: %w", cluster, err)
		default:
			shares[cluster] = ptr.Deref(d.Spec.Replicas, 0)
		}
	}
	return shares, nil
}

// measureAlone creates in every member, at once and without Meridian, a
// Deployment name of template with the member's share of the replicas,
// times it until every pod is Running, then deletes the Deployments and
// waits until the members are clean again.
func measureAlone(ctx context.Context, members map[string]client.Client, name string, template *corev1.PodTemplateSpec, shares map[string]int32, timeout time.Duration) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var want int32
	deployments := map[string]*appsv1.Deployment{}
	for cluster, n := range shares {
		d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: e2eNamespace}}
		d.Spec.Replicas = ptr.To(n)
		d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}
		d.Spec.Template = *template.DeepCopy()
		d.Spec.Template.Labels = map[string]string{"app": name}
		deployments[cluster] = d
		want += n
	}
	start := time.Now()
	err := atOnce(deployments, func(cluster string, d *appsv1.Deployment) error {
		if err := members[cluster].Create(ctx, d); err != nil {
			return fmt.Errorf("failed to create Deployment in %s: %w", cluster, err)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	var running time.Duration
	for {
		_, n, _, err := observe(ctx, members, name)
		if err != nil {
			return 0, err
		}
		if n == want {
			running = time.Since(start)
			break
		}
		if err := sleep(ctx, 20*time.Millisecond); err != nil {
			return 0, fmt.Errorf("not all %d replicas Running within %s: %w", want, timeout, err)
		}
	}
	for cluster, d := range deployments {
		if err := members[cluster].Delete(ctx, d, client.PropagationPolicy(metav1.DeletePropagationBackground)); client.IgnoreNotFound(err) != nil {
			return 0, fmt.Errorf("failed to delete Deployment in %s: %w", cluster, err)
		}
	}
	return running, waitClean(ctx, members, name, func() bool { return true })
}

// watchMembers returns, per member, a reader of the benchmark's namespace
// served from watches (Deployments and pods), started and synced: polling
// the members' API servers every 20 ms (10 requests a round over five
// members, on the same two cores as the clusters it measures) slowed what
// it measured.
func watchMembers(ctx context.Context, tb *testbed.Testbed, times *podTimes) (map[string]client.Client, error) {
	members := map[string]client.Client{}
	for _, m := range tb.Members() {
		c, err := cache.New(m.Config, cache.Options{Scheme: scheme.New(), DefaultNamespaces: map[string]cache.Config{e2eNamespace: {}}})
		if err != nil {
			return nil, fmt.Errorf("failed to watch %s: %w", m.Name, err)
		}
		for _, obj := range []client.Object{&appsv1.Deployment{}, &corev1.Pod{}} {
			inf, err := c.GetInformer(ctx, obj)
			if err != nil {
				return nil, fmt.Errorf("failed to watch %T in %s: %w", obj, m.Name, err)
			}
			if _, ok := obj.(*corev1.Pod); ok {
				if _, err := inf.AddEventHandler(times.handler()); err != nil {
					return nil, fmt.Errorf("failed to watch pods in %s: %w", m.Name, err)
				}
			}
		}
		go func() { _ = c.Start(ctx) }()
		if !c.WaitForCacheSync(ctx) {
			return nil, fmt.Errorf("the watches of %s did not sync: %w", m.Name, ctx.Err())
		}
		// Reads from the watches, writes to the API server.
		cl, err := client.New(m.Config, client.Options{Scheme: scheme.New(), Cache: &client.CacheOptions{Reader: c}})
		if err != nil {
			return nil, fmt.Errorf("failed to reach %s: %w", m.Name, err)
		}
		members[m.Name] = cl
	}
	return members, nil
}

// observe sums, over the members, the replicas of the member Deployments of
// name, its Running pods, and all its pods (terminating ones too). It reads
// the members at once, so that the time it takes adds little to what it
// measures.
func observe(ctx context.Context, members map[string]client.Client, name string) (specs, running, all int32, err error) {
	var mu sync.Mutex
	err = atOnce(members, func(cluster string, c client.Client) error {
		s, r, a, err := observeMember(ctx, cluster, c, name)
		mu.Lock()
		defer mu.Unlock()
		specs, running, all = specs+s, running+r, all+a
		return err
	})
	return specs, running, all, err
}

// atOnce calls f for every member at the same time and joins their errors.
func atOnce[T any](members map[string]T, f func(cluster string, v T) error) error {
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		errs []error
	)
	for cluster, v := range members {
		wg.Go(func() {
			err := f(cluster, v)
			mu.Lock()
			defer mu.Unlock()
			errs = append(errs, err)
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

func observeMember(ctx context.Context, cluster string, c client.Reader, name string) (specs, running, all int32, err error) {
	d := &appsv1.Deployment{}
	err = c.Get(ctx, client.ObjectKey{Namespace: e2eNamespace, Name: name}, d)
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return 0, 0, 0, fmt.Errorf("failed to read Deployment in %s: %w", cluster, err)
	default:
		specs = ptr.Deref(d.Spec.Replicas, 0)
	}
	var pods corev1.PodList
	if err := c.List(ctx, &pods, client.InNamespace(e2eNamespace), client.MatchingLabels{"app": name}); err != nil {
		return 0, 0, 0, fmt.Errorf("failed to list pods in %s: %w", cluster, err)
	}
	all = int32(len(pods.Items))
	for _, p := range pods.Items {
		if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp.IsZero() {
			running++
		}
	}
	return specs, running, all, nil
}

func runControllers(ctx context.Context, tb *testbed.Testbed) (stop func(), err error) {
	mgr, err := ctrl.NewManager(tb.Management().Config, ctrl.Options{
		Scheme:                 testbed.Scheme(),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	})
	if err != nil {
		return nil, fmt.Errorf("failed to create the controller manager: %w", err)
	}
	if _, err := controller.Setup(mgr, controller.Options{HeartbeatInterval: 5 * time.Second}); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = mgr.Start(ctx)
	}()
	return func() { cancel(); <-done }, nil
}

func waitMembersReady(ctx context.Context, mgmt client.Client, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		var list multiclusterv1alpha1.ClusterList
		if err := mgmt.List(ctx, &list); err == nil && len(list.Items) > 0 {
			ready := 0
			for _, c := range list.Items {
				for _, cond := range c.Status.Conditions {
					if cond.Type == multiclusterv1alpha1.ClusterReady && cond.Status == metav1.ConditionTrue {
						ready++
					}
				}
			}
			if ready == len(list.Items) {
				return nil
			}
		}
		if err := sleep(ctx, 200*time.Millisecond); err != nil {
			return fmt.Errorf("members not Ready: %w", err)
		}
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// Table writes the results beside seed 001's Table IV.
func Table(w io.Writer, results []Result, runs int) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "policy\treplicas\tmember Deployments exist\tall pods created\tall bound\tall pods Running\tmembers alone\tmck8s (Table IV)\tclusters\t\n")
	for _, r := range results {
		paper := "-"
		if v, ok := paperTableIV[r.Policy][r.Replicas]; ok {
			paper = fmt.Sprintf("%.2fs", v)
		}
		fmt.Fprintf(tw, "%s\t%d\t%.2fs\t%.2fs\t%.2fs\t%.2fs\t%.2fs\t%s\t%s\t\n", r.Policy, r.Replicas, r.Deployed.Seconds(), r.Created.Seconds(), r.Bound.Seconds(), r.Running.Seconds(), r.Alone.Seconds(), paper, r.Clusters)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\nMedian of %d runs each, from the MultiClusterDeployment's creation; pods created, bound and Running are the members' own work\n"+
		"(ReplicaSet controller, kube-scheduler, kwok) after their Deployments exist; members alone is the same member Deployments\n"+
		"created directly, without Meridian, until every pod is Running. Pods of 0.5 CPU and 512Mi with bursting nearest-first,\n"+
		"on the testbed's kwok nodes.\n", runs)
	return err
}
