package inventory

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

var hash16 = regexp.MustCompile(`^[0-9a-f]{16}$`)

// exampleKubeconfigs returns the kubeconfigs of the Secrets in
// examples/cluster.yaml.
func exampleKubeconfigs(f *testing.F) [][]byte {
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "cluster.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	var out [][]byte
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		var s corev1.Secret
		if err := dec.Decode(&s); err != nil {
			break
		}
		if s.Kind == "Secret" && s.StringData[DefaultKubeconfigKey] != "" {
			out = append(out, []byte(s.StringData[DefaultKubeconfigKey]))
		}
	}
	if len(out) == 0 {
		f.Fatal("examples/cluster.yaml holds no kubeconfig Secret")
	}
	return out
}

// FuzzRESTConfigFromSecret reads kubeconfigs from a Cluster's Secret, as
// the cluster controller does: RESTConfigFromSecret must not panic, an
// error names the Secret and its key, and a configuration it accepts has
// a server, is self-contained (no local file, no command to run: the
// Secret's author must not reach the controller's own files or run
// programs in its pod), and comes with a stable hash.
func FuzzRESTConfigFromSecret(f *testing.F) {
	for _, kc := range exampleKubeconfigs(f) {
		f.Add(kc)
	}
	embedded := clientcmdapi.NewConfig()
	embedded.Clusters["c"] = &clientcmdapi.Cluster{Server: "https://127.0.0.1:6443", CertificateAuthorityData: []byte("not a certificate")}
	embedded.AuthInfos["u"] = &clientcmdapi.AuthInfo{ClientCertificateData: []byte("x"), ClientKeyData: []byte("y")}
	embedded.Contexts["c"] = &clientcmdapi.Context{Cluster: "c", AuthInfo: "u"}
	embedded.CurrentContext = "c"
	data, err := clientcmd.Write(*embedded)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Fuzz(func(t *testing.T, data []byte) {
		secret := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: "meridian-system", Name: "fuzz-kubeconfig"},
			Data:       map[string][]byte{"kc": data},
		}
		cfg, hash, err := RESTConfigFromSecret(secret, "kc")
		if err != nil {
			if !strings.Contains(err.Error(), "meridian-system/fuzz-kubeconfig") || !strings.Contains(err.Error(), `"kc"`) {
				t.Fatalf("error does not name the Secret and key: %v", err)
			}
			return
		}
		if cfg.Host == "" {
			t.Error("accepted a kubeconfig without a server")
		}
		if !hash16.MatchString(hash) {
			t.Errorf("hash %q is not 16 hex digits", hash)
		}
		if _, again, _ := RESTConfigFromSecret(secret, "kc"); again != hash {
			t.Errorf("hash changed from %s to %s for the same kubeconfig", hash, again)
		}
		if files := localFiles(cfg); files != "" {
			t.Errorf("accepted a kubeconfig that reads the controller's files: %s", files)
		}
		if cfg.ExecProvider != nil || cfg.AuthProvider != nil {
			t.Errorf("accepted a kubeconfig that runs a credential plugin: exec %v, auth provider %v", cfg.ExecProvider, cfg.AuthProvider)
		}
	})
}

func localFiles(cfg *rest.Config) string {
	var files []string
	for _, f := range []string{cfg.CAFile, cfg.CertFile, cfg.KeyFile, cfg.BearerTokenFile} {
		if f != "" {
			files = append(files, f)
		}
	}
	return strings.Join(files, ", ")
}
