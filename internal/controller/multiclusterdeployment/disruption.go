package multiclusterdeployment

import (
	"context"
	"fmt"
	"math"

	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
)

// budget is the fewest ready replicas the workload's PodDisruptionBudgets
// allow while replicas move, and the budget that sets it.
type budget struct {
	minReady int32
	name     string
}

// disruptionBudget reads the PodDisruptionBudgets in mcd's namespace of the
// management cluster whose selector matches mcd's pod template, and
// returns the strictest: minAvailable as is (a percentage of the replicas
// wanted, rounded up), maxUnavailable as wanted minus it (rounded down, as
// Kubernetes does). A workload with no budget gets zero.
func (r *Reconciler) disruptionBudget(ctx context.Context, mcd *multiclusterv1alpha1.MultiClusterDeployment, wanted int32) (budget, error) {
	// Read from the API server: budgets are read only when replicas move,
	// which does not warrant an informer (nor one started mid-shutdown).
	reader := r.APIReader
	if reader == nil {
		reader = r.Client
	}
	var list policyv1.PodDisruptionBudgetList
	if err := reader.List(ctx, &list, client.InNamespace(mcd.Namespace)); err != nil {
		return budget{}, fmt.Errorf("failed to list PodDisruptionBudgets: %w", err)
	}
	var strictest budget
	for i := range list.Items {
		pdb := &list.Items[i]
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil || pdb.Spec.Selector == nil || sel.Empty() || !sel.Matches(labels.Set(mcd.Spec.Template.Labels)) {
			continue
		}
		var need int32
		switch {
		case pdb.Spec.MinAvailable != nil:
			need = scaled(*pdb.Spec.MinAvailable, wanted, true)
		case pdb.Spec.MaxUnavailable != nil:
			need = wanted - scaled(*pdb.Spec.MaxUnavailable, wanted, false)
		}
		if need > strictest.minReady {
			strictest = budget{minReady: need, name: pdb.Name}
		}
	}
	return strictest, nil
}

// scaled is v as a number of replicas out of total.
func scaled(v intstr.IntOrString, total int32, roundUp bool) int32 {
	n, err := intstr.GetScaledValueFromIntOrPercent(&v, int(total), roundUp)
	if err != nil {
		return 0
	}
	return int32(max(min(n, math.MaxInt32), 0))
}
