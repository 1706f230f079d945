package testbed

import (
	"context"
	"fmt"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
)

// SharingProfile makes a testbed a sharing setup (seed 002): Meridian's
// sharing agent (`meridian agent`) on every member a peering names, the
// members peered pairwise with least-privilege service accounts and
// credentials Secrets, as docs/sharing.md describes.
type SharingProfile struct {
	// Peerings are who lends to whom, and on what terms.
	Peerings []Peering `json:"peerings"`
	// AgentArgs are extra flags of every agent (shorter intervals make a
	// testbed react faster than the production defaults).
	AgentArgs []string `json:"agentArgs,omitempty"`
	// Broker, when set, runs `meridian broker` beside the agents.
	Broker *BrokerProfile `json:"broker,omitempty"`
}

// Peering is one provider lending to one consumer.
type Peering struct {
	Consumer string `json:"consumer"`
	Provider string `json:"provider"`
	// SharePercent of each provider node's spare capacity offered to the
	// consumer (100 when zero).
	SharePercent int32 `json:"sharePercent,omitempty"`
	// Prices the provider asks the consumer.
	Prices []sharingv1alpha1.Price `json:"prices,omitempty"`
}

// Names of what the sharing setup makes in every member.
const (
	// SharingNamespace is every agent's namespace (--namespace).
	SharingNamespace = "meridian-system"
	// StepSharing: the members of a sharing profile are peered and their
	// agents run.
	StepSharing = "sharing"
)

// PeerNamespace is the namespace in a cluster that peer writes into, and
// the name of the service account peer writes with.
func PeerNamespace(peer string) string { return "from-" + peer }

// agentsOf are the members a sharing profile runs agents on, sorted.
func (s *SharingProfile) agentsOf() []string {
	set := map[string]bool{}
	for _, p := range s.Peerings {
		set[p.Consumer], set[p.Provider] = true, true
	}
	return sortedKeys(set)
}

// validate reports the problems of the sharing section of p.
func (s *SharingProfile) validate(p *Profile) []error {
	var errs []error
	clusters := map[string]bool{}
	for _, c := range p.Clusters {
		clusters[c.Name] = true
	}
	if len(s.Peerings) == 0 {
		errs = append(errs, fmt.Errorf("sharing.peerings: give at least one consumer and provider"))
	}
	seen := map[[2]string]bool{}
	for i, pr := range s.Peerings {
		f := fmt.Sprintf("sharing.peerings[%d]", i)
		for _, kv := range [][2]string{{"consumer", pr.Consumer}, {"provider", pr.Provider}} {
			if !clusters[kv[1]] {
				errs = append(errs, fmt.Errorf("%s.%s: %q is not a cluster of the profile", f, kv[0], kv[1]))
			}
		}
		if pr.Consumer == pr.Provider {
			errs = append(errs, fmt.Errorf("%s: %q cannot lend to itself", f, pr.Consumer))
		}
		if seen[[2]string{pr.Consumer, pr.Provider}] {
			errs = append(errs, fmt.Errorf("%s: %q lends to %q twice", f, pr.Provider, pr.Consumer))
		}
		seen[[2]string{pr.Consumer, pr.Provider}] = true
		if pr.SharePercent < 0 || pr.SharePercent > 100 {
			errs = append(errs, fmt.Errorf("%s.sharePercent: %d must be from 0 to 100", f, pr.SharePercent))
		}
	}
	if s.Broker != nil {
		errs = append(errs, s.Broker.validate(p, s.agentsOf())...)
	}
	return errs
}

