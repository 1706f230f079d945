package broker

import (
	"context"
	"errors"
	"fmt"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/scheme"
	"github.com/meridian-dev/meridian/internal/sharing"
)

// Registration is what a member tells the broker about itself.
type Registration struct {
	// ClusterID of the member; the broker refuses one other than the ID it
	// onboarded the member's namespace with.
	ClusterID sharingv1alpha1.ClusterID
	// Role as the broker sees the member: Provider lends through the
	// broker, Consumer borrows, Both does both.
	Role sharingv1alpha1.PeerRole
	// Region of the member.
	Region string
	// APIServer is the member's API server URL.
	APIServer string
	// Credentials is a kubeconfig the broker writes into the member with
	// (GrantBroker); its context's namespace is where. Required unless the
	// role is Consumer: the broker never writes into a member that only
	// borrows.
	Credentials []byte
}

// ErrNoNamespace: a kubeconfig names no namespace.
var ErrNoNamespace = errors.New("the kubeconfig's current context names no namespace")

// Register writes reg into the broker with the member's own kubeconfig
// (Onboard's): the credentials as the Secret "credentials" and a Peer named
// after the member, with the identity the API server authenticates the
// kubeconfig as (a SelfSubjectReview, not a claim), in the namespace of the
// kubeconfig's context. Registering again updates both.
func Register(ctx context.Context, memberKubeconfig []byte, reg Registration) (*sharingv1alpha1.Peer, error) {
	cc, err := clientcmd.NewClientConfigFromBytes(memberKubeconfig)
	if err != nil {
		return nil, fmt.Errorf("failed to read the member's broker kubeconfig: %w", err)
	}
	ns, _, err := cc.Namespace()
	if err != nil || ns == "" || ns == metav1.NamespaceDefault {
		return nil, fmt.Errorf("broker kubeconfig: %w (use the one meridian broker onboard printed)", ErrNoNamespace)
	}
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("failed to read the member's broker kubeconfig: %w", err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("failed to build a client for the broker: %w", err)
	}
	who, err := cs.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("failed to ask the broker who this kubeconfig authenticates as: %w", err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme.New()})
	if err != nil {
		return nil, fmt.Errorf("failed to build a client for the broker: %w", err)
	}
	peer := &sharingv1alpha1.Peer{ObjectMeta: metav1.ObjectMeta{Name: string(reg.ClusterID), Namespace: ns}, Spec: sharingv1alpha1.PeerSpec{
		ClusterID: reg.ClusterID, Role: reg.Role, Region: reg.Region, APIServer: reg.APIServer, Namespace: ns,
		CredentialsSecretRef: sharingv1alpha1.SecretReference{Name: "credentials"},
		Identity:             sharingv1alpha1.PeerIdentity{Username: who.Status.UserInfo.Username},
	}}
	if errs := sharing.Validate(peer); len(errs) > 0 {
		return nil, fmt.Errorf("invalid registration: %w", errs.ToAggregate())
	}
	switch {
	case len(reg.Credentials) > 0:
		data := map[string][]byte{"kubeconfig": reg.Credentials}
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "credentials", Namespace: ns}, Data: data}
		if err := upsert(ctx, c, secret, func(have client.Object) { have.(*corev1.Secret).Data = data }); err != nil {
			return nil, err
		}
	case reg.Role != sharingv1alpha1.RoleConsumer:
		// The broker writes quotes and acknowledgements into a member that
		// lends; one that only borrows is never written into.
		return nil, fmt.Errorf("credentials: a member with role %s needs a kubeconfig the broker writes into it with (meridian broker grant prints one)", reg.Role)
	}
	want := peer.Spec
	if err := upsert(ctx, c, peer, func(have client.Object) { have.(*sharingv1alpha1.Peer).Spec = want }); err != nil {
		return nil, err
	}
	return peer, nil
}

// upsert creates obj, or when it exists reads it, applies set and updates
// it.
func upsert(ctx context.Context, c client.Client, obj client.Object, set func(client.Object)) error {
	err := c.Create(ctx, obj)
	if !apierrors.IsAlreadyExists(err) {
		if err != nil {
			return fmt.Errorf("failed to create %T %s: %w", obj, obj.GetName(), err)
		}
		return nil
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
		return fmt.Errorf("failed to read %T %s: %w", obj, obj.GetName(), err)
	}
	set(obj)
	if err := c.Update(ctx, obj); err != nil {
		return fmt.Errorf("failed to update %T %s: %w", obj, obj.GetName(), err)
	}
	return nil
}
