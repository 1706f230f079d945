package cluster

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/inventory"
	"github.com/meridian-dev/meridian/internal/manifest"
	"github.com/meridian-dev/meridian/internal/probe"
)

// observeProbe reads the report of the member's prober (meridian probe),
// when it runs one, into c's status: where it answers, and the round-trip
// times it measured to the other Clusters, nearest first. Then it tells
// the prober where the other members' probers answer. A member without a
// prober keeps the latencies it last reported, which age out of placement
// (placement.ChooseLatency).
func (r *Reconciler) observeProbe(ctx context.Context, c *multiclusterv1alpha1.Cluster, member *inventory.Member) error {
	cm := &corev1.ConfigMap{}
	err := member.APIReader.Get(ctx, client.ObjectKey{Namespace: r.Namespace, Name: probe.ProbeConfigMap}, cm)
	if apierrors.IsNotFound(err) {
		c.Status.ProbeAddress = ""
		return nil
	}
	if err != nil {
		return fmt.Errorf("failed to read the prober's report: %w", err)
	}
	report, err := probe.ReadReport(cm)
	if err != nil {
		return err
	}
	var clusters multiclusterv1alpha1.ClusterList
	if err := r.Client.List(ctx, &clusters); err != nil {
		return fmt.Errorf("failed to list Clusters: %w", err)
	}
	known := map[string]bool{}
	targets := map[string]string{}
	for _, other := range clusters.Items {
		known[other.Name] = true
		if other.Name != c.Name && other.Status.ProbeAddress != "" && other.DeletionTimestamp.IsZero() {
			targets[other.Name] = other.Status.ProbeAddress
		}
	}
	if err := validAddress(report.Address); err != nil {
		return fmt.Errorf("the prober's report is refused: %w", err)
	}
	c.Status.ProbeAddress = report.Address
	// Merged by cluster into what was measured before: a member that did
	// not answer this round keeps its last measurement, which ages out of
	// placement.
	byCluster := map[string]multiclusterv1alpha1.ClusterLatency{}
	for _, l := range c.Status.Latencies {
		if known[string(l.Cluster)] && l.MeasuredAt != nil {
			byCluster[string(l.Cluster)] = l
		}
	}
	for _, m := range report.Latencies {
		if !known[m.Cluster] || m.Cluster == c.Name || m.RTT <= 0 || m.MeasuredAt.IsZero() {
			continue
		}
		if old, ok := byCluster[m.Cluster]; ok && !m.MeasuredAt.After(old.MeasuredAt.Time) {
			continue
		}
		at := metav1.NewTime(m.MeasuredAt)
		byCluster[m.Cluster] = multiclusterv1alpha1.ClusterLatency{
			Cluster: multiclusterv1alpha1.ClusterName(m.Cluster), RTT: metav1.Duration{Duration: m.RTT}, MeasuredAt: &at,
		}
	}
	latencies := slices.Collect(maps.Values(byCluster))
	slices.SortStableFunc(latencies, func(a, b multiclusterv1alpha1.ClusterLatency) int {
		if c := cmp.Compare(a.RTT.Duration, b.RTT.Duration); c != 0 {
			return c
		}
		return strings.Compare(string(a.Cluster), string(b.Cluster))
	})
	c.Status.Latencies = latencies
	return r.writeTargets(ctx, member, targets)
}

// writeTargets applies the prober's targets into the member when they
// changed.
func (r *Reconciler) writeTargets(ctx context.Context, member *inventory.Member, targets map[string]string) error {
	cm := &corev1.ConfigMap{}
	err := member.APIReader.Get(ctx, client.ObjectKey{Namespace: r.Namespace, Name: probe.TargetsConfigMap}, cm)
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return fmt.Errorf("failed to read the prober's targets: %w", err)
	default:
		if old, err := probe.ReadTargets(cm); err == nil && maps.Equal(old, targets) {
			return nil
		}
	}
	want, err := probe.TargetsConfigMapOf(r.Namespace, targets)
	if err != nil {
		return err
	}
	u, err := manifest.ForApply(want)
	if err != nil {
		return err
	}
	if err := member.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner("meridian"), client.ForceOwnership); err != nil {
		return fmt.Errorf("failed to write the prober's targets: %w", err)
	}
	return nil
}

// maxAddress is the longest probe address status.probeAddress holds.
const maxAddress = 261

// validAddress checks a prober's advertised address: host:port, as long as
// the Cluster's status takes. It is handed to the other members' probers
// to dial.
func validAddress(addr string) error {
	if len(addr) > maxAddress {
		return fmt.Errorf("address is %d characters long, more than %d", len(addr), maxAddress)
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		return fmt.Errorf("address %q is not host:port", addr)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("address %q has no port from 1 to 65535", addr)
	}
	return nil
}
