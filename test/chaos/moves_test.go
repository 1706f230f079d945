package chaos_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
)

// Moves: a filler MultiClusterDeployment pinned to one member (without
// substitution) takes most of its CPU, so that the workloads that prefer
// that member are substituted or burst to others; deleting the filler
// leaves room at home, and the re-scheduler pulls them back.
const (
	fillerPrefix = "fill-"
	// fillerReplicas of fillerMilliCPU take 10 of a uniform member's 12
	// CPUs (three 4-CPU nodes).
	fillerReplicas = 10
	fillerMilliCPU = 1000
	// reschedulerName is the MultiClusterRescheduler the kill test runs
	// with, at pullBackInterval.
	reschedulerName  = "chaos"
	pullBackInterval = 5 * time.Second
)

// startRescheduler creates the MultiClusterRescheduler that pulls replicas
// back home.
func (w *world) startRescheduler(ctx context.Context) error {
	mcr := &multiclusterv1alpha1.MultiClusterRescheduler{ObjectMeta: metav1.ObjectMeta{Name: reschedulerName}}
	mcr.Spec.Interval = &metav1.Duration{Duration: pullBackInterval}
	if err := w.mgmt.Create(ctx, mcr); err != nil {
		return fmt.Errorf("failed to create MultiClusterRescheduler %s: %w", reschedulerName, err)
	}
	return nil
}

// movedBack returns how many replicas the re-scheduler reports it moved
// back home.
func (w *world) movedBack(ctx context.Context) (int64, error) {
	var mcr multiclusterv1alpha1.MultiClusterRescheduler
	if err := w.mgmt.Get(ctx, client.ObjectKey{Name: reschedulerName}, &mcr); err != nil {
		return 0, fmt.Errorf("failed to read MultiClusterRescheduler %s: %w", reschedulerName, err)
	}
	return mcr.Status.ReplicasMovedBack, nil
}

// move fills a random member that has no filler, or frees one that has.
func (d *driver) move(ctx context.Context) error {
	member := d.w.names[d.rng.IntN(len(d.w.names))]
	name := fillerPrefix + member
	var existing multiclusterv1alpha1.MultiClusterDeployment
	err := d.w.mgmt.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, &existing)
	switch {
	case err == nil:
		d.freed++
		return ignoreConflicts(d.w.mgmt.Delete(ctx, &existing))
	case !apierrors.IsNotFound(err):
		return fmt.Errorf("failed to read MultiClusterDeployment %s: %w", name, err)
	}
	mcd := &multiclusterv1alpha1.MultiClusterDeployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}}
	mcd.Spec.Replicas = ptr.To[int32](fillerReplicas)
	mcd.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}
	mcd.Spec.Template = podTemplate(name, fillerMilliCPU)
	mcd.Spec.Placement = multiclusterv1alpha1.Placement{Locations: []multiclusterv1alpha1.ClusterName{multiclusterv1alpha1.ClusterName(member)}}
	d.filled++
	return ignoreConflicts(d.w.mgmt.Create(ctx, mcd))
}

// awayCounts adds up, over the MultiClusterDeployments (fillers aside),
// the replicas their status places on substitute and burst clusters.
func (w *world) awayCounts(ctx context.Context) (substitute, burst int32, err error) {
	var list multiclusterv1alpha1.MultiClusterDeploymentList
	if err := w.mgmt.List(ctx, &list, client.InNamespace(namespace)); err != nil {
		return 0, 0, fmt.Errorf("failed to list MultiClusterDeployments: %w", err)
	}
	for _, d := range list.Items {
		if strings.HasPrefix(d.Name, fillerPrefix) {
			continue
		}
		for _, c := range d.Status.Clusters {
			switch c.Reason {
			case multiclusterv1alpha1.PlacementSubstitute:
				substitute += c.Replicas
			case multiclusterv1alpha1.PlacementBurst:
				burst += c.Replicas
			}
		}
	}
	return substitute, burst, nil
}

// moveTally adds up what the inspections saw of moves.
type moveTally struct {
	// inspections with replicas on substitute or burst clusters, and the
	// largest number of such replicas at once.
	withSubstitute, withBurst int
	maxSubstitute, maxBurst   int32
}

func (m *moveTally) add(substitute, burst int32) {
	if substitute > 0 {
		m.withSubstitute++
	}
	if burst > 0 {
		m.withBurst++
	}
	m.maxSubstitute, m.maxBurst = max(m.maxSubstitute, substitute), max(m.maxBurst, burst)
}

func (m *moveTally) log(t *testing.T, filled, freed int, movedBack int64) {
	t.Helper()
	t.Logf("moves: %d fills and %d frees of a member; replicas on substitutes in %d inspections (at most %d at once), burst in %d (at most %d); %d replicas pulled back home",
		filled, freed, m.withSubstitute, m.maxSubstitute, m.withBurst, m.maxBurst, movedBack)
}
