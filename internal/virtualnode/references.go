package virtualnode

import (
	"context"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
)

// copies remembers, for the ConfigMaps and Secrets reflected into the
// provider, the consumer resourceVersion last copied, so that a pod's
// references are copied again only when they changed; and it serializes,
// per twin namespace, the making of twins with the collection of copies no
// twin references any more, so a copy is never collected between being
// made for a new twin and that twin being created.
type copies struct {
	mu      sync.Mutex
	version map[string]string // "<twin namespace>/<kind>/<name>" -> consumer resourceVersion
	locks   map[string]*sync.Mutex
}

func (c *copies) lock(namespace string) func() {
	c.mu.Lock()
	if c.locks == nil {
		c.locks = map[string]*sync.Mutex{}
	}
	l := c.locks[namespace]
	if l == nil {
		l = &sync.Mutex{}
		c.locks[namespace] = l
	}
	c.mu.Unlock()
	l.Lock()
	return l.Unlock
}

func copyKey(namespace, kind, name string) string { return namespace + "/" + kind + "/" + name }

func (c *copies) get(key string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.version[key]
}

func (c *copies) set(key, version string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.version == nil {
		c.version = map[string]string{}
	}
	if version == "" {
		delete(c.version, key)
		return
	}
	c.version[key] = version
}

// Kinds of the objects a pod references, as copyKey names them.
const (
	kindConfigMap = "ConfigMap"
	kindSecret    = "Secret"
)

// reflectReferences copies the ConfigMaps and Secrets pod references into
// twinNamespace again when they changed in the consumer since they were
// last copied (their metadata comes from the consumer's cache, so an
// unchanged reference costs no request).
func (r *PodReflector) reflectReferences(ctx context.Context, pod *corev1.Pod, twinNamespace string) error {
	refs := ReferencesOf(pod)
	for _, ref := range []struct {
		kind    string
		names   []string
		reflect func(context.Context, string, string, string) error
	}{
		{kindConfigMap, refs.ConfigMaps, r.reflectConfigMap},
		{kindSecret, refs.Secrets, r.reflectSecret},
	} {
		for _, name := range ref.names {
			m := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: ref.kind}}
			if err := r.Consumer.Get(ctx, client.ObjectKey{Namespace: pod.Namespace, Name: name}, m); err != nil {
				if apierrors.IsNotFound(err) {
					continue
				}
				return fmt.Errorf("failed to get %s %s/%s: %w", ref.kind, pod.Namespace, name, err)
			}
			key := copyKey(twinNamespace, ref.kind, name)
			if r.copies.get(key) == m.ResourceVersion {
				continue
			}
			if err := ref.reflect(ctx, pod.Namespace, name, twinNamespace); err != nil {
				return err
			}
			r.copies.set(key, m.ResourceVersion)
			log.FromContext(ctx).V(1).Info("Reflected a changed reference", "kind", ref.kind, "object", klog.KRef(pod.Namespace, name), "into", twinNamespace)
		}
	}
	return nil
}

// collectCopies deletes the ConfigMaps and Secrets this consumer reflected
// into twinNamespace that no twin there references any more (a twin
// being deleted references nothing).
func (r *PodReflector) collectCopies(ctx context.Context, twinNamespace string) error {
	unlock := r.copies.lock(twinNamespace)
	defer unlock()
	mine := client.MatchingLabels{sharingv1alpha1.LabelConsumer: string(r.Options.ConsumerID)}
	var twins corev1.PodList
	if err := r.ProviderReader.List(ctx, &twins, client.InNamespace(twinNamespace), mine); err != nil {
		return fmt.Errorf("failed to list twins in %q: %w", twinNamespace, err)
	}
	used := map[string]bool{}
	for i := range twins.Items {
		if !twins.Items[i].DeletionTimestamp.IsZero() {
			continue
		}
		refs := ReferencesOf(&twins.Items[i])
		for _, n := range refs.ConfigMaps {
			used[copyKey(twinNamespace, kindConfigMap, n)] = true
		}
		for _, n := range refs.Secrets {
			used[copyKey(twinNamespace, kindSecret, n)] = true
		}
	}
	var cms corev1.ConfigMapList
	if err := r.ProviderReader.List(ctx, &cms, client.InNamespace(twinNamespace), mine); err != nil {
		return fmt.Errorf("failed to list reflected ConfigMaps in %q: %w", twinNamespace, err)
	}
	var secrets corev1.SecretList
	if err := r.ProviderReader.List(ctx, &secrets, client.InNamespace(twinNamespace), mine); err != nil {
		return fmt.Errorf("failed to list reflected Secrets in %q: %w", twinNamespace, err)
	}
	var unused []client.Object
	for i := range cms.Items {
		if !used[copyKey(twinNamespace, kindConfigMap, cms.Items[i].Name)] {
			unused = append(unused, &cms.Items[i])
		}
	}
	for i := range secrets.Items {
		if !used[copyKey(twinNamespace, kindSecret, secrets.Items[i].Name)] {
			unused = append(unused, &secrets.Items[i])
		}
	}
	for _, o := range unused {
		uid := o.GetUID()
		if err := r.Provider.Delete(ctx, o, client.Preconditions{UID: &uid}); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("failed to delete unreferenced copy %T %s/%s: %w", o, twinNamespace, o.GetName(), err)
		}
		kind := kindConfigMap
		if _, ok := o.(*corev1.Secret); ok {
			kind = kindSecret
		}
		r.copies.set(copyKey(twinNamespace, kind, o.GetName()), "")
		log.FromContext(ctx).V(1).Info("Deleted a copy no twin references", "kind", kind, "object", klog.KObj(o))
	}
	return nil
}

// podsReferencing maps a changed ConfigMap or Secret to the pods of its
// namespace that are bound to a node and reference it; Reconcile keeps
// those on this provider's virtual nodes.
func (r *PodReflector) podsReferencing(kind string) func(context.Context, client.Object) []reconcile.Request {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		var pods corev1.PodList
		if err := r.Consumer.List(ctx, &pods, client.InNamespace(o.GetNamespace())); err != nil {
			log.FromContext(ctx).Error(err, "Failed to list pods referencing a changed object", "kind", kind, "object", klog.KObj(o))
			return nil
		}
		var reqs []reconcile.Request
		for i := range pods.Items {
			p := &pods.Items[i]
			if p.Spec.NodeName == "" || IsTwin(p) {
				continue
			}
			refs := ReferencesOf(p)
			names := refs.ConfigMaps
			if kind == kindSecret {
				names = refs.Secrets
			}
			for _, n := range names {
				if n == o.GetName() {
					reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: p.Namespace, Name: p.Name}})
					break
				}
			}
		}
		return reqs
	}
}
