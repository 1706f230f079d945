package inventory

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// DefaultKubeconfigKey is the Secret key read when a Cluster's
// kubeconfigSecretRef names none.
const DefaultKubeconfigKey = "kubeconfig"

// RESTConfigFromSecret builds a client configuration from the kubeconfig in
// secret under key, and returns a hash of the kubeconfig so that callers can
// tell when it changed.
func RESTConfigFromSecret(secret *corev1.Secret, key string) (*rest.Config, string, error) {
	if key == "" {
		key = DefaultKubeconfigKey
	}
	data, ok := secret.Data[key]
	if !ok || len(data) == 0 {
		return nil, "", fmt.Errorf("secret %s/%s has no key %q holding a kubeconfig", secret.Namespace, secret.Name, key)
	}
	cfg, err := clientcmd.RESTConfigFromKubeConfig(data)
	if err != nil {
		return nil, "", fmt.Errorf("secret %s/%s key %q is not a usable kubeconfig: %w", secret.Namespace, secret.Name, key, err)
	}
	sum := sha256.Sum256(data)
	return cfg, hex.EncodeToString(sum[:8]), nil
}
