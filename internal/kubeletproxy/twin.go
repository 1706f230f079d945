package kubeletproxy

import (
	"context"
	"errors"

	"k8s.io/client-go/rest"
)

// Twin is where a consumer pod runs: its twin in a provider.
type Twin struct {
	// Node is the virtual node the consumer pod is bound to; callers are
	// authorized on its nodes/proxy.
	Node string
	// Provider reaches the provider's API server with the consumer's
	// credentials there.
	Provider *rest.Config
	// Namespace and Name are the twin's.
	Namespace, Name string
}

// A Locator finds the twin of a consumer pod. It returns an error wrapping
// ErrNotOffloaded when the pod is not (or no longer) bound to a virtual
// node that has a twin of it, ErrProviderNotServed when the provider is
// not reachable from here.
type Locator interface {
	Locate(ctx context.Context, namespace, pod string) (Twin, error)
}

// LocatorFunc is a Locator in one function.
type LocatorFunc func(ctx context.Context, namespace, pod string) (Twin, error)

// Locate calls f.
func (f LocatorFunc) Locate(ctx context.Context, namespace, pod string) (Twin, error) {
	return f(ctx, namespace, pod)
}

// Sentinel errors of a Locator; the server answers them 404 and 503.
var (
	// ErrNotOffloaded: the pod does not exist, is not bound to a virtual
	// node, or has no twin that carries its UID.
	ErrNotOffloaded = errors.New("pod is not offloaded")
	// ErrProviderNotServed: the pod's provider is not served by this agent
	// (its Peer is being set up, disabled or gone).
	ErrProviderNotServed = errors.New("provider not served")
)
