package inventory

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// DefaultKubeconfigKey is the Secret key read when a Cluster's
// kubeconfigSecretRef names none.
const DefaultKubeconfigKey = "kubeconfig"

// RESTConfigFromSecret builds a client configuration from the kubeconfig in
// secret under key, and returns a hash of the kubeconfig so that callers can
// tell when it changed. The kubeconfig must be self-contained (see
// SelfContained).
func RESTConfigFromSecret(secret *corev1.Secret, key string) (*rest.Config, string, error) {
	if key == "" {
		key = DefaultKubeconfigKey
	}
	data, ok := secret.Data[key]
	if !ok || len(data) == 0 {
		return nil, "", fmt.Errorf("secret %s/%s has no key %q holding a kubeconfig", secret.Namespace, secret.Name, key)
	}
	raw, err := clientcmd.Load(data)
	if err == nil {
		err = SelfContained(raw)
	}
	if err != nil {
		return nil, "", fmt.Errorf("secret %s/%s key %q is not a usable kubeconfig: %w", secret.Namespace, secret.Name, key, err)
	}
	cfg, err := clientcmd.NewDefaultClientConfig(*raw, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, "", fmt.Errorf("secret %s/%s key %q is not a usable kubeconfig: %w", secret.Namespace, secret.Name, key, err)
	}
	sum := sha256.Sum256(data)
	return cfg, hex.EncodeToString(sum[:8]), nil
}

// SelfContained returns an error naming every field of cfg that reads a
// local file or runs a program: a kubeconfig from a Secret must carry its
// credentials itself, for whoever wrote the Secret must reach neither the
// files of the process that reads it (its own service account token, for
// one) nor run commands in its pod.
func SelfContained(cfg *clientcmdapi.Config) error {
	var errs []error
	for _, name := range kubeconfigNames(cfg.Clusters) {
		if c := cfg.Clusters[name]; c != nil && c.CertificateAuthority != "" {
			errs = append(errs, fmt.Errorf("clusters[%q].certificate-authority: a file path; give certificate-authority-data instead", name))
		}
	}
	for _, name := range kubeconfigNames(cfg.AuthInfos) {
		u := cfg.AuthInfos[name]
		if u == nil {
			continue
		}
		for _, f := range []struct{ field, value, instead string }{
			{"client-certificate", u.ClientCertificate, "client-certificate-data"},
			{"client-key", u.ClientKey, "client-key-data"},
			{"tokenFile", u.TokenFile, "token"},
		} {
			if f.value != "" {
				errs = append(errs, fmt.Errorf("users[%q].%s: a file path; give %s instead", name, f.field, f.instead))
			}
		}
		if u.Exec != nil {
			errs = append(errs, fmt.Errorf("users[%q].exec: runs a credential plugin; give a token or a client certificate instead", name))
		}
		if u.AuthProvider != nil {
			errs = append(errs, fmt.Errorf("users[%q].auth-provider: runs an auth provider; give a token or a client certificate instead", name))
		}
	}
	return errors.Join(errs...)
}

func kubeconfigNames[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
