package bench

import (
	"context"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/testbed"
	"github.com/meridian-dev/meridian/internal/virtualnode"
)

// SharingOptions say what `meridian bench sharing` measures on a testbed
// of profile sharing, whose agents (`meridian agent` processes) do the
// work.
type SharingOptions struct {
	Testbed *testbed.Testbed
	// Consumer and Provider are the clusters measured: home and big.
	Consumer, Provider string
	// Advertisements arrive together (seed 002: 100).
	Advertisements int
	// Pods are offloaded one after the other; the table shows the median.
	Pods int
	// Timeout bounds each measure.
	Timeout time.Duration
	// Progress receives a line a second while a measure runs.
	Progress io.Writer
}

// SharingResult is what was measured.
type SharingResult struct {
	Advertisements int
	// NodesReady is the time from the first advertisement written until
	// a Ready virtual node exists for every one.
	NodesReady time.Duration
	// InProvider and InConsumer are, per pod, the time from creating it
	// bound to a virtual node until its twin is Running in the provider,
	// and until the consumer pod shows Running.
	InProvider, InConsumer []time.Duration
}

// Seed 002's figures (seconds) and the goals.
const (
	seedNodesReady = 120.0
	seedPodRunning = 6.0
	goalNodesReady = 10.0
	goalPodRunning = 2.0
)

// benchNamespace holds the benchmark's pods in the consumer.
const benchNamespace = "bench-sharing"

// Sharing measures, on a sharing testbed: Advertisements advertisements
// of one shape each written at once into the consumer, as the provider
// writes them, until the consumer's agent has decided them and made a
// Ready virtual node for each (then they are deleted again); and Pods
// pods created already bound to one of the provider's virtual nodes,
// until the twin runs in the provider (kwok) and the consumer pod shows
// Running.
func Sharing(ctx context.Context, o SharingOptions) (SharingResult, error) {
	res := SharingResult{Advertisements: o.Advertisements}
	cons, prov := o.Testbed.Cluster(o.Consumer), o.Testbed.Cluster(o.Provider)
	if cons == nil || prov == nil {
		return res, fmt.Errorf("the testbed has no cluster %q or %q: start it with --profile sharing", o.Consumer, o.Provider)
	}
	home, err := cons.Client()
	if err != nil {
		return res, err
	}
	provider, err := prov.Client()
	if err != nil {
		return res, err
	}
	if res.NodesReady, err = advertisementsToNodes(ctx, home, o); err != nil {
		return res, err
	}
	if err := home.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: benchNamespace}}); err != nil && !apierrors.IsAlreadyExists(err) {
		return res, fmt.Errorf("failed to create namespace %s in %s: %w", benchNamespace, o.Consumer, err)
	}
	node, err := readyVirtualNode(ctx, home, o.Provider)
	if err != nil {
		return res, err
	}
	for i := range o.Pods {
		p, c, err := podToRunning(ctx, home, provider, node, fmt.Sprintf("bench-%d-%d", time.Now().Unix(), i), o)
		if err != nil {
			return res, err
		}
		res.InProvider, res.InConsumer = append(res.InProvider, p), append(res.InConsumer, c)
		fmt.Fprintf(o.Progress, "pod %d/%d: Running in %s after %s, in %s after %s\n", i+1, o.Pods, o.Provider, p.Round(time.Millisecond), o.Consumer, c.Round(time.Millisecond))
	}
	return res, nil
}

// advertisementsToNodes writes the advertisements at once and waits until
// each has a Ready virtual node; it deletes them before returning.
func advertisementsToNodes(ctx context.Context, home client.Client, o SharingOptions) (time.Duration, error) {
	ns := testbed.PeerNamespace(o.Provider)
	run := time.Now().Unix()
	names := make([]string, o.Advertisements)
	for i := range names {
		names[i] = fmt.Sprintf("bench-%d-%d", run, i)
	}
	defer func() {
		for _, n := range names {
			_ = home.Delete(context.WithoutCancel(ctx), &sharingv1alpha1.Advertisement{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: n}})
		}
	}()
	now := metav1.NewTime(time.Now().Truncate(time.Second))
	begin := time.Now()
	errs := make(chan error, len(names))
	for i, n := range names {
		go func() {
			adv := &sharingv1alpha1.Advertisement{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: n},
				Spec: sharingv1alpha1.AdvertisementSpec{
					ClusterID: sharingv1alpha1.ClusterID(o.Provider), Consumer: sharingv1alpha1.ClusterID(o.Consumer), Type: sharingv1alpha1.AdvertisementFull,
					Availability: []sharingv1alpha1.NodeShape{{Name: fmt.Sprintf("b%d-%d", run%100000, i), Count: 1, Resources: map[corev1.ResourceName]resource.Quantity{
						corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("1Gi"),
					}}},
					Prices:    []sharingv1alpha1.Price{{Resource: "cpu", Amount: resource.MustParse("0.04"), Currency: "EUR", Unit: resource.MustParse("1"), Period: sharingv1alpha1.PeriodHour}},
					Timestamp: now, TimeToLive: metav1.Duration{Duration: 10 * time.Minute},
				},
			}
			errs <- home.Create(ctx, adv)
		}()
	}
	for range names {
		if err := <-errs; err != nil {
			return 0, fmt.Errorf("failed to write an advertisement into %s: %w", o.Consumer, err)
		}
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var took time.Duration
	err := waitProgress(ctx, o, "virtual nodes Ready", func() (int, bool, error) {
		var nodes corev1.NodeList
		if err := home.List(ctx, &nodes, client.MatchingLabels{sharingv1alpha1.LabelVirtualNode: "true", sharingv1alpha1.LabelProvider: o.Provider}); err != nil {
			return 0, false, err
		}
		ready := 0
		for _, n := range nodes.Items {
			if want[n.Labels[sharingv1alpha1.LabelAdvertisement]] && nodeReady(&n) {
				ready++
			}
		}
		if ready == len(names) {
			took = time.Since(begin)
			return ready, true, nil
		}
		return ready, false, nil
	}, len(names))
	return took, err
}

