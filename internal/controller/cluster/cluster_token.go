package cluster

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/decide"
	"github.com/meridian-dev/meridian/internal/inventory"
	"github.com/meridian-dev/meridian/internal/membertoken"
)

// Cluster condition reasons of the credentials `meridian join` issued.
const (
	// ReasonCredentialsExpired means the member's token expired before it
	// was renewed (the controller was stopped for longer than the rest of
	// its lifetime): a new join issues another.
	ReasonCredentialsExpired = "CredentialsExpired"
	// ReasonTokenRenewed and ReasonTokenRenewalFailed are the events of a
	// renewal.
	ReasonTokenRenewed       = "TokenRenewed"
	ReasonTokenRenewalFailed = "TokenRenewalFailed"
)

// tokenState is what the Secret's annotations say of its token, and when
// it is renewed.
type tokenState struct {
	lifetime membertoken.Lifetime
	renewAt  time.Time
}

// tokenOf reads secret's token annotations: nil for credentials Meridian
// did not issue.
func (r *Reconciler) tokenOf(secret *corev1.Secret) (*tokenState, error) {
	l, err := membertoken.LifetimeOf(secret)
	if errors.Is(err, membertoken.ErrNotIssued) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &tokenState{lifetime: l, renewAt: decide.TokenRenewal(l.Issued, l.Expires, r.TokenRenewBefore)}, nil
}

// expiredMessage says what to do about an expired token.
func expiredMessage(c *multiclusterv1alpha1.Cluster, secret *corev1.Secret, t *tokenState) string {
	return fmt.Sprintf("the token in Secret %s/%s expired at %s before it was renewed; run meridian join %s again to issue a new one",
		secret.Namespace, secret.Name, t.lifetime.Expires.UTC().Format(time.RFC3339), c.Name)
}

// renew issues a new token for the same ServiceAccount and lifetime with
// the current one, and writes it into secret; the caller reconnects with
// the new kubeconfig.
func (r *Reconciler) renew(ctx context.Context, c *multiclusterv1alpha1.Cluster, secret *corev1.Secret, cfg *rest.Config, t *tokenState, now time.Time) error {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("failed to make a client of member %q: %w", c.Name, err)
	}
	ttl := max(t.lifetime.Expires.Sub(t.lifetime.Issued).Round(time.Minute), membertoken.MinTTL)
	token, err := membertoken.Issue(ctx, cs, t.lifetime.ServiceAccount, ttl, now)
	if err != nil {
		return err
	}
	key := r.kubeconfigKey(c)
	kubeconfig, err := membertoken.Replace(secret.Data[key], token.Value)
	if err != nil {
		return fmt.Errorf("failed to put the new token into Secret %s/%s: %w", secret.Namespace, secret.Name, err)
	}
	before := secret.DeepCopy()
	secret.Data[key] = kubeconfig
	membertoken.Annotate(secret, token)
	// Optimistic: a Secret changed meanwhile (a new join) is not
	// overwritten with an older token.
	if err := r.Client.Patch(ctx, secret, client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{})); err != nil {
		return fmt.Errorf("failed to write the renewed token into Secret %s/%s: %w", secret.Namespace, secret.Name, err)
	}
	log.FromContext(ctx).Info("Renewed member token", "cluster", c.Name, "serviceAccount", token.ServiceAccount.String(), "expires", token.Expires)
	if r.Recorder != nil {
		r.Recorder.Eventf(c, nil, corev1.EventTypeNormal, ReasonTokenRenewed, "RenewToken", "token of ServiceAccount %s renewed, valid until %s", token.ServiceAccount, token.Expires.UTC().Format(time.RFC3339))
	}
	return nil
}

func (r *Reconciler) kubeconfigKey(c *multiclusterv1alpha1.Cluster) string {
	if c.Spec.KubeconfigSecretRef.Key != "" {
		return c.Spec.KubeconfigSecretRef.Key
	}
	return inventory.DefaultKubeconfigKey
}
