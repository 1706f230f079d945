package vmrender

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Input is everything rendering needs. It does not import the API types,
// so the controller maps a CloudVM onto it.
type Input struct {
	// Name and Namespace are the CloudVM's; every object is created in
	// Namespace and named after Name.
	Name, Namespace string
	// Provider is "azure", "gcp" or "aws".
	Provider string
	// Region is the provider's region, e.g. "westeurope", "europe-west4",
	// "eu-west-1".
	Region string
	// InstanceType is the provider's size, e.g. "Standard_D2s_v5",
	// "e2-standard-2", "m6i.large".
	InstanceType string
	// Image is the image family: "ubuntu-24.04", "ubuntu-22.04" or
	// "debian-12".
	Image string
	// SSHPublicKey, when set, is authorised for the VM's admin user.
	SSHPublicKey string
	// CredentialsSecretName, when set, names a Secret in Namespace the
	// provider's operator takes its credentials from; it is only
	// referenced, never read.
	CredentialsSecretName string
	// Labels are put on every object.
	Labels map[string]string
}

// ErrInvalidInput is wrapped by every error Render returns for an Input it
// refuses.
var ErrInvalidInput = errors.New("invalid CloudVM rendering input")

// Render validates in and renders its provider's objects, in a
// deterministic order (owners before what they own), each in in.Namespace.
func Render(in Input) ([]*unstructured.Unstructured, error) {
	return nil, fmt.Errorf("%w: provider %q: rendering is not built yet", ErrInvalidInput, in.Provider)
}
