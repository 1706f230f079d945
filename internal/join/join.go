package join

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/manifest"
	"github.com/meridian-dev/meridian/internal/membertoken"
	"github.com/meridian-dev/meridian/internal/scheme"
)

// reachTimeout bounds the first request to each cluster, so that an
// address nobody answers at fails in seconds.
const reachTimeout = 15 * time.Second

// cluster is one side's clients.
type cluster struct {
	side
	cs   kubernetes.Interface
	host string
	// discovery answers within reachTimeout.
	discovery discovery.DiscoveryInterface
}

func connect(cfg *rest.Config, name string, out io.Writer) (*cluster, error) {
	cfg = rest.CopyConfig(cfg)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("failed to make a client of the %s: %w", name, err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme.New()})
	if err != nil {
		return nil, fmt.Errorf("failed to make a client of the %s: %w", name, err)
	}
	quick := rest.CopyConfig(cfg)
	quick.Timeout = reachTimeout
	dc, err := discovery.NewDiscoveryClientForConfig(quick)
	if err != nil {
		return nil, fmt.Errorf("failed to make a client of the %s: %w", name, err)
	}
	return &cluster{side: side{name: name, c: c, out: out}, cs: cs, host: cfg.Host, discovery: dc}, nil
}

// connectBoth makes the clients of the member and the management cluster.
func connectBoth(management, member *rest.Config, out io.Writer) (mb, mg *cluster, err error) {
	if mb, err = connect(member, "member", out); err != nil {
		return nil, nil, err
	}
	if mg, err = connect(management, "management cluster", out); err != nil {
		return nil, nil, err
	}
	return mb, mg, nil
}

// identity checks that the cluster answers and returns its identity, the
// UID of its kube-system namespace.
func (c *cluster) identity(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, reachTimeout)
	defer cancel()
	if _, err := c.discovery.ServerVersion(); err != nil {
		return "", fmt.Errorf("%w: the %s's API server at %s does not answer: %w", ErrUnreachable, c.name, c.host, err)
	}
	ns, err := c.cs.CoreV1().Namespaces().Get(ctx, metav1.NamespaceSystem, metav1.GetOptions{})
	if err != nil {
		if apierrors.IsForbidden(err) {
			return "", fmt.Errorf("%w: the %s kubeconfig's user may not get namespaces (cluster-wide), which names the cluster: %w", ErrForbidden, c.name, err)
		}
		return "", fmt.Errorf("failed to read namespace kube-system of the %s: %w", c.name, err)
	}
	return string(ns.UID), nil
}

// Join joins the member that member reaches into the management cluster
// that management reaches, and tells out what it did (with DryRun, what it
// would write).
func Join(ctx context.Context, management, member *rest.Config, o Options, out io.Writer) error {
	if err := o.Validate(); err != nil {
		return err
	}
	o.defaults()
	role, err := MemberRole(o.Resources)
	if err != nil {
		return err
	}
	mb, mg, err := connectBoth(management, member, out)
	if err != nil {
		return err
	}
	clusterID, err := mb.identity(ctx)
	if err != nil {
		return err
	}
	managementID, err := mg.identity(ctx)
	if err != nil {
		return err
	}
	if err := notJoinedElsewhere(ctx, mb, mg, o, clusterID, managementID); err != nil {
		return err
	}
	rights, err := memberRights(ctx, mb.cs, o, role)
	if err != nil {
		return err
	}
	lacking, err := missing(ctx, mb.cs, rights)
	if err != nil {
		return err
	}
	mgLacking, err := missing(ctx, mg.cs, managementRights(o.Namespace))
	if err != nil {
		return err
	}
	if err := errors.Join(forbidden("member", lacking), forbidden("management cluster", mgLacking)); err != nil {
		return err
	}

	objs := memberObjects(o, role, managementID)
	if o.ProbeImage != "" {
		probe, err := probeObjects(o)
		if err != nil {
			return err
		}
		objs = append(objs, probe...)
	}
	cl := clusterObject(o, clusterID)
	if err := errors.Join(mb.foreign(ctx, objs, o.Name), mg.foreign(ctx, []client.Object{secretObject(o), cl}, o.Name)); err != nil {
		return err
	}
	// The Cluster as the management cluster's API server validates it
	// (its CRD's patterns), before anything is written.
	if err := checkCluster(ctx, mg, cl); err != nil {
		return err
	}

	// The member's side.
	if err := ensureNamespace(ctx, mb.side, o.Namespace, o.Name, o.DryRun); err != nil {
		return err
	}
	for _, obj := range objs {
		if err := mb.write(ctx, obj, o.DryRun); err != nil {
			return err
		}
	}

	// The management cluster's side.
	if err := ensureNamespace(ctx, mg.side, o.Namespace, "", o.DryRun); err != nil {
		return err
	}
	secret, err := kubeconfigSecret(ctx, mb, mg, o, member)
	if err != nil {
		return err
	}
	if err := mg.write(ctx, secret, o.DryRun); err != nil {
		return err
	}
	return mg.write(ctx, cl, o.DryRun)
}

