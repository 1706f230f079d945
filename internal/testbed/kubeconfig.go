package testbed

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// credentials reach one cluster as its administrator.
type credentials struct {
	Server string
	CA     []byte
	Cert   []byte
	Key    []byte
}

// credentials reads the PKI kwokctl generated for the cluster: a CA, and
// an administrator's certificate that the API server also serves with.
func (l layout) credentials(c *clusterState) (*credentials, error) {
	read := func(name string) ([]byte, error) {
		data, err := os.ReadFile(filepath.Join(l.pkiDir(c.Name), name))
		if err != nil {
			return nil, fmt.Errorf("failed to read the credentials of cluster %q: %w", c.Name, err)
		}
		return data, nil
	}
	cr := &credentials{Server: c.server()}
	var err error
	if cr.CA, err = read("ca.crt"); err != nil {
		return nil, err
	}
	if cr.Cert, err = read("admin.crt"); err != nil {
		return nil, err
	}
	if cr.Key, err = read("admin.key"); err != nil {
		return nil, err
	}
	return cr, nil
}

// restConfig reaches the cluster with a client; throttling is left to the
// API server, since a testbed's clients are tests and demos.
func (cr *credentials) restConfig() *rest.Config {
	return &rest.Config{
		Host: cr.Server,
		TLSClientConfig: rest.TLSClientConfig{
			CAData:   cr.CA,
			CertData: cr.Cert,
			KeyData:  cr.Key,
		},
		QPS:   -1,
		Burst: -1,
	}
}

// kubeconfigContext is one context of a kubeconfig.
type kubeconfigContext struct {
	Name string
	*credentials
}

// buildKubeconfig returns a kubeconfig with one self-contained context per
// entry (credentials embedded, no file paths), the first one current.
func buildKubeconfig(contexts ...kubeconfigContext) ([]byte, error) {
	cfg := clientcmdapi.NewConfig()
	for i, c := range contexts {
		cfg.Clusters[c.Name] = &clientcmdapi.Cluster{
			Server:                   c.Server,
			CertificateAuthorityData: c.CA,
		}
		user := c.Name + "-admin"
		cfg.AuthInfos[user] = &clientcmdapi.AuthInfo{
			ClientCertificateData: c.Cert,
			ClientKeyData:         c.Key,
		}
		cfg.Contexts[c.Name] = &clientcmdapi.Context{Cluster: c.Name, AuthInfo: user}
		if i == 0 {
			cfg.CurrentContext = c.Name
		}
	}
	data, err := clientcmd.Write(*cfg)
	if err != nil {
		return nil, fmt.Errorf("failed to encode kubeconfig: %w", err)
	}
	return data, nil
}

// writeKubeconfig writes the testbed's kubeconfig: a context per cluster
// of st (ContextName), the management cluster's current. It is rebuilt
// whole from the clusters' credentials whenever a cluster comes or goes,
// so it never holds a context of a cluster that is gone.
func (l layout) writeKubeconfig(st *state) error {
	var contexts []kubeconfigContext
	for i := range st.Clusters {
		cs := &st.Clusters[i]
		cr, err := l.credentials(cs)
		if errors.Is(err, fs.ErrNotExist) && cs.Added {
			// Failed before kwokctl wrote its PKI: nothing to reach.
			continue
		}
		if err != nil {
			return err
		}
		contexts = append(contexts, kubeconfigContext{Name: ContextName(st.Name, cs.Name), credentials: cr})
	}
	data, err := buildKubeconfig(contexts...)
	if err != nil {
		return err
	}
	tmp := l.kubeconfig() + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return fmt.Errorf("failed to write kubeconfig: %w", err)
	}
	if err := os.Rename(tmp, l.kubeconfig()); err != nil {
		return fmt.Errorf("failed to write kubeconfig: %w", err)
	}
	return nil
}

// ContextName is the kubeconfig context of a testbed's cluster:
// "<testbed>-<cluster>", so that the contexts of several testbeds can sit
// in one KUBECONFIG.
func ContextName(testbed, cluster string) string {
	return testbed + "-" + cluster
}
