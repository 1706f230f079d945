package agent

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/kubeletproxy"
	"github.com/meridian-dev/meridian/internal/virtualnode"
)

// Locate finds the twin of a consumer pod for the virtual nodes' kubelet
// endpoint (package kubeletproxy): the pod must be bound to a virtual node
// of a provider this agent serves, and that provider must hold a twin of
// it that carries its UID.
func (p *providers) Locate(ctx context.Context, namespace, name string) (kubeletproxy.Twin, error) {
	pod := &corev1.Pod{}
	if err := p.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, pod); err != nil {
		if apierrors.IsNotFound(err) {
			return kubeletproxy.Twin{}, fmt.Errorf("%w: pod %s/%s not found", kubeletproxy.ErrNotOffloaded, namespace, name)
		}
		return kubeletproxy.Twin{}, fmt.Errorf("failed to get pod %s/%s: %w", namespace, name, err)
	}
	if pod.Spec.NodeName == "" {
		return kubeletproxy.Twin{}, fmt.Errorf("%w: pod %s/%s is not bound to a node", kubeletproxy.ErrNotOffloaded, namespace, name)
	}
	node := &corev1.Node{}
	if err := p.Get(ctx, client.ObjectKey{Name: pod.Spec.NodeName}, node); err != nil {
		if apierrors.IsNotFound(err) {
			return kubeletproxy.Twin{}, fmt.Errorf("%w: node %q of pod %s/%s not found", kubeletproxy.ErrNotOffloaded, pod.Spec.NodeName, namespace, name)
		}
		return kubeletproxy.Twin{}, fmt.Errorf("failed to get node %q: %w", pod.Spec.NodeName, err)
	}
	provider := node.Labels[sharingv1alpha1.LabelProvider]
	if node.Labels[sharingv1alpha1.LabelVirtualNode] != "true" || provider == "" {
		return kubeletproxy.Twin{}, fmt.Errorf("%w: node %q of pod %s/%s is not a virtual node", kubeletproxy.ErrNotOffloaded, node.Name, namespace, name)
	}
	s := p.servedProvider(sharingv1alpha1.ClusterID(provider))
	if s == nil {
		return kubeletproxy.Twin{}, fmt.Errorf("%w: provider %q of virtual node %q", kubeletproxy.ErrProviderNotServed, provider, node.Name)
	}
	twin := &corev1.Pod{}
	key := client.ObjectKey{Namespace: virtualnode.TwinNamespace(p.opts.ClusterID, namespace), Name: name}
	if err := s.twins.Get(ctx, key, twin); err != nil {
		if apierrors.IsNotFound(err) {
			return kubeletproxy.Twin{}, fmt.Errorf("%w: pod %s/%s has no twin in provider %q yet", kubeletproxy.ErrNotOffloaded, namespace, name, provider)
		}
		return kubeletproxy.Twin{}, fmt.Errorf("failed to get the twin %s of pod %s/%s in provider %q: %w", key, namespace, name, provider, err)
	}
	if twin.Labels[virtualnode.LabelOriginUID] != string(pod.UID) {
		return kubeletproxy.Twin{}, fmt.Errorf("%w: the twin %s in provider %q is of another pod %s/%s (UID %s, not %s)",
			kubeletproxy.ErrNotOffloaded, key, provider, namespace, name, twin.Labels[virtualnode.LabelOriginUID], pod.UID)
	}
	return kubeletproxy.Twin{Node: node.Name, Provider: rest.CopyConfig(s.config), Namespace: twin.Namespace, Name: twin.Name}, nil
}

// servedProvider is the provider being served under that cluster ID, nil
// when there is none.
func (p *providers) servedProvider(id sharingv1alpha1.ClusterID) *served {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, s := range p.running {
		if s.provider == id {
			select {
			case <-s.done:
			default:
				return s
			}
		}
	}
	return nil
}
