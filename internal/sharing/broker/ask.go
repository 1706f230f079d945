package broker

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/scheme"
)

// Ask writes a CapacityQuery with spec into the member's namespace at the
// broker (memberKubeconfig is Onboard's), waits up to timeout for the
// broker's answer and returns the answered query; with cleanup it deletes
// the query afterwards. A query the API server refuses comes back as its
// error, which names the field.
func Ask(ctx context.Context, memberKubeconfig []byte, spec sharingv1alpha1.CapacityQuerySpec, timeout time.Duration, cleanup bool) (*sharingv1alpha1.CapacityQuery, error) {
	cc, err := clientcmd.NewClientConfigFromBytes(memberKubeconfig)
	if err != nil {
		return nil, fmt.Errorf("failed to read the member's broker kubeconfig: %w", err)
	}
	ns, _, err := cc.Namespace()
	if err != nil || ns == "" || ns == metav1.NamespaceDefault {
		return nil, fmt.Errorf("broker kubeconfig: %w (use the one meridian broker onboard printed)", ErrNoNamespace)
	}
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("failed to read the member's broker kubeconfig: %w", err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme.New()})
	if err != nil {
		return nil, fmt.Errorf("failed to build a client for the broker: %w", err)
	}
	q := &sharingv1alpha1.CapacityQuery{ObjectMeta: metav1.ObjectMeta{GenerateName: "query-", Namespace: ns}, Spec: spec}
	if err := c.Create(ctx, q); err != nil {
		return nil, fmt.Errorf("the broker refused the query: %w", err)
	}
	if cleanup {
		defer func() { _ = c.Delete(context.WithoutCancel(ctx), q) }()
	}
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		if err := c.Get(ctx, client.ObjectKeyFromObject(q), q); err != nil {
			return false, err
		}
		cond := meta.FindStatusCondition(q.Status.Conditions, sharingv1alpha1.CapacityQueryAnswered)
		return cond != nil && cond.ObservedGeneration == q.Generation, nil
	})
	if err != nil {
		return nil, fmt.Errorf("no answer to query %s/%s within %s: %w", ns, q.Name, timeout, err)
	}
	if cond := meta.FindStatusCondition(q.Status.Conditions, sharingv1alpha1.CapacityQueryAnswered); cond.Status != metav1.ConditionTrue {
		return q, fmt.Errorf("the broker did not answer query %s/%s: %s: %s", ns, q.Name, cond.Reason, cond.Message)
	}
	return q, nil
}
