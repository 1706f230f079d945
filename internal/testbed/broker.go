package testbed

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/config"
	"github.com/meridian-dev/meridian/internal/sharing/broker"
)

// BrokerProfile runs Meridian's advertisement broker (`meridian broker`,
// docs/broker.md) beside the agents of a sharing testbed: its state (the
// sharing CRDs and every object it decides on) lives in one cluster of the
// testbed, its process runs as that cluster's component BrokerComponent
// with a service account bound to the broker's generated ClusterRole, and
// the members it names are onboarded, registered and given a Peer for it.
type BrokerProfile struct {
	// Cluster holds the broker's state and runs it: ManagementCluster
	// ("management", the default) or a cluster of the profile.
	Cluster string `json:"cluster,omitempty"`
	// ID is the broker's cluster ID (--broker-id), the name of every
	// member's Peer for it; DefaultBrokerID when empty.
	ID string `json:"id,omitempty"`
	// Providers lend through the broker: their agents publish an
	// Advertisement to it and answer the Quotes it forwards.
	Providers []string `json:"providers,omitempty"`
	// Consumers borrow through it: they may query its table, and their
	// agents hand their auctions to it instead of to their direct peers.
	Consumers []string `json:"consumers,omitempty"`
	// SharePercent of each provider node's spare capacity published to
	// the broker (100 when zero), held for the broker beside what the
	// provider's direct consumers hold. Prices are those of the
	// provider's first peering.
	SharePercent int32 `json:"sharePercent,omitempty"`
	// Args are extra flags of `meridian broker`.
	Args []string `json:"args,omitempty"`
}

const (
	// BrokerComponent is the broker's process, a component of the cluster
	// that holds its state, as Down, logs and KillBroker name it.
	BrokerComponent = "meridian-broker"
	// DefaultBrokerID is the broker's cluster ID when the profile gives
	// none.
	DefaultBrokerID = "broker"
	// BrokerNamespace is the namespace of every member that the broker
	// writes into (Quotes, Acknowledgements, Releases) as the service
	// account "broker" (meridian broker grant).
	BrokerNamespace = "from-broker"
	// StepBroker: the broker runs and the members are registered.
	StepBroker = "broker"
)

// brokerFlags are set by the testbed; a profile's args may not set them.
var brokerFlags = []string{"--kubeconfig", "--context", "--broker-id", "--leader-elect", "--metrics-bind-address", "--health-probe-bind-address"}

func (b *BrokerProfile) cluster() string {
	if b.Cluster == "" {
		return ManagementCluster
	}
	return b.Cluster
}

func (b *BrokerProfile) id() string {
	if b.ID == "" {
		return DefaultBrokerID
	}
	return b.ID
}

// members are the clusters registered at the broker with their role as
// the broker sees them, sorted by name.
func (b *BrokerProfile) members() ([]string, map[string]sharingv1alpha1.PeerRole) {
	roles := map[string]sharingv1alpha1.PeerRole{}
	for _, p := range b.Providers {
		roles[p] = sharingv1alpha1.RoleProvider
	}
	for _, c := range b.Consumers {
		if roles[c] == sharingv1alpha1.RoleProvider {
			roles[c] = sharingv1alpha1.RoleBoth
		} else {
			roles[c] = sharingv1alpha1.RoleConsumer
		}
	}
	return sortedKeys(roles), roles
}

// validate reports the problems of the broker section of s, whose
// agents run on agents.
func (b *BrokerProfile) validate(p *Profile, agents []string) []error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	clusters := map[string]bool{}
	for _, c := range p.Clusters {
		clusters[c.Name] = true
	}
	if c := b.cluster(); c != ManagementCluster && !clusters[c] {
		add("sharing.broker.cluster: %q is neither %q nor a cluster of the profile", c, ManagementCluster)
	}
	if err := broker.ValidClusterID("sharing.broker.id", sharingv1alpha1.ClusterID(b.id())); err != nil {
		errs = append(errs, err)
	} else if clusters[b.id()] {
		add("sharing.broker.id: %q is the name of a cluster of the profile; the members' Peers are named after both", b.id())
	}
	if len(b.Providers)+len(b.Consumers) == 0 {
		add("sharing.broker: give at least one of providers (members that lend through the broker) and consumers (members that borrow through it)")
	}
	for _, list := range []struct {
		field string
		names []string
	}{{"providers", b.Providers}, {"consumers", b.Consumers}} {
		seen := map[string]bool{}
		for i, name := range list.names {
			f := fmt.Sprintf("sharing.broker.%s[%d]", list.field, i)
			switch {
			case !slices.Contains(agents, name):
				add("%s: %q runs no agent: use one of the clusters of sharing.peerings (%s)", f, name, strings.Join(agents, ", "))
			case seen[name]:
				add("%s: %q is listed twice", f, name)
			}
			seen[name] = true
		}
	}
	if b.SharePercent < 0 || b.SharePercent > 100 {
		add("sharing.broker.sharePercent: %d must be from 0 to 100", b.SharePercent)
	}
	for i, a := range b.Args {
		flag, _, _ := strings.Cut(a, "=")
		if slices.Contains(brokerFlags, flag) {
			add("sharing.broker.args[%d]: %q is set by the testbed (%s); the broker's ID is sharing.broker.id", i, a, strings.Join(brokerFlags, ", "))
		}
	}
	return errs
}

