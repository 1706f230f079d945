package peering

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/manifest"
	"github.com/meridian-dev/meridian/internal/membertoken"
	"github.com/meridian-dev/meridian/internal/scheme"
)

// Names and labels of what a peering makes.
const (
	// DefaultNamespace is the agents' namespace.
	DefaultNamespace = "meridian-system"
	// FieldManager is the field manager of every write.
	FieldManager = "meridian-peer"
	// LabelPeer is set, on everything a peering makes in a cluster, to the
	// other cluster's name.
	LabelPeer = "sharing.meridian.dev/peer"
	// ManagedBy is the value of app.kubernetes.io/managed-by on it.
	ManagedBy = "meridian-peer"
	// CredentialsKey is the key of the kubeconfig in a credentials Secret.
	CredentialsKey = "kubeconfig"
	// DefaultTokenTTL is the lifetime of the tokens a peering issues; a
	// peering run again once two thirds of it passed issues new ones.
	DefaultTokenTTL = 365 * 24 * time.Hour
)

// Namespace is the namespace of a cluster that peer writes into, and the
// name of the ServiceAccount peer writes with.
func Namespace(peer string) string { return "from-" + peer }

// SecretName is the credentials Secret, in a cluster, of its peer.
func SecretName(peer string) string { return "peer-" + peer }

// Terms are what a lender offers the borrower.
type Terms struct {
	// SharePercent of each node's spare capacity offered (100 when zero).
	SharePercent int32
	// Prices asked.
	Prices []sharingv1alpha1.Price
}

// Side is one cluster of a peering.
type Side struct {
	// Name is the cluster's name, as its peer knows it (the Peer's name and
	// cluster ID there).
	Name string
	// Config reaches the cluster with the rights to make namespaces,
	// ServiceAccounts, roles and bindings, and to issue tokens.
	Config *rest.Config
	// Server is the address the peer's agent reaches the cluster at;
	// Config's when empty.
	Server string
	// Region is the cluster's region, on the Peer its peer holds.
	Region string
	// Lends, when set, are the terms on which this cluster lends to the
	// other; nil when it does not lend.
	Lends *Terms
}

func (s Side) server() string {
	if s.Server != "" {
		return s.Server
	}
	return s.Config.Host
}

// Options of a peering.
type Options struct {
	// Namespace is the agents' namespace in both clusters;
	// DefaultNamespace when empty.
	Namespace string
	// TokenTTL is the lifetime of the tokens; DefaultTokenTTL when zero.
	TokenTTL time.Duration
}

func (o *Options) defaults() {
	if o.Namespace == "" {
		o.Namespace = DefaultNamespace
	}
	if o.TokenTTL == 0 {
		o.TokenTTL = DefaultTokenTTL
	}
}

// Validate reports every problem of a peering of a and b.
func Validate(a, b Side) error {
	var errs []error
	for _, s := range []Side{a, b} {
		if msgs := validation.IsDNS1123Label(s.Name); len(msgs) > 0 {
			errs = append(errs, fmt.Errorf("cluster name %q: %v", s.Name, msgs))
		}
		if s.Lends != nil && (s.Lends.SharePercent < 0 || s.Lends.SharePercent > 100) {
			errs = append(errs, fmt.Errorf("%s's share %d: must be from 0 to 100", s.Name, s.Lends.SharePercent))
		}
	}
	for _, s := range []Side{a, b} {
		if s.Config == nil {
			errs = append(errs, fmt.Errorf("cluster %q: no configuration to reach it", s.Name))
		}
	}
	if a.Name == b.Name {
		errs = append(errs, fmt.Errorf("a cluster cannot peer with itself (%q)", a.Name))
	}
	if a.Lends == nil && b.Lends == nil {
		errs = append(errs, errors.New("neither cluster lends: say which lends to which (lend, borrow or both)"))
	}
	return errors.Join(errs...)
}

// role is what other is to self on a Peer of self's.
func role(self, other Side) sharingv1alpha1.PeerRole {
	switch {
	case self.Lends != nil && other.Lends != nil:
		return sharingv1alpha1.RoleBoth
	case self.Lends != nil:
		return sharingv1alpha1.RoleConsumer
	}
	return sharingv1alpha1.RoleProvider
}

// cluster is one side's clients.
type cluster struct {
	Side
	c  client.Client
	cs kubernetes.Interface
}

