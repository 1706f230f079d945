package propagationpolicy

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/selection"
)

// maxMessage bounds a condition's message well below the API's 32768.
const maxMessage = 4096

// writeStatus writes what p selects, who won what it lost (or keeps it:
// kept are the objects a held policy keeps, by key), and its Ready
// condition.
func (r *Reconciler) writeStatus(ctx context.Context, p *policy, claims []selection.Claim, kept map[string]string) error {
	before := p.status.DeepCopy()
	st := p.status
	st.ObservedGeneration = p.obj.GetGeneration()
	var lost []string
	if len(p.problems) == 0 {
		// A held policy selects nothing now; what it placed is listed as
		// it was.
		st.Resources = nil
	}
	for _, c := range claims {
		sr := multiclusterv1alpha1.SelectedResource{APIVersion: c.Object.GVK.GroupVersion().String(), Kind: c.Object.GVK.Kind, Namespace: c.Object.Namespace, Name: c.Object.Name}
		winner := c.Winner.Ref
		if k, ok := kept[c.Object.Key()]; ok {
			winner = k
		}
		if winner != p.sel.Ref {
			sr.ClaimedBy = winner
			lost = append(lost, fmt.Sprintf("%s %s/%s is placed by %s", sr.Kind, sr.Namespace, sr.Name, winner))
		}
		if len(st.Resources) < 1000 {
			st.Resources = append(st.Resources, sr)
		}
	}
	cond := metav1.Condition{Type: multiclusterv1alpha1.ConditionReady, ObservedGeneration: st.ObservedGeneration}
	switch {
	case len(p.problems) > 0:
		var msgs []string
		for _, pr := range p.problems {
			msgs = append(msgs, pr.message)
		}
		cond.Status, cond.Reason = metav1.ConditionFalse, p.problems[0].reason
		cond.Message = strings.Join(msgs, "; ") + "; the objects the policy placed before stay as they are until it is corrected"
	case len(lost) > 0:
		cond.Status, cond.Reason = metav1.ConditionFalse, multiclusterv1alpha1.ReasonClaimedByOther
		cond.Message = strings.Join(lost, "; ") + " (a PropagationPolicy wins over a ClusterPropagationPolicy, then the higher priority, the more specific selector, the first name)"
	default:
		cond.Status, cond.Reason = metav1.ConditionTrue, multiclusterv1alpha1.ReasonSelected
		cond.Message = fmt.Sprintf("%d objects selected and placed by this policy", len(claims))
	}
	if len(cond.Message) > maxMessage {
		cond.Message = cond.Message[:maxMessage-3] + "..."
	}
	meta.SetStatusCondition(&st.Conditions, cond)
	if equality.Semantic.DeepEqual(before, st) {
		return nil
	}
	if err := r.Client.Status().Update(ctx, p.obj); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("failed to write the status of %s: %w", p.sel.Ref, err)
	}
	return nil
}
