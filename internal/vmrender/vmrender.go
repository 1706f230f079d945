package vmrender

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Input is everything rendering needs. It does not import the API types,
// so the controller maps a CloudVM onto it.
type Input struct {
	// Name and Namespace are the CloudVM's. Every object is created in
	// Namespace and named after Name, which must be a DNS label short
	// enough for the provider's naming limits.
	Name, Namespace string
	// Provider is "azure", "gcp" or "aws".
	Provider string
	// Region is the provider's region, e.g. "westeurope", "europe-west4",
	// "eu-west-1".
	Region string
	// InstanceType is the provider's size, e.g. "Standard_D2s_v5",
	// "e2-standard-2", "m6i.large". An Arm size (Standard_D2ps_v5,
	// t2a-standard-2, m7g.large) boots the image family's arm64 image.
	InstanceType string
	// Image is the image family: "ubuntu-24.04", "ubuntu-22.04" or
	// "debian-12".
	Image string
	// SSHPublicKey, when set, is authorised for the VM's admin user,
	// "meridian". Azure creates no Linux VM without one.
	SSHPublicKey string
	// CredentialsSecretName, when set, names a Secret in Namespace that
	// Azure Service Operator takes its credential from; the Secret is only
	// referenced, never read. Config Connector and ACK have no per-object
	// credential (they take the namespace's or the controller's), so it
	// changes nothing on gcp and aws.
	CredentialsSecretName string
	// Labels are put on every object, beside the chart's
	// app.kubernetes.io/{name,instance,managed-by}. On gcp, Config
	// Connector copies unprefixed labels to the GCP resources, so those
	// must also be valid GCP labels.
	Labels map[string]string
}

// ErrInvalidInput is wrapped by every error Render returns for an Input it
// refuses.
var ErrInvalidInput = errors.New("invalid CloudVM rendering input")

// Render validates in and renders its provider's objects from the
// embedded cloudvm chart, in a deterministic order (each object after
// those it references), each in in.Namespace.
func Render(in Input) ([]*unstructured.Unstructured, error) {
	if err := Validate(in); err != nil {
		return nil, err
	}
	c, err := cloudVMChart()
	if err != nil {
		return nil, err
	}
	labels := make(map[string]any, len(in.Labels))
	for k, v := range in.Labels {
		labels[k] = v
	}
	vals := map[string]any{
		"provider":              in.Provider,
		"region":                in.Region,
		"instanceType":          in.InstanceType,
		"image":                 in.Image,
		"sshPublicKey":          in.SSHPublicKey,
		"credentialsSecretName": in.CredentialsSecretName,
		"labels":                labels,
	}
	objs, err := renderChart(c, in.Name, in.Namespace, vals)
	if err != nil {
		return nil, fmt.Errorf("failed to render CloudVM %s/%s for provider %q: %w", in.Namespace, in.Name, in.Provider, err)
	}
	if len(objs) == 0 {
		return nil, fmt.Errorf("chart rendered no objects for provider %q", in.Provider)
	}
	return objs, nil
}

// Validate checks in as Render does, without rendering: the admission
// webhook can refuse at creation a CloudVM that could not be rendered at
// its start.
func Validate(in Input) error {
	c, err := cloudVMChart()
	if err != nil {
		return err
	}
	return validate(in, imageFamilies(c.Values, in.Provider))
}

// imageFamilies returns the image families the chart's values map for
// provider, sorted: the chart's image table is the one list of them.
func imageFamilies(values map[string]any, provider string) []string {
	images, _ := values["images"].(map[string]any)
	families, _ := images[provider].(map[string]any)
	return slices.Sorted(maps.Keys(families))
}

