package cluster

import (
	"context"
	"fmt"
	"maps"
	"slices"

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
	c.Status.ProbeAddress = report.Address
	latencies := make([]multiclusterv1alpha1.ClusterLatency, 0, len(report.Latencies))
	for _, m := range report.Latencies {
		if !known[m.Cluster] || m.Cluster == c.Name {
			continue
		}
		at := metav1.NewTime(m.MeasuredAt)
		latencies = append(latencies, multiclusterv1alpha1.ClusterLatency{
			Cluster: multiclusterv1alpha1.ClusterName(m.Cluster), RTT: metav1.Duration{Duration: m.RTT}, MeasuredAt: &at,
		})
	}
	// A round that reached no one keeps the last measurements, which age.
	if len(latencies) > 0 {
		slices.SortStableFunc(latencies, func(a, b multiclusterv1alpha1.ClusterLatency) int {
			return int(a.RTT.Duration - b.RTT.Duration)
		})
		c.Status.Latencies = latencies
	}
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
