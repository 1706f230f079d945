package testbed

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/peering"
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
// the name of the service account peer writes with (peering.Namespace).
func PeerNamespace(peer string) string { return peering.Namespace(peer) }

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
	if err := peerAll(ctx, tb, profile); err != nil {
		return err
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

// peerAll peers the members of the profile's peerings pair by pair with
// `meridian peer`'s code (peering.Peer): a pair that lends both ways is
// peered once, with each side's terms.
func peerAll(ctx context.Context, tb *Testbed, profile *Profile) error {
	regions := map[string]string{}
	for _, c := range profile.Clusters {
		regions[c.Name] = c.Region
	}
	lends := map[[2]string]*peering.Terms{}
	var pairs [][2]string
	for _, pr := range profile.Sharing.Peerings {
		lends[[2]string{pr.Provider, pr.Consumer}] = &peering.Terms{SharePercent: pr.SharePercent, Prices: pr.Prices}
		pair := [2]string{min(pr.Provider, pr.Consumer), max(pr.Provider, pr.Consumer)}
		if !slices.Contains(pairs, pair) {
			pairs = append(pairs, pair)
		}
	}
	side := func(self, other string) peering.Side {
		c := tb.Cluster(self)
		return peering.Side{Name: self, Config: c.Config, Server: c.Server, Region: regions[self], Lends: lends[[2]string{self, other}]}
	}
	for _, pair := range pairs {
		if err := peering.Peer(ctx, side(pair[0], pair[1]), side(pair[1], pair[0]), peering.Options{Namespace: SharingNamespace}, io.Discard); err != nil {
			return fmt.Errorf("failed to peer %s and %s: %w", pair[0], pair[1], err)
		}
	}
	return nil
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
