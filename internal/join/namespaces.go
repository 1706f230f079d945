package join

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/propagation"
)

// everyNamespaceHolds are the objects the API server and
// kube-controller-manager put in every namespace: a namespace that holds
// nothing else is empty.
var everyNamespaceHolds = map[string]bool{
	"serviceaccounts default":     true,
	"configmaps kube-root-ca.crt": true,
}

// removeMadeNamespaces deletes the member namespaces Meridian created to
// hold what it placed (propagation.Adoptable) once they are empty; one
// that holds anything else (a user's object) is kept, and out says what it
// holds.
func removeMadeNamespaces(ctx context.Context, mb *cluster, cfg *rest.Config, out io.Writer) error {
	var list corev1.NamespaceList
	if err := mb.c.List(ctx, &list, client.MatchingLabels{multiclusterv1alpha1.LabelManagedBy: multiclusterv1alpha1.ManagedByMeridian}); err != nil {
		return fmt.Errorf("failed to list the member's namespaces Meridian made: %w", err)
	}
	var made []*corev1.Namespace
	for i := range list.Items {
		ns := &list.Items[i]
		if propagation.Adoptable(ns, corev1.SchemeGroupVersion.WithKind("Namespace")) && ns.DeletionTimestamp.IsZero() {
			made = append(made, ns)
		}
	}
	if len(made) == 0 {
		return nil
	}
	for _, ns := range made {
		if err := deleteIfEmpty(ctx, mb, cfg, ns, "Meridian", nil, out); err != nil {
			return err
		}
	}
	return nil
}

// deleteIfEmpty deletes a namespace maker made in the member when it holds
// nothing but what every namespace holds and what ignore leaves out; one
// that holds more is kept, and out says what it holds.
func deleteIfEmpty(ctx context.Context, mb *cluster, cfg *rest.Config, ns *corev1.Namespace, maker string, ignore func(schema.GroupVersionResource, metav1.Object) bool, out io.Writer) error {
	held, err := holdsBesides(ctx, cfg, ns.Name, ignore)
	if err != nil {
		return err
	}
	if len(held) > 0 {
		_, err := fmt.Fprintf(out, "member: Namespace %s kept, %s made it but it holds %s\n", ns.Name, maker, strings.Join(held[:min(3, len(held))], ", "))
		return err
	}
	return deleteOne(ctx, mb, ns, out)
}

// namespacedResources are the namespaced kinds the member serves and lists.
func namespacedResources(cfg *rest.Config) ([]schema.GroupVersionResource, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("failed to make a discovery client of the member: %w", err)
	}
	lists, err := dc.ServerPreferredNamespacedResources()
	var partial *discovery.ErrGroupDiscoveryFailed
	if err != nil && !errors.As(err, &partial) {
		return nil, fmt.Errorf("failed to discover the member's kinds: %w", err)
	}
	var out []schema.GroupVersionResource
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			return nil, err
		}
		for _, r := range l.APIResources {
			if !strings.Contains(r.Name, "/") && slices.Contains(r.Verbs, "list") && r.Name != "events" {
				out = append(out, gv.WithResource(r.Name))
			}
		}
	}
	return out, nil
}

// holdsBesides names what namespace holds beyond what every namespace
// holds and what ignore says to leave out.
func holdsBesides(ctx context.Context, cfg *rest.Config, namespace string, ignore func(schema.GroupVersionResource, metav1.Object) bool) ([]string, error) {
	// Listing every kind lists deprecated ones (v1 Endpoints).
	cfg = rest.CopyConfig(cfg)
	cfg.WarningHandler = rest.NoWarnings{}
	resources, err := namespacedResources(cfg)
	if err != nil {
		return nil, err
	}
	md, err := metadata.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("failed to make a metadata client of the member: %w", err)
	}
	return holds(ctx, md, resources, namespace, ignore)
}

// holds names what namespace holds beyond what every namespace holds (and
// what ignore, when not nil, leaves out).
func holds(ctx context.Context, md metadata.Interface, resources []schema.GroupVersionResource, namespace string, ignore func(schema.GroupVersionResource, metav1.Object) bool) ([]string, error) {
	var out []string
	for _, gvr := range resources {
		items, err := md.Resource(gvr).Namespace(namespace).List(ctx, metav1.ListOptions{})
		if apierrors.IsNotFound(err) || apierrors.IsMethodNotSupported(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("failed to list %s in namespace %s of the member: %w", gvr.Resource, namespace, err)
		}
		for _, it := range items.Items {
			if ignore != nil && ignore(gvr, &it) {
				continue
			}
			if key := gvr.Resource + " " + it.Name; !everyNamespaceHolds[key] && it.DeletionTimestamp == nil {
				out = append(out, key)
			}
		}
	}
	return out, nil
}