// startBroker makes the broker of the profile run: the sharing CRDs and
// the broker's service account (its generated ClusterRole, nothing more)
// in the cluster that holds its state, every member onboarded there
// (meridian broker onboard), every provider granting the broker its
// namespace BrokerNamespace (meridian broker grant), every member
// registered (meridian broker register) and given a Peer for the broker
// with its credentials, and the broker's process. It runs before the
// agents start, so that each agent finds its Peer for the broker at once.
func startBroker(ctx context.Context, l layout, tb *Testbed, profile *Profile, binary string, clients map[string]client.Client) (string, error) {
	b := profile.Sharing.Broker
	home := tb.Cluster(b.cluster())
	cl, err := home.Client()
	if err != nil {
		return "", err
	}
	if _, err := installCRDs(ctx, cl); err != nil {
		return "", fmt.Errorf("cluster %q: %w", home.Name, err)
	}
	kubeconfig, err := componentIdentity(ctx, home, cl, "broker")
	if err != nil {
		return "", fmt.Errorf("cluster %q: %w", home.Name, err)
	}
	regions := map[string]string{}
	for _, c := range profile.Clusters {
		regions[c.Name] = c.Region
	}
	prices := map[string][]sharingv1alpha1.Price{}
	for _, pr := range profile.Sharing.Peerings {
		if _, ok := prices[pr.Provider]; !ok {
			prices[pr.Provider] = pr.Prices
		}
	}
	names, roles := b.members()
	for _, name := range names {
		m := &brokerMember{name: name, role: roles[name], region: regions[name], prices: prices[name]}
		if err := m.join(ctx, tb.Cluster(name), clients[name], home, b); err != nil {
			return "", fmt.Errorf("cluster %q: failed to join broker %q: %w", name, b.id(), err)
		}
	}
	path := l.componentKubeconfig(home.Name, BrokerComponent)
	if err := os.WriteFile(path, kubeconfig, 0o600); err != nil {
		return "", fmt.Errorf("failed to write the broker's kubeconfig: %w", err)
	}
	binary, err = meridianBinary(binary)
	if err != nil {
		return "", err
	}
	args := append([]string{"broker",
		"--kubeconfig", path,
		"--broker-id", b.id(),
		"--leader-elect=false",
		"--metrics-bind-address", "0",
		"--health-probe-bind-address", "0",
	}, b.Args...)
	if err := l.startMeridian(home.Name, BrokerComponent, meridianRun{Binary: binary, Args: args}); err != nil {
		return "", err
	}
	var parts []string
	for _, n := range names {
		parts = append(parts, n+" ("+string(roles[n])+")")
	}
	return fmt.Sprintf("broker %q in %s; members %s", b.id(), home.Name, strings.Join(parts, ", ")), nil
}

// componentIdentity makes the service account meridian-COMPONENT
// (broker or agent) in
// SharingNamespace of the cluster c, binds it to the component's generated
// ClusterRole (the rights its RBAC markers name, as the Helm chart grants
// them), and returns a kubeconfig with its token: the broker and the agents
// of a testbed run with no right more than in production.
func componentIdentity(ctx context.Context, c *Cluster, cl client.Client, component string) ([]byte, error) {
	generated, err := config.ComponentRole(component)
	if err != nil {
		return nil, err
	}
	if err := ensureNamespace(ctx, cl, SharingNamespace); err != nil {
		return nil, err
	}
	account := "meridian-" + component
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: SharingNamespace, Name: account}}
	if err := upsert(ctx, cl, sa, func() {}); err != nil {
		return nil, err
	}
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: generated.Name}}
	if err := upsert(ctx, cl, role, func() { role.Rules = generated.Rules }); err != nil {
		return nil, err
	}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: generated.Name}}
	if err := upsert(ctx, cl, binding, func() {
		binding.RoleRef = rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: generated.Name}
		binding.Subjects = []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: SharingNamespace, Name: account}}
	}); err != nil {
		return nil, err
	}
	token, err := serviceAccountToken(ctx, cl, SharingNamespace, account)
	if err != nil {
		return nil, err
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[c.Name] = &clientcmdapi.Cluster{Server: c.Server, CertificateAuthorityData: c.Config.CAData}
	cfg.AuthInfos[account] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts[account] = &clientcmdapi.Context{Cluster: c.Name, AuthInfo: account}
	cfg.CurrentContext = account
	out, err := clientcmd.Write(*cfg)
	if err != nil {
		return nil, fmt.Errorf("failed to encode the %s's kubeconfig: %w", component, err)
	}
	return out, nil
}

