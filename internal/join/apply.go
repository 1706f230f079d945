package join

import (
	"context"
	"errors"
	"fmt"
	"io"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/manifest"
)

// side is one cluster Join writes to.
type side struct {
	// name says which cluster in messages: "member" or "management".
	name string
	c    client.Client
	out  io.Writer
}

// describe names obj as kubectl does: Kind namespace/name.
func describe(obj client.Object) string {
	return fmt.Sprintf("%s %s", obj.GetObjectKind().GroupVersionKind().Kind, klog.KObj(obj))
}

// apply server-side applies obj and says whether it was created,
// configured or left unchanged.
func (s side) apply(ctx context.Context, obj client.Object) error {
	verb, err := manifest.Apply(ctx, s.c, obj, FieldManager)
	if err != nil {
		return fmt.Errorf("the %s: %w", s.name, err)
	}
	_, err = fmt.Fprintf(s.out, "%s: %s %s\n", s.name, describe(obj), verb)
	return err
}

// foreign returns an error naming each of objs that exists in the
// cluster but was not made by Join for cluster: Join neither takes over
// nor, through Unjoin, deletes what others made (a Helm release's
// ServiceAccount of the same name, say).
func (s side) foreign(ctx context.Context, objs []client.Object, cluster string) error {
	var errs []error
	for _, obj := range objs {
		u, err := manifest.ForApply(obj)
		if err != nil {
			return err
		}
		got := &unstructured.Unstructured{}
		got.SetGroupVersionKind(u.GroupVersionKind())
		switch err := s.c.Get(ctx, client.ObjectKeyFromObject(u), got); {
		case apierrors.IsNotFound(err):
			continue
		case err != nil:
			return fmt.Errorf("failed to read %s in the %s: %w", describe(obj), s.name, err)
		}
		if got.GetLabels()[multiclusterv1alpha1.LabelJoinedCluster] != cluster {
			errs = append(errs, fmt.Errorf("%w: %s exists in the %s and was not made by meridian join for %q (labels %v); remove or rename it first", ErrExists, describe(obj), s.name, cluster, got.GetLabels()))
		}
	}
	return errors.Join(errs...)
}

// print writes obj as YAML, for a dry run.
func (s side) print(obj client.Object) error {
	u, err := manifest.ForApply(obj)
	if err != nil {
		return err
	}
	data, err := yaml.Marshal(u.Object)
	if err != nil {
		return fmt.Errorf("failed to print %s: %w", describe(obj), err)
	}
	_, err = fmt.Fprintf(s.out, "---\n# in the %s\n%s", s.name, data)
	return err
}

// write applies obj, or prints it on a dry run.
func (s side) write(ctx context.Context, obj client.Object, dryRun bool) error {
	if dryRun {
		return s.print(obj)
	}
	return s.apply(ctx, obj)
}