func connect(s Side) (*cluster, error) {
	c, err := client.New(s.Config, client.Options{Scheme: scheme.New()})
	if err != nil {
		return nil, fmt.Errorf("failed to make a client of %s: %w", s.Name, err)
	}
	cs, err := kubernetes.NewForConfig(s.Config)
	if err != nil {
		return nil, fmt.Errorf("failed to make a client of %s: %w", s.Name, err)
	}
	return &cluster{Side: s, c: c, cs: cs}, nil
}

// connectBoth makes the clients of both sides.
func connectBoth(a, b Side) (*cluster, *cluster, error) {
	ca, err := connect(a)
	if err != nil {
		return nil, nil, err
	}
	cb, err := connect(b)
	if err != nil {
		return nil, nil, err
	}
	return ca, cb, nil
}

// Peer peers a and b and tells out what it wrote.
func Peer(ctx context.Context, a, b Side, o Options, out io.Writer) error {
	if err := Validate(a, b); err != nil {
		return err
	}
	if o.TokenTTL != 0 && o.TokenTTL < membertoken.MinTTL {
		return fmt.Errorf("--token-ttl %v: must be at least %v, the shortest token an API server issues", o.TokenTTL, membertoken.MinTTL)
	}
	o.defaults()
	ca, cb, err := connectBoth(a, b)
	if err != nil {
		return err
	}
	// Each cluster's account for the other, and its kubeconfig.
	creds := map[string]*corev1.Secret{}
	for _, pair := range [][2]*cluster{{ca, cb}, {cb, ca}} {
		self, other := pair[0], pair[1]
		c, err := account(ctx, self, other, o, out)
		if err != nil {
			return fmt.Errorf("cluster %q: %w", self.Name, err)
		}
		creds[self.Name] = c
	}
	// Each cluster's credentials of the other, and its Peer.
	for _, pair := range [][2]*cluster{{ca, cb}, {cb, ca}} {
		self, other := pair[0], pair[1]
		if err := peerOf(ctx, self, other, creds[other.Name], o, out); err != nil {
			return fmt.Errorf("cluster %q: %w", self.Name, err)
		}
	}
	return nil
}

func labels(peer string) map[string]string {
	return map[string]string{multiclusterv1alpha1.LabelManagedBy: ManagedBy, LabelPeer: peer}
}

// apply server-side applies obj in c and says what happened.
func apply(ctx context.Context, c *cluster, obj client.Object, out io.Writer) error {
	verb, err := manifest.Apply(ctx, c.c, obj, FieldManager)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(out, "%s: %s %s %s\n", c.Name, obj.GetObjectKind().GroupVersionKind().Kind, klog.KObj(obj), verb)
	return err
}

