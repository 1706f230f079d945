package broker

import (
	"context"
	"fmt"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/sharing"
)

// Grant is a namespace that one party writes its sharing messages into,
// in the API server of another, with a service account of its own.
type Grant struct {
	// Namespace made (or kept) for the party.
	Namespace string
	// ServiceAccount the party authenticates as; "agent" when empty.
	ServiceAccount string
	// Server is the URL the party reaches the API server at; the admin
	// config's host when empty.
	Server string
	// TokenTTL of the service account token in the kubeconfig returned.
	TokenTTL time.Duration
	// Rules the party's Role allows in Namespace, and nothing else.
	Rules []rbacv1.PolicyRule
	// Labels and Annotations on the namespace.
	Labels, Annotations map[string]string
}

// Username is the identity a party granted g authenticates as.
func (g Grant) Username() string {
	return "system:serviceaccount:" + g.Namespace + ":" + g.serviceAccount()
}

func (g Grant) serviceAccount() string {
	if g.ServiceAccount == "" {
		return "agent"
	}
	return g.ServiceAccount
}

// memberRules are what a member may do in its namespace at the broker:
// register (its Peer and credentials Secret), publish Advertisements,
// answer with Offers, hand Quotes to the broker and ask CapacityQueries.
var memberRules = []rbacv1.PolicyRule{
	{APIGroups: []string{sharingv1alpha1.GroupVersion.Group}, Resources: []string{"peers", "advertisements", "offers", "releases"}, Verbs: []string{"get", "list", "watch", "create", "update", "patch"}},
	{APIGroups: []string{sharingv1alpha1.GroupVersion.Group}, Resources: []string{"quotes", "capacityqueries"}, Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"}},
	{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get", "create", "update", "patch"}},
}

// brokerRules are what the broker may do in the namespace a provider
// member mapped to it: forward Quotes and acknowledge or release Offers.
var brokerRules = []rbacv1.PolicyRule{
	{APIGroups: []string{sharingv1alpha1.GroupVersion.Group}, Resources: []string{"quotes", "acknowledgements", "releases"}, Verbs: []string{"get", "list", "watch", "create", "update", "patch"}},
}

// Onboard admits member id at the broker whose API server admin reaches
// with administrator rights: namespace "member-<id>" labelled with id, so
// that the broker attributes what is written there to id, and a service
// account that may write sharing messages there and nowhere else. It
// returns the kubeconfig of that account, with the namespace in its
// context: the member's agent writes into the broker with it.
func Onboard(ctx context.Context, admin *rest.Config, id sharingv1alpha1.ClusterID, server string, ttl time.Duration) ([]byte, error) {
	if err := ValidClusterID("cluster-id", id); err != nil {
		return nil, err
	}
	g := Grant{Namespace: "member-" + string(id), Server: server, TokenTTL: ttl, Rules: memberRules,
		Labels: map[string]string{sharingv1alpha1.LabelBrokerMember: string(id)}}
	g.Annotations = map[string]string{sharingv1alpha1.AnnotationBrokerIdentity: g.Username()}
	return Apply(ctx, admin, g)
}

// GrantBroker makes, in a provider member whose API server admin reaches,
// the namespace the broker writes into (Quotes, Acknowledgements,
// Releases) and the broker's service account "broker" there, and returns
// its kubeconfig: the credentials the member registers with.
func GrantBroker(ctx context.Context, admin *rest.Config, namespace, server string, ttl time.Duration) ([]byte, string, error) {
	g := Grant{Namespace: namespace, ServiceAccount: "broker", Server: server, TokenTTL: ttl, Rules: brokerRules}
	kc, err := Apply(ctx, admin, g)
	return kc, g.Username(), err
}

// Apply makes g's namespace, service account, Role and RoleBinding (keeping
// those that exist) and returns a kubeconfig with a fresh token of the
// service account.
func Apply(ctx context.Context, admin *rest.Config, g Grant) ([]byte, error) {
	cs, err := kubernetes.NewForConfig(admin)
	if err != nil {
		return nil, fmt.Errorf("failed to build a client: %w", err)
	}
	sa, name := g.serviceAccount(), "meridian-sharing-"+g.serviceAccount()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: g.Namespace, Labels: g.Labels, Annotations: g.Annotations}}
	steps := []struct {
		what   string
		create func() error
	}{
		{"namespace " + g.Namespace, func() error { _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); return err }},
		{"service account " + sa, func() error {
			_, err := cs.CoreV1().ServiceAccounts(g.Namespace).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa}}, metav1.CreateOptions{})
			return err
		}},
		{"role " + name, func() error {
			_, err := cs.RbacV1().Roles(g.Namespace).Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: g.Rules}, metav1.CreateOptions{})
			return err
		}},
		{"role binding " + name, func() error {
			_, err := cs.RbacV1().RoleBindings(g.Namespace).Create(ctx, &rbacv1.RoleBinding{
				ObjectMeta: metav1.ObjectMeta{Name: name},
				RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
				Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa, Namespace: g.Namespace}},
			}, metav1.CreateOptions{})
			return err
		}},
	}
	for _, s := range steps {
		if err := s.create(); err != nil && !apierrors.IsAlreadyExists(err) {
			return nil, fmt.Errorf("failed to create %s: %w", s.what, err)
		}
	}
	ttl := int64(g.TokenTTL.Seconds())
	if ttl <= 0 {
		ttl = int64((365 * 24 * time.Hour).Seconds())
	}
	tr, err := cs.CoreV1().ServiceAccounts(g.Namespace).CreateToken(ctx, sa, &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &ttl}}, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("failed to issue a token for service account %s/%s: %w", g.Namespace, sa, err)
	}
	server := g.Server
	if server == "" {
		server = admin.Host
	}
	return kubeconfig(server, admin.CAData, tr.Status.Token, g.Namespace, g.Username())
}

func kubeconfig(server string, ca []byte, token, namespace, user string) ([]byte, error) {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["server"] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: ca}
	cfg.AuthInfos[user] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts["default"] = &clientcmdapi.Context{Cluster: "server", AuthInfo: user, Namespace: namespace}
	cfg.CurrentContext = "default"
	out, err := clientcmd.Write(*cfg)
	if err != nil {
		return nil, fmt.Errorf("failed to write the kubeconfig: %w", err)
	}
	return out, nil
}

// ValidClusterID returns an error naming flag when id is not a valid
// cluster ID (a DNS label).
func ValidClusterID(flag string, id sharingv1alpha1.ClusterID) error {
	for _, e := range sharing.Validate(&sharingv1alpha1.Peer{Spec: sharingv1alpha1.PeerSpec{ClusterID: id}}) {
		if e.Field == "spec.clusterID" {
			return fmt.Errorf("%s %q: must be a DNS label (lower-case letters, digits and '-'): %s", flag, id, e.Detail)
		}
	}
	return nil
}
