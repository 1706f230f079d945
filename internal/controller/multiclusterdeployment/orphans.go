package multiclusterdeployment

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/inventory"
	"github.com/meridian-dev/meridian/internal/propagation"
)

// OrphanSweeper removes member Deployments whose MultiClusterDeployment is
// gone (deleted while the member was unreachable, or re-created under the
// same name with a new UID). It is a manager Runnable that runs on the
// leader only.
type OrphanSweeper struct {
	// Reader reads MultiClusterDeployments from the management cluster's
	// API server directly, so that an empty cache right after a start is
	// never taken for deleted owners.
	Reader    client.Reader
	Inventory *inventory.Inventory
	// Interval between two sweeps.
	Interval time.Duration
}

// NeedLeaderElection makes the sweeper run on the leader only.
func (s *OrphanSweeper) NeedLeaderElection() bool { return true }

// Start sweeps every Interval until ctx ends.
func (s *OrphanSweeper) Start(ctx context.Context) error {
	if s.Interval == 0 {
		s.Interval = time.Minute
	}
	t := time.NewTicker(s.Interval)
	defer t.Stop()
	for {
		if err := s.Sweep(ctx); err != nil {
			log.FromContext(ctx).Error(err, "Orphan sweep failed")
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// Sweep removes the orphaned member Deployments of every connected member
// once.
func (s *OrphanSweeper) Sweep(ctx context.Context) error {
	logger := log.FromContext(ctx)
	for _, name := range s.Inventory.Members() {
		m, ok := s.Inventory.Member(name)
		if !ok {
			continue
		}
		var list appsv1.DeploymentList
		if err := m.Client.List(ctx, &list, client.MatchingLabels{
			multiclusterv1alpha1.LabelManagedBy: multiclusterv1alpha1.ManagedByMeridian,
			multiclusterv1alpha1.LabelOwnerKind: Kind,
		}); err != nil {
			return fmt.Errorf("failed to list Meridian's Deployments in member %q: %w", name, err)
		}
		for i := range list.Items {
			d := &list.Items[i]
			owner, ok := propagation.OwnerOf(d)
			if !ok || !d.DeletionTimestamp.IsZero() {
				continue
			}
			orphan, err := s.orphaned(ctx, owner)
			if err != nil {
				return err
			}
			if !orphan {
				continue
			}
			logger.Info("Deleting orphaned member Deployment", "cluster", name, "deployment", klog.KObj(d), "owner", owner.Namespace+"/"+owner.Name)
			if err := m.Client.Delete(ctx, d, client.PropagationPolicy(metav1.DeletePropagationBackground)); client.IgnoreNotFound(err) != nil {
				return fmt.Errorf("failed to delete orphaned Deployment %s in member %q: %w", klog.KObj(d), name, err)
			}
		}
	}
	return nil
}

func (s *OrphanSweeper) orphaned(ctx context.Context, o propagation.Owner) (bool, error) {
	mcd := &multiclusterv1alpha1.MultiClusterDeployment{}
	err := s.Reader.Get(ctx, client.ObjectKey{Namespace: o.Namespace, Name: o.Name}, mcd)
	switch {
	case apierrors.IsNotFound(err):
		return true, nil
	case err != nil:
		return false, fmt.Errorf("failed to read owner %s/%s: %w", o.Namespace, o.Name, err)
	}
	return o.UID != "" && o.UID != string(mcd.UID), nil
}
