package cli

import (
	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// loadKubeconfig returns the configuration of a cluster: the context of the
// kubeconfig at path (default: $KUBECONFIG, ~/.kube/config or in-cluster),
// its current context when context is empty.
func loadKubeconfig(path, context string) (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = path
	return clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: context}).ClientConfig()
}

// managerFlags are the flags of every command that runs controllers
// against one cluster: the controller, the agent and the broker.
type managerFlags struct {
	kubeconfig, context string
	leaderElect         bool
	metricsAddr         string
	probeAddr           string
}

// add registers the flags; cluster names the cluster in their help.
func (m *managerFlags) add(fl *pflag.FlagSet, cluster string) {
	fl.StringVar(&m.kubeconfig, "kubeconfig", "", "kubeconfig of "+cluster+" (default: $KUBECONFIG, ~/.kube/config or in-cluster)")
	fl.StringVar(&m.context, "context", "", "kubeconfig context of "+cluster)
	fl.BoolVar(&m.leaderElect, "leader-elect", true, "elect a leader, so that only one replica acts at a time")
	fl.StringVar(&m.metricsAddr, "metrics-bind-address", ":8080", "address of the Prometheus metrics endpoint (0 turns it off)")
	fl.StringVar(&m.probeAddr, "health-probe-bind-address", ":8081", "address of the /healthz and /readyz endpoints (0 turns them off)")
}