// checkCluster asks the management cluster's API server to validate the
// Cluster with a server-side dry run, so that a flag the CRD refuses
// (--provider, --grid-zone, --jurisdiction, a label) fails the join
// before anything is written, with the API server's words.
func checkCluster(ctx context.Context, mg *cluster, cl *multiclusterv1alpha1.Cluster) error {
	u, err := manifest.ForApply(cl)
	if err != nil {
		return err
	}
	if err := mg.c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(FieldManager), client.ForceOwnership, client.DryRunAll); err != nil {
		return fmt.Errorf("the management cluster refuses Cluster %q: %w", cl.Name, err)
	}
	return nil
}

// notJoinedElsewhere refuses a member another Cluster already stands for,
// or that another management cluster joined.
func notJoinedElsewhere(ctx context.Context, mb, mg *cluster, o Options, clusterID, managementID string) error {
	var clusters multiclusterv1alpha1.ClusterList
	if err := mg.c.List(ctx, &clusters); err != nil {
		return fmt.Errorf("failed to list the Clusters of the management cluster: %w", err)
	}
	for _, c := range clusters.Items {
		id := c.Annotations[multiclusterv1alpha1.AnnotationClusterID]
		if c.Name != o.Name && id == clusterID {
			return fmt.Errorf("%w: the member (kube-system UID %s) is Cluster %q already; run meridian unjoin %s first to join it as %q", ErrJoinedElsewhere, clusterID, c.Name, c.Name, o.Name)
		}
		if c.Name == o.Name && id != clusterID {
			return fmt.Errorf("%w: Cluster %q stands for another member (kube-system UID %q, this one's is %s); choose another name, or run meridian unjoin %s first", ErrJoinedElsewhere, o.Name, id, clusterID, o.Name)
		}
	}
	sa := &corev1.ServiceAccount{}
	switch err := mb.c.Get(ctx, serviceAccount(o.Namespace), sa); {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return fmt.Errorf("failed to read ServiceAccount %s in the member: %w", serviceAccount(o.Namespace), err)
	}
	if name := sa.Labels[multiclusterv1alpha1.LabelJoinedCluster]; name != "" && name != o.Name {
		return fmt.Errorf("%w: the member's ServiceAccount %s says it was joined as %q; run meridian unjoin %s first to join it as %q", ErrJoinedElsewhere, serviceAccount(o.Namespace), name, name, o.Name)
	}
	if id := sa.Annotations[multiclusterv1alpha1.AnnotationManagementID]; id != "" && id != managementID {
		return fmt.Errorf("%w: the member's ServiceAccount %s says another management cluster (kube-system UID %s) joined it; unjoin it there first", ErrJoinedElsewhere, serviceAccount(o.Namespace), id)
	}
	return nil
}

// ensureNamespace creates the namespace when it is missing, marked as
// Join's (when cluster is not empty) so that Unjoin deletes it; a
// namespace that was there is left as it is.
func ensureNamespace(ctx context.Context, s side, name, cluster string, dryRun bool) error {
	err := s.c.Get(ctx, client.ObjectKey{Name: name}, &corev1.Namespace{})
	switch {
	case err == nil:
		return nil
	case !apierrors.IsNotFound(err):
		return fmt.Errorf("failed to read namespace %s in the %s: %w", name, s.name, err)
	}
	ns := namespaceObject(name, cluster)
	if cluster == "" {
		ns.Labels, ns.Annotations = nil, nil
	}
	return s.write(ctx, ns, dryRun)
}

// kubeconfigSecret returns the Secret with the member's kubeconfig: the
// one there when its token is Meridian's for this ServiceAccount and
// server and not yet due for renewal (so that a second join changes
// nothing), or one with a new token.
func kubeconfigSecret(ctx context.Context, mb, mg *cluster, o Options, member *rest.Config) (*corev1.Secret, error) {
	server := o.Server
	if server == "" {
		server = member.Host
	}
	secret := secretObject(o)
	if o.DryRun {
		secret.StringData = map[string]string{KubeconfigKey: fmt.Sprintf("<a kubeconfig of %s with a token of ServiceAccount %s, valid %v>", server, serviceAccount(o.Namespace), o.TokenTTL)}
		return secret, nil
	}
	old := &corev1.Secret{}
	err := mg.c.Get(ctx, client.ObjectKeyFromObject(secret), old)
	if err != nil && !apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("failed to read Secret %s in the management cluster: %w", client.ObjectKeyFromObject(secret), err)
	}
	if err == nil && membertoken.Reusable(old, KubeconfigKey, serviceAccount(o.Namespace), server, o.TokenTTL, time.Now()) {
		secret.Annotations = map[string]string{}
		for _, k := range []string{multiclusterv1alpha1.AnnotationTokenServiceAccount, multiclusterv1alpha1.AnnotationTokenIssued, multiclusterv1alpha1.AnnotationTokenExpires} {
			secret.Annotations[k] = old.Annotations[k]
		}
		secret.Data = map[string][]byte{KubeconfigKey: old.Data[KubeconfigKey]}
		return secret, nil
	}
	token, err := membertoken.Issue(ctx, mb.cs, serviceAccount(o.Namespace), o.TokenTTL, time.Now())
	if err != nil {
		return nil, fmt.Errorf("failed to issue the member token: %w", err)
	}
	kubeconfig, err := membertoken.Kubeconfig(o.Name, server, member, ServiceAccountName, token.Value, "")
	if err != nil {
		return nil, err
	}
	membertoken.Annotate(secret, token)
	secret.Data = map[string][]byte{KubeconfigKey: kubeconfig}
	return secret, nil
}