// podToRunning creates a pod bound to node and times it until its twin
// runs in the provider and until the consumer pod shows Running; it
// deletes the pod before returning.
func podToRunning(ctx context.Context, home, provider client.Client, node, name string, o SharingOptions) (time.Duration, time.Duration, error) {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: benchNamespace, Name: name},
		Spec: corev1.PodSpec{
			NodeName:    node,
			Tolerations: []corev1.Toleration{{Key: sharingv1alpha1.TaintVirtualNode, Operator: corev1.TolerationOpExists}},
			Containers: []corev1.Container{{Name: "nginx", Image: "nginx:1.27", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("64Mi")},
			}}},
		},
	}
	defer func() { _ = home.Delete(context.WithoutCancel(ctx), pod) }()
	twinKey := client.ObjectKey{Namespace: virtualnode.TwinNamespace(sharingv1alpha1.ClusterID(o.Consumer), benchNamespace), Name: name}
	begin := time.Now()
	if err := home.Create(ctx, pod); err != nil {
		return 0, 0, fmt.Errorf("failed to create pod %s in %s: %w", name, o.Consumer, err)
	}
	var inProvider, inConsumer time.Duration
	deadline := time.Now().Add(o.Timeout)
	for inProvider == 0 || inConsumer == 0 {
		if time.Now().After(deadline) {
			return 0, 0, fmt.Errorf("pod %s bound to %s: not Running in both clusters within %s (provider after %s, consumer after %s)", name, node, o.Timeout, inProvider, inConsumer)
		}
		if inProvider == 0 {
			twin := &corev1.Pod{}
			if err := provider.Get(ctx, twinKey, twin); err == nil && twin.Status.Phase == corev1.PodRunning {
				inProvider = time.Since(begin)
			}
		}
		if inConsumer == 0 {
			p := &corev1.Pod{}
			if err := home.Get(ctx, client.ObjectKeyFromObject(pod), p); err == nil && p.Status.Phase == corev1.PodRunning {
				inConsumer = time.Since(begin)
			}
		}
		select {
		case <-ctx.Done():
			return 0, 0, ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
	return inProvider, inConsumer, nil
}

// readyVirtualNode is a Ready virtual node made from the provider's own
// advertisement.
func readyVirtualNode(ctx context.Context, home client.Client, provider string) (string, error) {
	var nodes corev1.NodeList
	if err := home.List(ctx, &nodes, client.MatchingLabels{sharingv1alpha1.LabelVirtualNode: "true", sharingv1alpha1.LabelAdvertisement: provider}); err != nil {
		return "", fmt.Errorf("failed to list virtual nodes: %w", err)
	}
	for _, n := range nodes.Items {
		if nodeReady(&n) && !n.Spec.Unschedulable {
			return n.Name, nil
		}
	}
	return "", fmt.Errorf("no Ready virtual node of %s's advertisement: is the sharing testbed up and its agents running?", provider)
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// waitProgress polls check every 50 ms until it is done, printing how far
// it got once a second, for at most o.Timeout.
func waitProgress(ctx context.Context, o SharingOptions, what string, check func() (int, bool, error), total int) error {
	begin := time.Now()
	last := time.Now()
	for {
		n, done, err := check()
		if err != nil {
			return err
		}
		if done || time.Since(last) >= time.Second {
			fmt.Fprintf(o.Progress, "%d/%d %s after %s\n", n, total, what, time.Since(begin).Round(100*time.Millisecond))
			last = time.Now()
		}
		if done {
			return nil
		}
		if time.Since(begin) > o.Timeout {
			return fmt.Errorf("only %d of %d %s within %s", n, total, what, o.Timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// SharingTable prints the measures beside seed 002's figures and the
// issue's goals.
func SharingTable(w io.Writer, r SharingResult) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "measure\tMeridian\tseed 002\tgoal\t")
	fmt.Fprintf(tw, "%d advertisements → %d virtual nodes Ready\t%.2f s\t~%.0f s\t≤ %.0f s\t\n", r.Advertisements, r.Advertisements, r.NodesReady.Seconds(), seedNodesReady, goalNodesReady)
	if len(r.InConsumer) > 0 {
		fmt.Fprintf(tw, "pod bound → Running in provider (median of %d, max)\t%.2f s (%.2f)\t\t\t\n", len(r.InProvider), median(r.InProvider).Seconds(), slices.Max(r.InProvider).Seconds())
		fmt.Fprintf(tw, "pod bound → Running in consumer (median of %d, max)\t%.2f s (%.2f)\t~%.0f s\t≤ %.0f s\t\n", len(r.InConsumer), median(r.InConsumer).Seconds(), slices.Max(r.InConsumer).Seconds(), seedPodRunning, goalPodRunning)
	}
	return tw.Flush()
}
