// Package bootstrap makes an API server Meridian's management cluster:
// Meridian's CRDs (established before anything watches them), the
// controller's namespace, and the admission webhook configurations
// pointed at the controller by URL. The testbed installs the CRDs with it;
// `meridian controller --bootstrap` does all three at start, for the
// control-plane-only API server the Helm chart can run
// (docs/design/20261128-any-workload.md).
package bootstrap

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/yaml"

	"github.com/meridian-dev/meridian/config"
	"github.com/meridian-dev/meridian/internal/clusterinventory"
)

// Options say what Apply writes besides the CRDs.
type Options struct {
	// FieldManager owns what is written (server-side apply, forcing
	// conflicts: the bootstrapper owns these objects).
	FieldManager string
	// Namespace is created when it does not exist; empty creates none.
	Namespace string
	// WebhookURL is the base URL (https://host:port) at which the
	// management cluster's API server reaches the controller's webhook
	// server; empty writes no webhook configuration.
	WebhookURL string
	// WebhookCA is the PEM bundle that signed the webhook server's
	// certificate; required with WebhookURL.
	WebhookCA []byte
	// FailurePolicy of the webhooks: Fail or Ignore; empty keeps the
	// generated one.
	FailurePolicy string
}

// Apply writes Meridian's CRDs and waits until every one is Established,
// then the namespace and the webhook configurations that o asks for. It
// is idempotent: applying twice changes nothing.
func Apply(ctx context.Context, c client.Client, o Options) error {
	if o.FieldManager == "" {
		return fmt.Errorf("bootstrap needs a field manager")
	}
	if _, err := InstallCRDs(ctx, c, o.FieldManager); err != nil {
		return err
	}
	if o.Namespace != "" {
		ns := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": o.Namespace}}}
		if err := c.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("failed to create namespace %s: %w", o.Namespace, err)
		}
	}
	if o.WebhookURL == "" {
		return nil
	}
	return ApplyWebhooks(ctx, c, o)
}

// ApplyWebhooks writes the webhook configurations o asks for (o.WebhookURL
// and o.WebhookCA), as Apply does; run again when the webhook server's CA
// changes (a renewed certificate), it points the API server at the new one.
func ApplyWebhooks(ctx context.Context, c client.Client, o Options) error {
	hooks, err := Webhooks(o.WebhookURL, o.WebhookCA, o.FailurePolicy)
	if err != nil {
		return err
	}
	for _, h := range hooks {
		if err := apply(ctx, c, h, o.FieldManager); err != nil {
			return fmt.Errorf("failed to apply %s %s: %w", h.GetKind(), h.GetName(), err)
		}
	}
	return nil
}

// CRDs decodes every CRD config.CRDs embeds, in file order.
func CRDs() ([]*unstructured.Unstructured, error) {
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

// InstallCRDs applies Meridian's CRDs, and creates the Cluster Inventory
// API's ClusterProfile CRD when it is missing, with server-side apply as
// fieldManager (the largest are about 600 KB, past what client-side
// apply's last-applied annotation can hold) and waits until every one is
// Established. It returns how many it applied.
func InstallCRDs(ctx context.Context, c client.Client, fieldManager string) (int, error) {
	crds, err := CRDs()
	if err != nil {
		return 0, err
	}
	for _, crd := range crds {
		if err := apply(ctx, c, crd, fieldManager); err != nil {
			return 0, fmt.Errorf("failed to apply CRD %s: %w", crd.GetName(), err)
		}
	}
	// The Cluster Inventory API's ClusterProfile, so that the fleet is
	// visible to its consumers: created when missing, and never changed
	// when another cluster manager installed it.
	profiles := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(clusterinventory.CRD, &profiles.Object); err != nil {
		return 0, fmt.Errorf("failed to decode the ClusterProfile CRD: %w", err)
	}
	if err := c.Create(ctx, profiles, client.FieldOwner(fieldManager)); err != nil && !apierrors.IsAlreadyExists(err) {
		return 0, fmt.Errorf("failed to create CRD %s: %w", profiles.GetName(), err)
	}
	crds = append(crds, profiles)
	for _, crd := range crds {
		err := wait.PollUntilContextCancel(ctx, 50*time.Millisecond, true, func(ctx context.Context) (bool, error) {
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

// Webhooks returns the generated webhook configurations with every
// webhook's client pointed at url (its path kept) and trusting ca.
func Webhooks(url string, ca []byte, failurePolicy string) ([]*unstructured.Unstructured, error) {
	if !strings.HasPrefix(url, "https://") {
		return nil, fmt.Errorf("webhook URL %q: must start with https://", url)
	}
	if len(bytes.TrimSpace(ca)) == 0 {
		return nil, fmt.Errorf("webhook URL %s needs the CA bundle that signed the webhook server's certificate", url)
	}
	switch failurePolicy {
	case "", "Fail", "Ignore":
	default:
		return nil, fmt.Errorf("webhook failure policy %q: must be Fail or Ignore", failurePolicy)
	}
	var out []*unstructured.Unstructured
	for _, doc := range strings.Split(string(config.Webhooks), "\n---") {
		if strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(doc), "---")) == "" {
			continue
		}
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
			return nil, fmt.Errorf("failed to decode the embedded webhook configurations: %w", err)
		}
		hooks, _, err := unstructured.NestedSlice(u.Object, "webhooks")
		if err != nil {
			return nil, fmt.Errorf("webhook configuration %s: %w", u.GetName(), err)
		}
		for i := range hooks {
			h := hooks[i].(map[string]any)
			p, _, _ := unstructured.NestedString(h, "clientConfig", "service", "path")
			h["clientConfig"] = map[string]any{"url": strings.TrimSuffix(url, "/") + p, "caBundle": base64.StdEncoding.EncodeToString(ca)}
			if failurePolicy != "" {
				h["failurePolicy"] = failurePolicy
			}
		}
		if err := unstructured.SetNestedSlice(u.Object, hooks, "webhooks"); err != nil {
			return nil, fmt.Errorf("webhook configuration %s: %w", u.GetName(), err)
		}
		u.SetName("meridian-" + strings.TrimSuffix(strings.ToLower(u.GetKind()), "webhookconfiguration"))
		out = append(out, u)
	}
	return out, nil
}

func apply(ctx context.Context, c client.Client, obj *unstructured.Unstructured, fieldManager string) error {
	return c.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj), client.FieldOwner(fieldManager), client.ForceOwnership)
}

// FollowWebhookCA reads caFile every interval until ctx ends and, when it
// differs from o.WebhookCA (a renewed certificate), writes the webhook
// configurations again trusting it: no cainjector serves a management API
// server of Meridian's own. A file being rotated is read again at the next
// tick; a failed write is logged and retried.
func FollowWebhookCA(ctx context.Context, c client.Client, o Options, caFile string, interval time.Duration) {
	wait.UntilWithContext(ctx, func(ctx context.Context) {
		ca, err := os.ReadFile(caFile)
		if err != nil || bytes.Equal(ca, o.WebhookCA) {
			return
		}
		next := o
		next.WebhookCA = ca
		if err := ApplyWebhooks(ctx, c, next); err != nil {
			log.FromContext(ctx).Error(err, "Failed to point the webhook configurations at the renewed CA", "file", caFile)
			return
		}
		o = next
		log.FromContext(ctx).Info("Webhook configurations trust the renewed CA", "file", caFile)
	}, interval)
}