// startSharing installs Meridian's CRDs in the members of the sharing
// profile, peers them (peer), starts the broker when the profile has one
// (startBroker) and then their agents (startAgent).
func startSharing(ctx context.Context, l layout, tb *Testbed, profile *Profile, binary string, progress *progressFunc) error {
	sp := profile.Sharing
	began := time.Now()
	clients := map[string]client.Client{}
	for _, name := range sp.agentsOf() {
		cl, err := tb.Cluster(name).Client()
		if err != nil {
			return err
		}
		clients[name] = cl
	}
	g, gctx := errgroup.WithContext(ctx)
	for name, cl := range clients {
		g.Go(func() error {
			if _, err := installCRDs(gctx, cl); err != nil {
				return fmt.Errorf("cluster %q: %w", name, err)
			}
			if err := ensureNamespace(gctx, cl, SharingNamespace); err != nil {
				return fmt.Errorf("cluster %q: %w", name, err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	regions := map[string]string{}
	for _, c := range profile.Clusters {
		regions[c.Name] = c.Region
	}
	for _, pr := range sp.Peerings {
		if err := peer(ctx, tb, clients, pr, sp.Peerings, regions); err != nil {
			return err
		}
	}
	var peered []string
	for _, pr := range sp.Peerings {
		peered = append(peered, pr.Provider+"→"+pr.Consumer)
	}
	if sp.Broker != nil {
		began := time.Now()
		detail, err := startBroker(ctx, l, tb, profile, binary, clients)
		if err != nil {
			return err
		}
		progress.report(sp.Broker.cluster(), StepBroker, began, detail)
	}
	for _, name := range sp.agentsOf() {
		if err := startAgent(ctx, l, tb.Cluster(name), clients[name], binary, sp.AgentArgs); err != nil {
			return err
		}
	}
	progress.report(ManagementCluster, StepSharing, began, fmt.Sprintf("agents on %s; %s", strings.Join(sp.agentsOf(), ", "), strings.Join(peered, ", ")))
	return nil
}

// peer makes the two sides of one peering: in each cluster, the namespace
// the other writes into, its service account there with a Role limited to
// that namespace's sharing messages (and, in the provider, a ClusterRole
// for the consumer's twins), the kubeconfig of that service account as a
// credentials Secret in the other cluster, and a Peer on each side.
func peer(ctx context.Context, tb *Testbed, clients map[string]client.Client, pr Peering, all []Peering, regions map[string]string) error {
	cons, prov := clients[pr.Consumer], clients[pr.Provider]
	// The provider writes into the consumer's from-<provider> as
	// system:serviceaccount:from-<provider>:<provider>, and the other way.
	provInCons, err := serviceAccountKubeconfig(ctx, tb.Cluster(pr.Consumer), cons, pr.Provider, false)
	if err != nil {
		return fmt.Errorf("cluster %q: %w", pr.Consumer, err)
	}
	consInProv, err := serviceAccountKubeconfig(ctx, tb.Cluster(pr.Provider), prov, pr.Consumer, true)
	if err != nil {
		return fmt.Errorf("cluster %q: %w", pr.Provider, err)
	}
	role := func(self, other string) sharingv1alpha1.PeerRole {
		lends, borrows := false, false
		for _, p := range all {
			lends = lends || (p.Provider == self && p.Consumer == other)
			borrows = borrows || (p.Consumer == self && p.Provider == other)
		}
		switch {
		case lends && borrows:
			return sharingv1alpha1.RoleBoth
		case lends:
			return sharingv1alpha1.RoleConsumer
		}
		return sharingv1alpha1.RoleProvider
	}
	share := pr.SharePercent
	if share == 0 {
		share = 100
	}
	sides := []struct {
		self, other string
		c           client.Client
		kubeconfig  []byte
		outgoing    *sharingv1alpha1.OutgoingPolicy
	}{
		{pr.Consumer, pr.Provider, cons, consInProv, nil},
		{pr.Provider, pr.Consumer, prov, provInCons, &sharingv1alpha1.OutgoingPolicy{SharePercent: share, Prices: pr.Prices}},
	}
	for _, s := range sides {
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: SharingNamespace, Name: "peer-" + s.other}}
		if err := upsert(ctx, s.c, secret, func() { secret.Data = map[string][]byte{"kubeconfig": s.kubeconfig} }); err != nil {
			return fmt.Errorf("cluster %q: %w", s.self, err)
		}
		p := &sharingv1alpha1.Peer{ObjectMeta: metav1.ObjectMeta{Namespace: SharingNamespace, Name: s.other}}
		if err := upsert(ctx, s.c, p, func() {
			p.Spec.ClusterID = sharingv1alpha1.ClusterID(s.other)
			p.Spec.Role = role(s.self, s.other)
			p.Spec.APIServer = tb.Cluster(s.other).Server
			p.Spec.CredentialsSecretRef = sharingv1alpha1.SecretReference{Name: secret.Name}
			p.Spec.Identity = sharingv1alpha1.PeerIdentity{Username: "system:serviceaccount:" + PeerNamespace(s.other) + ":" + s.other}
			p.Spec.Namespace = PeerNamespace(s.other)
			p.Spec.Region = regions[s.other]
			if s.outgoing != nil {
				p.Spec.Outgoing = s.outgoing
			}
		}); err != nil {
			return fmt.Errorf("cluster %q: %w", s.self, err)
		}
	}
	return nil
}

// serviceAccountKubeconfig makes, in cluster c, the namespace and service
// account peer writes with, their RBAC, and returns a kubeconfig of that
// service account whose context namespace is the one mapped to peer. A
// consumer's account in a provider (twins) may also make the namespaces,
// pods, ConfigMaps and Secrets of the consumer's twins: their namespaces
// are made per consumer namespace, so that part is cluster-wide.
func serviceAccountKubeconfig(ctx context.Context, c *Cluster, cl client.Client, peer string, twins bool) ([]byte, error) {
	ns := PeerNamespace(peer)
	if err := ensureNamespace(ctx, cl, ns); err != nil {
		return nil, err
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: peer}}
	if err := upsert(ctx, cl, sa, func() {}); err != nil {
		return nil, err
	}
	subject := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: peer}}
	roleName := "meridian-peer-" + peer
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: roleName}}
	if err := upsert(ctx, cl, role, func() {
		role.Rules = []rbacv1.PolicyRule{{
			APIGroups: []string{sharingv1alpha1.GroupVersion.Group},
			Resources: []string{"advertisements", "offers", "quotes", "acknowledgements", "releases"},
			Verbs:     []string{"get", "list", "watch", "create", "update", "patch", "delete"},
		}}
	}); err != nil {
		return nil, err
	}
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: roleName}}
	if err := upsert(ctx, cl, binding, func() {
		binding.RoleRef = rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: roleName}
		binding.Subjects = subject
	}); err != nil {
		return nil, err
	}
	if twins {
		cr := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: roleName + "-twins"}}
		if err := upsert(ctx, cl, cr, func() {
			cr.Rules = []rbacv1.PolicyRule{
				{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list", "watch", "create", "delete"}},
				{APIGroups: []string{""}, Resources: []string{"configmaps", "secrets"}, Verbs: []string{"get", "list", "create", "update", "delete"}},
				{APIGroups: []string{""}, Resources: []string{"namespaces", "serviceaccounts"}, Verbs: []string{"get", "create"}},
				{APIGroups: []string{""}, Resources: []string{"pods/log"}, Verbs: []string{"get"}},
			}
		}); err != nil {
			return nil, err
		}
		crb := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: roleName + "-twins"}}
		if err := upsert(ctx, cl, crb, func() {
			crb.RoleRef = rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: cr.Name}
			crb.Subjects = subject
		}); err != nil {
			return nil, err
		}
	}
	token, err := serviceAccountToken(ctx, cl, ns, peer)
	if err != nil {
		return nil, err
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[c.Name] = &clientcmdapi.Cluster{Server: c.Server, CertificateAuthorityData: c.Config.CAData}
	cfg.AuthInfos[peer] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts[peer] = &clientcmdapi.Context{Cluster: c.Name, AuthInfo: peer, Namespace: ns}
	cfg.CurrentContext = peer
	data, err := clientcmd.Write(*cfg)
	if err != nil {
		return nil, fmt.Errorf("failed to encode the kubeconfig of service account %s/%s: %w", ns, peer, err)
	}
	return data, nil
}

