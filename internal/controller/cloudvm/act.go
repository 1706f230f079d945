package cloudvm

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	computev1alpha1 "github.com/meridian-dev/meridian/api/compute/v1alpha1"
	"github.com/meridian-dev/meridian/internal/decide"
)

// acted is what a pass did: how many objects it applied, and what failed.
type acted struct {
	applied  int
	applyErr error
	// deleteErr is a failed deletion, retried with the pass.
	deleteErr error
}

// err is the pass's failure, if any.
func (a acted) err() error {
	if a.applyErr != nil {
		return a.applyErr
	}
	return a.deleteErr
}

// act applies the objects p.Apply names with server-side apply, in order
// (owners first), and deletes those p.Delete names. An apply that fails
// stops the applies: the next pass applies what is still missing.
func (r *Reconciler) act(ctx context.Context, vm *computev1alpha1.CloudVM, p *decide.VMPlan, rendered, existing []*unstructured.Unstructured) acted {
	logger := log.FromContext(ctx)
	var a acted
	for _, k := range p.Apply {
		u := find(rendered, k)
		if u == nil {
			continue
		}
		err := r.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(u.DeepCopy()), client.FieldOwner(FieldOwner), client.ForceOwnership)
		if err != nil {
			a.applyErr = fmt.Errorf("failed to apply %s %s: %w", u.GetKind(), klog.KObj(u), err)
			break
		}
		a.applied++
		logger.Info("Applied provider object", "kind", u.GetKind(), "object", klog.KObj(u))
	}
	for _, k := range p.Delete {
		u := find(existing, k)
		if u == nil {
			continue
		}
		if err := r.Client.Delete(ctx, u); client.IgnoreNotFound(err) != nil {
			a.deleteErr = fmt.Errorf("failed to delete %s %s: %w", u.GetKind(), klog.KObj(u), err)
			return a
		}
		logger.Info("Deleted provider object", "kind", u.GetKind(), "object", klog.KObj(u))
	}
	return a
}

// find is the object of objs that k names; nil if none.
func find(objs []*unstructured.Unstructured, k decide.VMObjectKey) *unstructured.Unstructured {
	for _, o := range objs {
		if key(o) == k {
			return o
		}
	}
	return nil
}
