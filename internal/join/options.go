package join

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/meridian-dev/meridian/internal/membertoken"
)

// DefaultTokenTTL is the lifetime of the tokens Join issues and the
// controller renews.
const DefaultTokenTTL = 24 * time.Hour

// Options say which Cluster to make and how.
type Options struct {
	// Name of the Cluster in the management cluster.
	Name string
	// Namespace of the ServiceAccount in the member and of the kubeconfig
	// Secret in the management cluster; DefaultNamespace when empty.
	Namespace string
	// Where the member is, written into the Cluster's spec.
	Region, Zone, Provider, GridZone, Jurisdiction string
	// Labels of the Cluster, which placement policies select on.
	Labels map[string]string
	// Server is the member API server's address as the controller reaches
	// it, when not the one of the member kubeconfig.
	Server string
	// TokenTTL is the token's lifetime; DefaultTokenTTL when zero.
	TokenTTL time.Duration
	// Resources are kinds beyond the common ones that policies place into
	// the member, as resource.group ("widgets.example.com"), which the
	// member role then lets the controller write too.
	Resources []string
	// ProbeImage, when set, is the image of Meridian that runs the
	// member's latency prober (meridian probe), which Join deploys on the
	// member's host network at ProbePort (DefaultProbePort when zero).
	ProbeImage string
	ProbePort  int32
	// DryRun prints what would be written and writes nothing.
	DryRun bool
}

// DefaultProbePort is the port the prober Join deploys answers on.
const DefaultProbePort = 7946

func (o *Options) defaults() {
	if o.Namespace == "" {
		o.Namespace = DefaultNamespace
	}
	if o.TokenTTL == 0 {
		o.TokenTTL = DefaultTokenTTL
	}
	if o.Provider == "" {
		o.Provider = "OnPremises"
	}
	if o.ProbePort == 0 {
		o.ProbePort = DefaultProbePort
	}
}

// Validate reports every bad option, naming it and what would be valid.
func (o Options) Validate() error {
	var errs []error
	if msgs := validation.IsDNS1123Label(o.Name); len(msgs) > 0 {
		errs = append(errs, fmt.Errorf("name %q: %s", o.Name, strings.Join(msgs, "; ")))
	}
	if o.Namespace != "" {
		if msgs := validation.IsDNS1123Label(o.Namespace); len(msgs) > 0 {
			errs = append(errs, fmt.Errorf("--namespace %q: %s", o.Namespace, strings.Join(msgs, "; ")))
		}
	}
	for _, f := range []struct{ flag, value string }{{"--region", o.Region}, {"--zone", o.Zone}} {
		if f.value != "" && len(validation.IsDNS1123Label(f.value)) > 0 {
			errs = append(errs, fmt.Errorf("%s %q: must be lower-case letters, digits and '-'", f.flag, f.value))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(o.Labels)) {
		if _, reserved := labels(o.Name)[k]; reserved {
			errs = append(errs, fmt.Errorf("--label %s: the key is meridian join's own (it finds what it made by it)", k))
		}
		if msgs := validation.IsQualifiedName(k); len(msgs) > 0 {
			errs = append(errs, fmt.Errorf("--label %s: key %s", k, strings.Join(msgs, "; ")))
		}
		if msgs := validation.IsValidLabelValue(o.Labels[k]); len(msgs) > 0 {
			errs = append(errs, fmt.Errorf("--label %s=%s: value %s", k, o.Labels[k], strings.Join(msgs, "; ")))
		}
	}
	if o.ProbePort != 0 && (o.ProbePort < 1024 || o.ProbePort > 65535) {
		errs = append(errs, fmt.Errorf("--probe-port %d: must be from 1024 to 65535 (the prober runs as a user that may not listen below 1024)", o.ProbePort))
	}
	if o.TokenTTL != 0 && o.TokenTTL < membertoken.MinTTL {
		errs = append(errs, fmt.Errorf("--token-ttl %v: must be at least %v, the shortest token an API server issues", o.TokenTTL, membertoken.MinTTL))
	}
	if o.Server != "" {
		if u, err := url.Parse(o.Server); err != nil || u.Scheme != "https" || u.Host == "" {
			errs = append(errs, fmt.Errorf("--member-server %q: want the https URL of the member's API server, https://host:port", o.Server))
		}
	}
	for _, r := range o.Resources {
		if _, err := parseResource(r); err != nil {
			errs = append(errs, fmt.Errorf("--resource %q: %w", r, err))
		}
	}
	return errors.Join(errs...)
}

// parseResource reads "resource.group" (or "resource" of the core group).
func parseResource(s string) (schema.GroupResource, error) {
	gr := schema.ParseGroupResource(s)
	if gr.Resource == "" || strings.Contains(s, "*") || len(validation.IsDNS1123Label(gr.Resource)) > 0 {
		return gr, errors.New("want a plural resource and its group, as kubectl api-resources lists them: widgets.example.com, or configmaps for the core group; no wildcards")
	}
	return gr, nil
}
