package membertoken

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/decide"
)

// MinTTL is the shortest lifetime an API server issues a token for.
const MinTTL = 10 * time.Minute

// Token is a ServiceAccount token and its lifetime.
type Token struct {
	// ServiceAccount the token authenticates as.
	ServiceAccount types.NamespacedName
	Value          string
	Issued         time.Time
	Expires        time.Time
}

// Issue asks the member's TokenRequest API for a token of the
// ServiceAccount sa that lives ttl; now is when it was asked for.
func Issue(ctx context.Context, cs kubernetes.Interface, sa types.NamespacedName, ttl time.Duration, now time.Time) (Token, error) {
	if ttl < MinTTL {
		return Token{}, fmt.Errorf("token lifetime %v is shorter than the %v an API server issues at least", ttl, MinTTL)
	}
	seconds := int64(ttl / time.Second)
	tr, err := cs.CoreV1().ServiceAccounts(sa.Namespace).CreateToken(ctx, sa.Name, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &seconds},
	}, metav1.CreateOptions{})
	if err != nil {
		return Token{}, fmt.Errorf("failed to request a token for ServiceAccount %s: %w", sa, err)
	}
	return Token{ServiceAccount: sa, Value: tr.Status.Token, Issued: now, Expires: tr.Status.ExpirationTimestamp.Time}, nil
}

// Annotate records t's ServiceAccount and lifetime on secret.
func Annotate(secret *corev1.Secret, t Token) {
	if secret.Annotations == nil {
		secret.Annotations = map[string]string{}
	}
	secret.Annotations[multiclusterv1alpha1.AnnotationTokenServiceAccount] = t.ServiceAccount.String()
	secret.Annotations[multiclusterv1alpha1.AnnotationTokenIssued] = t.Issued.UTC().Format(time.RFC3339)
	secret.Annotations[multiclusterv1alpha1.AnnotationTokenExpires] = t.Expires.UTC().Format(time.RFC3339)
}

// Lifetime is what a kubeconfig Secret's annotations say of its token.
type Lifetime struct {
	ServiceAccount  types.NamespacedName
	Issued, Expires time.Time
}

// ErrNotIssued means the Secret holds credentials Meridian did not issue
// (no AnnotationTokenServiceAccount): they are used as they are and never
// renewed.
var ErrNotIssued = errors.New("the kubeconfig Secret holds no token Meridian issued")

// LifetimeOf reads secret's token annotations; ErrNotIssued when it has
// none, an error naming the annotation when one is malformed.
func LifetimeOf(secret *corev1.Secret) (Lifetime, error) {
	a := secret.Annotations
	sa, ok := a[multiclusterv1alpha1.AnnotationTokenServiceAccount]
	if !ok {
		return Lifetime{}, ErrNotIssued
	}
	var l Lifetime
	ns, name, found := strings.Cut(sa, "/")
	if !found || ns == "" || name == "" {
		return Lifetime{}, fmt.Errorf("annotation %s of Secret %s/%s is %q, want namespace/name", multiclusterv1alpha1.AnnotationTokenServiceAccount, secret.Namespace, secret.Name, sa)
	}
	l.ServiceAccount = types.NamespacedName{Namespace: ns, Name: name}
	for _, f := range []struct {
		key string
		to  *time.Time
	}{{multiclusterv1alpha1.AnnotationTokenIssued, &l.Issued}, {multiclusterv1alpha1.AnnotationTokenExpires, &l.Expires}} {
		t, err := time.Parse(time.RFC3339, a[f.key])
		if err != nil {
			return Lifetime{}, fmt.Errorf("annotation %s of Secret %s/%s is %q, want an RFC 3339 time: %w", f.key, secret.Namespace, secret.Name, a[f.key], err)
		}
		*f.to = t
	}
	if !l.Expires.After(l.Issued) {
		return Lifetime{}, fmt.Errorf("annotation %s of Secret %s/%s is not after %s", multiclusterv1alpha1.AnnotationTokenExpires, secret.Namespace, secret.Name, multiclusterv1alpha1.AnnotationTokenIssued)
	}
	return l, nil
}

// Replace returns kubeconfig with the token of its current context's user
// replaced by token.
func Replace(kubeconfig []byte, token string) ([]byte, error) {
	cfg, err := clientcmd.Load(kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("failed to read the kubeconfig: %w", err)
	}
	ctx, ok := cfg.Contexts[cfg.CurrentContext]
	if !ok {
		return nil, fmt.Errorf("the kubeconfig's current context %q does not exist", cfg.CurrentContext)
	}
	user, ok := cfg.AuthInfos[ctx.AuthInfo]
	if !ok {
		return nil, fmt.Errorf("the kubeconfig's user %q of context %q does not exist", ctx.AuthInfo, cfg.CurrentContext)
	}
	user.Token = token
	out, err := clientcmd.Write(*cfg)
	if err != nil {
		return nil, fmt.Errorf("failed to write the kubeconfig: %w", err)
	}
	return out, nil
}

// Reusable reports whether secret holds, under key, a kubeconfig of server
// with a token Meridian issued for sa, of lifetime ttl (within a minute),
// that is not yet due for renewal at now (decide.TokenRenewal), so that
// running a join or a peering again with the same flags keeps it rather
// than issuing another, and one with another lifetime issues one of it.
func Reusable(secret *corev1.Secret, key string, sa types.NamespacedName, server string, ttl time.Duration, now time.Time) bool {
	l, err := LifetimeOf(secret)
	if err != nil || l.ServiceAccount != sa {
		return false
	}
	if d := l.Expires.Sub(l.Issued) - ttl; d > time.Minute || d < -time.Minute {
		return false
	}
	if !now.Before(decide.TokenRenewal(l.Issued, l.Expires, 0)) {
		return false
	}
	cfg, err := clientcmd.Load(secret.Data[key])
	if err != nil {
		return false
	}
	ctx := cfg.Contexts[cfg.CurrentContext]
	if ctx == nil || cfg.Clusters[ctx.Cluster] == nil {
		return false
	}
	return cfg.Clusters[ctx.Cluster].Server == server
}

// Kubeconfig writes a self-contained kubeconfig of the cluster cfg reaches,
// at server, for user with token: the CA (read from cfg's file when it
// names one), the server name and whether to skip verification are cfg's;
// namespace, when not empty, is its context's.
func Kubeconfig(cluster, server string, cfg *rest.Config, user, token, namespace string) ([]byte, error) {
	ca := cfg.CAData
	if len(ca) == 0 && cfg.CAFile != "" {
		data, err := os.ReadFile(cfg.CAFile)
		if err != nil {
			return nil, fmt.Errorf("failed to read the certificate authority %s: %w", cfg.CAFile, err)
		}
		ca = data
	}
	out := clientcmdapi.NewConfig()
	out.Clusters[cluster] = &clientcmdapi.Cluster{
		Server:                   server,
		CertificateAuthorityData: bytes.Clone(ca),
		TLSServerName:            cfg.ServerName,
		InsecureSkipTLSVerify:    cfg.Insecure,
	}
	out.AuthInfos[user] = &clientcmdapi.AuthInfo{Token: token}
	out.Contexts[cluster] = &clientcmdapi.Context{Cluster: cluster, AuthInfo: user, Namespace: namespace}
	out.CurrentContext = cluster
	data, err := clientcmd.Write(*out)
	if err != nil {
		return nil, fmt.Errorf("failed to write the kubeconfig: %w", err)
	}
	return data, nil
}