// serviceAccountToken is a long-lived token of the service account: the
// one kube-controller-manager's token controller writes into a Secret of
// type service-account-token.
func serviceAccountToken(ctx context.Context, cl client.Client, ns, name string) (string, error) {
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name + "-token",
		Annotations: map[string]string{corev1.ServiceAccountNameKey: name}}, Type: corev1.SecretTypeServiceAccountToken}
	if err := cl.Create(ctx, secret); err != nil && !apierrors.IsAlreadyExists(err) {
		return "", fmt.Errorf("failed to create the token Secret of service account %s/%s: %w", ns, name, err)
	}
	var token string
	err := poll(ctx, 100*time.Millisecond, func() (bool, error) {
		if err := cl.Get(ctx, client.ObjectKeyFromObject(secret), secret); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		token = string(secret.Data[corev1.ServiceAccountTokenKey])
		return token != "", nil
	})
	if err != nil {
		return "", fmt.Errorf("no token for service account %s/%s (kube-controller-manager's token controller): %w", ns, name, err)
	}
	return token, nil
}

func ensureNamespace(ctx context.Context, cl client.Client, name string) error {
	if err := cl.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("failed to create namespace %q: %w", name, err)
	}
	return nil
}

// upsert creates obj with what mutate sets, or updates it so.
func upsert(ctx context.Context, cl client.Client, obj client.Object, mutate func()) error {
	key := client.ObjectKeyFromObject(obj)
	if err := cl.Get(ctx, key, obj); err != nil {
		if !apierrors.IsNotFound(err) {
			return fmt.Errorf("failed to get %T %s: %w", obj, key, err)
		}
		mutate()
		if err := cl.Create(ctx, obj); err != nil {
			return fmt.Errorf("failed to create %T %s: %w", obj, key, err)
		}
		return nil
	}
	mutate()
	if err := cl.Update(ctx, obj); err != nil {
		return fmt.Errorf("failed to update %T %s: %w", obj, key, err)
	}
	return nil
}
