package remote

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
)

// FuzzKubeconfigOf reads a peer's credentials Secret, as the agent does
// before it talks to the peer: KubeconfigOf must not panic, an error
// names the peer, and an accepted kubeconfig has a server and the
// namespace of its current context, reads no local file of the agent and
// runs no credential plugin in its pod.
func FuzzKubeconfigOf(f *testing.F) {
	// The shape docs/sharing.md asks for: the service account's token and
	// the namespace the peer mapped to this cluster.
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["prov-p"] = &clientcmdapi.Cluster{Server: "https://prov-p.example.org:6443", CertificateAuthorityData: []byte("ca")}
	cfg.AuthInfos["cons-a"] = &clientcmdapi.AuthInfo{Token: "token"}
	cfg.Contexts["prov-p"] = &clientcmdapi.Context{Cluster: "prov-p", AuthInfo: "cons-a", Namespace: "meridian-peer-cons-a"}
	cfg.CurrentContext = "prov-p"
	data, err := clientcmd.Write(*cfg)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(strings.Replace(string(data), "    namespace: meridian-peer-cons-a\n", "", 1)))
	f.Add([]byte("apiVersion: v1\nkind: Config\ncurrent-context: x\ncontexts: [{name: x, context: {namespace: n}}]\n"))
	peer := &sharingv1alpha1.Peer{Spec: sharingv1alpha1.PeerSpec{ClusterID: "prov-p"}}
	peer.Spec.CredentialsSecretRef.Key = "kc"
	f.Fuzz(func(t *testing.T, data []byte) {
		secret := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: "meridian-system", Name: "prov-p"},
			Data:       map[string][]byte{"kc": data},
		}
		cfg, ns, err := KubeconfigOf(peer, secret)
		if err != nil {
			if !strings.Contains(err.Error(), `"prov-p"`) {
				t.Fatalf("error does not name the peer: %v", err)
			}
			return
		}
		if cfg.Host == "" || ns == "" {
			t.Errorf("accepted a kubeconfig with server %q and namespace %q", cfg.Host, ns)
		}
		for _, file := range []string{cfg.CAFile, cfg.CertFile, cfg.KeyFile, cfg.BearerTokenFile} {
			if file != "" {
				t.Errorf("accepted a kubeconfig that reads the agent's file %s", file)
			}
		}
		if cfg.ExecProvider != nil || cfg.AuthProvider != nil {
			t.Errorf("accepted a kubeconfig that runs a credential plugin: exec %v, auth provider %v", cfg.ExecProvider, cfg.AuthProvider)
		}
	})
}