// validate checks in against the provider's rules, naming the first field
// that breaks one, its value and what would be valid.
func validate(in Input, families []string) error {
	p, ok := providers[in.Provider]
	if !ok {
		return invalid("provider", in.Provider, "one of "+quoteAll(slices.Sorted(maps.Keys(providers))))
	}
	if errs := validation.IsDNS1123Label(in.Name); len(errs) > 0 {
		return invalid("name", in.Name, "a DNS label: "+strings.Join(errs, "; "))
	}
	if len(in.Name) > p.maxName {
		return invalid("name", in.Name, fmt.Sprintf("at most %d characters on %s: %s", p.maxName, in.Provider, p.nameLimit))
	}
	if p.startsWithLetter && (in.Name[0] < 'a' || in.Name[0] > 'z') {
		return invalid("name", in.Name, fmt.Sprintf("a name beginning with a letter on %s: %s", in.Provider, p.nameLimit))
	}
	if errs := validation.IsDNS1123Label(in.Namespace); len(errs) > 0 {
		return invalid("namespace", in.Namespace, "a namespace name: "+strings.Join(errs, "; "))
	}
	if in.Provider == "azure" {
		// The resource group is named "<namespace>-<name>", unique in the
		// subscription; Azure allows 90 characters.
		if n := len(in.Namespace) + 1 + len(in.Name); n > 90 {
			return invalid("name", in.Name, fmt.Sprintf("a name that with namespace %q is at most 89 characters on azure: the resource group <namespace>-<name> would have %d, Azure allows 90", in.Namespace, n))
		}
	}
	if !p.region.MatchString(in.Region) {
		return invalid("region", in.Region, fmt.Sprintf("a region of %s such as %q", in.Provider, p.regionExample))
	}
	if !p.instanceType.MatchString(in.InstanceType) {
		return invalid("instanceType", in.InstanceType, fmt.Sprintf("an instance type of %s such as %q", in.Provider, p.instanceExample))
	}
	if !slices.Contains(families, in.Image) {
		return invalid("image", in.Image, "one of "+quoteAll(families))
	}
	if p.needsSSHKey && in.SSHPublicKey == "" {
		return invalid("sshPublicKey", "", fmt.Sprintf("a public key such as \"ssh-ed25519 AAAA...\": %s creates no Linux VM without one", in.Provider))
	}
	if strings.ContainsAny(in.SSHPublicKey, "\r\n") {
		return invalid("sshPublicKey", in.SSHPublicKey, "one public key on one line")
	}
	if in.CredentialsSecretName != "" {
		if errs := validation.IsDNS1123Subdomain(in.CredentialsSecretName); len(errs) > 0 {
			return invalid("credentialsSecretName", in.CredentialsSecretName, "a Secret name: "+strings.Join(errs, "; "))
		}
	}
	return validateLabels(in.Provider, in.Labels)
}

// gcpLabelKey and gcpLabelValue are what Compute Engine allows for label keys and values.
var (
	gcpLabelKey   = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,62}$`)
	gcpLabelValue = regexp.MustCompile(`^[a-z0-9_-]{0,63}$`)
)

// validateLabels checks labels as Kubernetes labels and, on gcp, the
// unprefixed ones as GCP labels too (Config Connector copies them).
func validateLabels(provider string, labels map[string]string) error {
	keys := slices.Sorted(maps.Keys(labels))
	for _, k := range keys {
		v := labels[k]
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			return invalid("labels", k, "a label key: "+strings.Join(errs, "; "))
		}
		if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
			return invalid(fmt.Sprintf("labels[%s]", k), v, "a label value: "+strings.Join(errs, "; "))
		}
		if provider == "gcp" && !strings.Contains(k, "/") {
			if !gcpLabelKey.MatchString(k) {
				return invalid("labels", k, "a key with a prefix (example.com/key) or a GCP label key (lowercase letters, digits, _ and -, beginning with a letter): Config Connector copies unprefixed labels to GCP")
			}
			if !gcpLabelValue.MatchString(v) {
				return invalid(fmt.Sprintf("labels[%s]", k), v, "a GCP label value (lowercase letters, digits, _ and -): Config Connector copies unprefixed labels to GCP")
			}
		}
	}
	return nil
}

// invalid is the error for field holding value, which should be valid.
func invalid(field, value, valid string) error {
	return fmt.Errorf("%w: %s %q: must be %s", ErrInvalidInput, field, value, valid)
}

// quoteAll quotes each of values and joins them with commas.
func quoteAll(values []string) string {
	sort.Strings(values)
	quoted := make([]string, len(values))
	for i, v := range values {
		quoted[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(quoted, ", ")
}
