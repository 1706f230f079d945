package kindwatch

import (
	"fmt"
	"maps"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// Set is the kinds one controller watches.
type Set struct {
	Controller controller.Controller
	Cache      cache.Cache
	// Handler maps an event of any watched kind to requests.
	Handler handler.EventHandler

	mu      sync.Mutex
	watched map[schema.GroupVersionKind]bool
}

// Watched reports whether gvk is watched.
func (s *Set) Watched(gvk schema.GroupVersionKind) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.watched[gvk]
}

// Ensure watches gvk's objects' metadata unless it is watched already.
func (s *Set) Ensure(gvk schema.GroupVersionKind) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.watched[gvk] {
		return nil
	}
	obj := &metav1.PartialObjectMetadata{}
	obj.SetGroupVersionKind(gvk)
	if err := s.Controller.Watch(source.Kind[client.Object](s.Cache, obj, s.Handler, SpecOrMetadataChanged())); err != nil {
		return fmt.Errorf("failed to watch %s: %w", gvk, err)
	}
	if s.watched == nil {
		s.watched = map[schema.GroupVersionKind]bool{}
	}
	s.watched[gvk] = true
	return nil
}

// SpecOrMetadataChanged passes creations, deletions, and the updates that
// may change what is placed: a new generation, labels or annotations, or
// any update of an object without a generation (a ConfigMap's data). An
// update of a template's status alone (which Meridian itself writes) does
// not pass.
func SpecOrMetadataChanged() predicate.Predicate {
	return predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
		o, n := e.ObjectOld, e.ObjectNew
		return n.GetGeneration() == 0 || o.GetGeneration() != n.GetGeneration() ||
			!maps.Equal(o.GetLabels(), n.GetLabels()) || !maps.Equal(o.GetAnnotations(), n.GetAnnotations()) ||
			!n.GetDeletionTimestamp().Equal(o.GetDeletionTimestamp())
	}}
}