// brokerMember is one member joining the broker.
type brokerMember struct {
	name   string
	role   sharingv1alpha1.PeerRole
	region string
	prices []sharingv1alpha1.Price
}

// join does what docs/broker.md asks of the broker's administrator and of
// the member: onboard it at the broker (its namespace member-<name> there
// and a service account confined to it), let the broker write into a
// provider (grant), register, and give the member's agent a Peer for the
// broker whose credentials Secret holds the onboarded kubeconfig.
func (m *brokerMember) join(ctx context.Context, c *Cluster, cl client.Client, at *Cluster, b *BrokerProfile) error {
	atBroker, err := broker.Onboard(ctx, at.Config, sharingv1alpha1.ClusterID(m.name), at.Server, 0)
	if err != nil {
		return err
	}
	reg := broker.Registration{ClusterID: sharingv1alpha1.ClusterID(m.name), Role: m.role, Region: m.region, APIServer: c.Server}
	// The broker writes only into members that lend; one that only
	// borrows keeps an empty namespace nobody may write into.
	identity := "system:serviceaccount:" + BrokerNamespace + ":broker"
	if m.role == sharingv1alpha1.RoleConsumer {
		if err := ensureNamespace(ctx, cl, BrokerNamespace); err != nil {
			return err
		}
	} else {
		if reg.Credentials, identity, err = broker.GrantBroker(ctx, c.Config, BrokerNamespace, c.Server, 0); err != nil {
			return err
		}
	}
	if _, err := broker.Register(ctx, atBroker, reg); err != nil {
		return err
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: SharingNamespace, Name: "peer-" + b.id()}}
	if err := upsert(ctx, cl, secret, func() { secret.Data = map[string][]byte{"kubeconfig": atBroker} }); err != nil {
		return err
	}
	p := &sharingv1alpha1.Peer{ObjectMeta: metav1.ObjectMeta{Namespace: SharingNamespace, Name: b.id()}}
	return upsert(ctx, cl, p, func() {
		p.Spec.ClusterID = sharingv1alpha1.ClusterID(b.id())
		// The member's Peer says what the broker is to it: one it lends
		// to is its consumer, one it borrows through its provider.
		p.Spec.Role = map[sharingv1alpha1.PeerRole]sharingv1alpha1.PeerRole{
			sharingv1alpha1.RoleProvider: sharingv1alpha1.RoleConsumer,
			sharingv1alpha1.RoleConsumer: sharingv1alpha1.RoleProvider,
			sharingv1alpha1.RoleBoth:     sharingv1alpha1.RoleBoth,
		}[m.role]
		p.Spec.Broker = true
		p.Spec.APIServer = at.Server
		p.Spec.CredentialsSecretRef = sharingv1alpha1.SecretReference{Name: secret.Name}
		p.Spec.Identity = sharingv1alpha1.PeerIdentity{Username: identity}
		p.Spec.Namespace = BrokerNamespace
		if m.role != sharingv1alpha1.RoleConsumer {
			share := b.SharePercent
			if share == 0 {
				share = 100
			}
			p.Spec.Outgoing = &sharingv1alpha1.OutgoingPolicy{SharePercent: share, Prices: m.prices}
		}
	})
}

// brokerCluster finds the cluster whose folder records a broker run.
func (l layout) brokerCluster() (string, error) {
	matches, err := filepath.Glob(filepath.Join(l.clustersDir(), "*", BrokerComponent+".json"))
	if err != nil || len(matches) == 0 {
		return "", fmt.Errorf("the testbed in %s runs no broker: give its profile a sharing.broker section", l.dir)
	}
	return filepath.Base(filepath.Dir(matches[0])), nil
}

// KillBroker kills the broker of the testbed in dir, as a crash would
// (SIGKILL), and waits until it is gone.
func KillBroker(ctx context.Context, dir string) error {
	l := layout{dir: dir}
	cluster, err := l.brokerCluster()
	if err != nil {
		return err
	}
	return l.killComponent(ctx, cluster, BrokerComponent)
}

// StartBroker starts the broker of the testbed in dir again, as it first
// ran.
func StartBroker(dir string) error {
	l := layout{dir: dir}
	cluster, err := l.brokerCluster()
	if err != nil {
		return err
	}
	return l.restartMeridian(cluster, BrokerComponent)
}
