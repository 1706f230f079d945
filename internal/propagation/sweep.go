package propagation

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/inventory"
)

// SweptKind is one kind of owner whose member objects the Sweeper checks.
type SweptKind struct {
	// OwnerKind is the owner's kind as written on member objects.
	OwnerKind string
	// NewOwner returns an empty owner object to read into.
	NewOwner func() client.Object
	// NewLists returns empty lists of the member objects the owner makes.
	NewLists func() []client.ObjectList
}

// Sweeper removes member objects whose owner is gone (deleted while the
// member was unreachable, or re-created under the same name with a new
// UID). It is a manager Runnable that runs on the leader only.
type Sweeper struct {
	// Reader reads owners from the management cluster's API server
	// directly, so that an empty cache right after a start is never taken
	// for deleted owners.
	Reader    client.Reader
	Inventory *inventory.Inventory
	Kinds     []SweptKind
	// Interval between two sweeps.
	Interval time.Duration
}

// NeedLeaderElection makes the sweeper run on the leader only.
func (s *Sweeper) NeedLeaderElection() bool { return true }

// Start sweeps every Interval until ctx ends.
func (s *Sweeper) Start(ctx context.Context) error {
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

// Sweep removes the orphaned objects of every connected member once.
func (s *Sweeper) Sweep(ctx context.Context) error {
	var errs []error
	for _, name := range s.Inventory.Members() {
		m, ok := s.Inventory.Member(name)
		if !ok {
			continue
		}
		for _, k := range s.Kinds {
			for _, list := range k.NewLists() {
				if err := s.sweep(ctx, name, m.Client, k, list); err != nil {
					errs = append(errs, err)
				}
			}
		}
	}
	return errors.Join(errs...)
}

func (s *Sweeper) sweep(ctx context.Context, member string, c client.Client, k SweptKind, list client.ObjectList) error {
	err := c.List(ctx, list, client.MatchingLabels{
		multiclusterv1alpha1.LabelManagedBy: multiclusterv1alpha1.ManagedByMeridian,
		multiclusterv1alpha1.LabelOwnerKind: k.OwnerKind,
	})
	if meta.IsNoMatchError(err) {
		return nil // the member does not serve this kind (an optional CRD)
	}
	if err != nil {
		return fmt.Errorf("failed to list %T in member %q: %w", list, member, err)
	}
	return meta.EachListItem(list, func(o runtime.Object) error {
		obj := o.(client.Object)
		owner, ok := OwnerOf(obj)
		if !ok || !obj.GetDeletionTimestamp().IsZero() {
			return nil
		}
		orphan, err := s.orphaned(ctx, k, owner)
		if err != nil || !orphan {
			return err
		}
		log.FromContext(ctx).Info("Deleting orphaned member object", "cluster", member, "kind", fmt.Sprintf("%T", obj), "object", klog.KObj(obj), "owner", owner.Namespace+"/"+owner.Name)
		if err := c.Delete(ctx, obj, client.PropagationPolicy(metav1.DeletePropagationBackground)); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("failed to delete orphaned %s in member %q: %w", klog.KObj(obj), member, err)
		}
		return nil
	})
}

func (s *Sweeper) orphaned(ctx context.Context, k SweptKind, o Owner) (bool, error) {
	owner := k.NewOwner()
	err := s.Reader.Get(ctx, client.ObjectKey{Namespace: o.Namespace, Name: o.Name}, owner)
	switch {
	case apierrors.IsNotFound(err):
		return true, nil
	case err != nil:
		return false, fmt.Errorf("failed to read owner %s %s/%s: %w", k.OwnerKind, o.Namespace, o.Name, err)
	}
	return o.UID != "" && o.UID != string(owner.GetUID()), nil
}
