package testbed

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/meridian-dev/meridian/config"
	"github.com/meridian-dev/meridian/internal/scheme"
)

// FieldManager is the server-side apply field manager of what the testbed
// writes.
const FieldManager = "meridian-testbed"

// Scheme returns the scheme of the testbed's clients (see package scheme).
func Scheme() *runtime.Scheme { return scheme.New() }

// crdObjects decodes every CRD config.CRDs embeds, in file order.
func crdObjects() ([]*unstructured.Unstructured, error) {
	files, err := fs.Glob(config.CRDs, "crd/bases/*.yaml")
	if err != nil {
		return nil, fmt.Errorf("failed to list embedded CRDs: %w", err)
	}
	sort.Strings(files)
	var out []*unstructured.Unstructured
	for _, f := range files {
		data, err := config.CRDs.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("failed to read embedded CRD %s: %w", f, err)
		}
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(data, &u.Object); err != nil {
			return nil, fmt.Errorf("failed to decode embedded CRD %s: %w", path.Base(f), err)
		}
		out = append(out, u)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no CRDs embedded from config/crd/bases: run 'make manifests'")
	}
	return out, nil
}

// installCRDs applies Meridian's CRDs with server-side apply (the largest
// are about 600 KB, past what client-side apply's last-applied annotation
// can hold) and waits until every one is Established.
func installCRDs(ctx context.Context, c client.Client) (int, error) {
	crds, err := crdObjects()
	if err != nil {
		return 0, err
	}
	for _, crd := range crds {
		if err := apply(ctx, c, crd); err != nil {
			return 0, fmt.Errorf("failed to apply CRD %s: %w", crd.GetName(), err)
		}
	}
	for _, crd := range crds {
		err := poll(ctx, 50*time.Millisecond, func() (bool, error) {
			got := &apiextensionsv1.CustomResourceDefinition{}
			if err := c.Get(ctx, client.ObjectKey{Name: crd.GetName()}, got); err != nil {
				return false, fmt.Errorf("failed to get CRD: %w", err)
			}
			for _, cond := range got.Status.Conditions {
				if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
					return true, nil
				}
			}
			return false, nil
		})
		if err != nil {
			return 0, fmt.Errorf("CRD %s not established: %w", crd.GetName(), err)
		}
	}
	return len(crds), nil
}

// apply server-side applies obj as FieldManager, taking over conflicting
// fields: the testbed owns what it writes.
func apply(ctx context.Context, c client.Client, obj *unstructured.Unstructured) error {
	return c.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj), client.FieldOwner(FieldManager), client.ForceOwnership)
}