// account makes, in self, what other writes with, and returns the
// credentials other is to hold of it (a kubeconfig and its token's
// lifetime): those other holds already when their token is not yet due
// for renewal.
func account(ctx context.Context, self, other *cluster, o Options, out io.Writer) (*corev1.Secret, error) {
	ns := Namespace(other.Name)
	l := labels(other.Name)
	sa := types.NamespacedName{Namespace: ns, Name: other.Name}
	subject := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: other.Name}}
	roleName := "meridian-peer-" + other.Name
	objs := []client.Object{
		&corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: metav1.ObjectMeta{Name: o.Namespace}},
		&corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: l}},
		&corev1.ServiceAccount{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"}, ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: other.Name, Labels: l}},
		&rbacv1.Role{
			TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "Role"},
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: roleName, Labels: l},
			Rules: []rbacv1.PolicyRule{{
				APIGroups: []string{sharingv1alpha1.GroupVersion.Group},
				Resources: []string{"advertisements", "offers", "quotes", "acknowledgements", "releases"},
				Verbs:     []string{"get", "list", "watch", "create", "update", "patch", "delete"},
			}},
		},
		&rbacv1.RoleBinding{
			TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "RoleBinding"},
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: roleName, Labels: l},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: roleName},
			Subjects:   subject,
		},
	}
	if self.Lends != nil {
		// The borrower's twins: their namespaces are made per borrower
		// namespace, so this part is cluster-wide.
		objs = append(objs,
			&rbacv1.ClusterRole{
				TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRole"},
				ObjectMeta: metav1.ObjectMeta{Name: roleName + "-twins", Labels: l},
				Rules: []rbacv1.PolicyRule{
					{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list", "watch", "create", "delete"}},
					{APIGroups: []string{""}, Resources: []string{"configmaps", "secrets"}, Verbs: []string{"get", "list", "create", "update", "delete"}},
					{APIGroups: []string{""}, Resources: []string{"namespaces", "serviceaccounts"}, Verbs: []string{"get", "create"}},
					// kubectl logs, exec, attach and port-forward of an
					// offloaded pod, which the borrower's kubelet endpoint
					// asks of the twin (package kubeletproxy).
					{APIGroups: []string{""}, Resources: []string{"pods/log"}, Verbs: []string{"get"}},
					{APIGroups: []string{""}, Resources: []string{"pods/exec", "pods/attach", "pods/portforward"}, Verbs: []string{"get", "create"}},
				},
			},
			&rbacv1.ClusterRoleBinding{
				TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRoleBinding"},
				ObjectMeta: metav1.ObjectMeta{Name: roleName + "-twins", Labels: l},
				RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: roleName + "-twins"},
				Subjects:   subject,
			})
	}
	for _, obj := range objs {
		if err := apply(ctx, self, obj, out); err != nil {
			return nil, err
		}
	}
	// The credentials other holds of self: kept while still good.
	held := &corev1.Secret{}
	err := other.c.Get(ctx, client.ObjectKey{Namespace: o.Namespace, Name: SecretName(self.Name)}, held)
	if err == nil && membertoken.Reusable(held, CredentialsKey, sa, self.server(), o.TokenTTL, time.Now()) {
		return held, nil
	}
	if err != nil && !apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("failed to read %s's credentials of it: %w", other.Name, err)
	}
	token, err := membertoken.Issue(ctx, self.cs, sa, o.TokenTTL, time.Now())
	if err != nil {
		return nil, err
	}
	kubeconfig, err := membertoken.Kubeconfig(self.Name, self.server(), self.Config, token.ServiceAccount.Name, token.Value, ns)
	if err != nil {
		return nil, err
	}
	creds := &corev1.Secret{Data: map[string][]byte{CredentialsKey: kubeconfig}}
	membertoken.Annotate(creds, token)
	return creds, nil
}

// peerOf writes, in self, the credentials of other (their data and token
// annotations taken from creds) and the Peer.
func peerOf(ctx context.Context, self, other *cluster, creds *corev1.Secret, o Options, out io.Writer) error {
	secret := &corev1.Secret{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Namespace: o.Namespace, Name: SecretName(other.Name), Labels: labels(other.Name),
			Annotations: map[string]string{}},
		Type: corev1.SecretTypeOpaque,
		Data: map[string][]byte{CredentialsKey: creds.Data[CredentialsKey]},
	}
	for _, k := range []string{multiclusterv1alpha1.AnnotationTokenServiceAccount, multiclusterv1alpha1.AnnotationTokenIssued, multiclusterv1alpha1.AnnotationTokenExpires} {
		secret.Annotations[k] = creds.Annotations[k]
	}
	if err := apply(ctx, self, secret, out); err != nil {
		return err
	}
	p := &sharingv1alpha1.Peer{
		TypeMeta:   metav1.TypeMeta{APIVersion: sharingv1alpha1.GroupVersion.String(), Kind: "Peer"},
		ObjectMeta: metav1.ObjectMeta{Namespace: o.Namespace, Name: other.Name, Labels: labels(other.Name)},
		Spec: sharingv1alpha1.PeerSpec{
			ClusterID:            sharingv1alpha1.ClusterID(other.Name),
			Role:                 role(self.Side, other.Side),
			APIServer:            other.server(),
			CredentialsSecretRef: sharingv1alpha1.SecretReference{Name: secret.Name},
			Identity:             sharingv1alpha1.PeerIdentity{Username: "system:serviceaccount:" + Namespace(other.Name) + ":" + other.Name},
			Namespace:            Namespace(other.Name),
			Region:               other.Region,
		},
	}
	if t := self.Lends; t != nil {
		share := t.SharePercent
		if share == 0 {
			share = 100
		}
		p.Spec.Outgoing = &sharingv1alpha1.OutgoingPolicy{SharePercent: share, Prices: t.Prices}
	}
	return apply(ctx, self, p, out)
}
