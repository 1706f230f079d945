package v1alpha1

import (
	"bytes"
	"encoding/json"

	"k8s.io/apimachinery/pkg/api/resource"
)

// Money is an amount in a currency. The field that holds it says what the
// amount pays for and for how long (pricePerHour: one node for one hour),
// and one object never mixes currencies where amounts are compared or
// added.
//
// That amount is not negative is checked where a Money is used: by a CEL
// rule on the field where the API server's cost budget allows it (an
// amount's text has no length limit, so a rule on every item of a long list
// exceeds the budget), else by the controller that reads it, naming the
// field.
type Money struct {
	// amount is a decimal such as "0.16". The API server keeps it as a
	// quantity, which Go clients write in its canonical form ("160m").
	// +required
	Amount resource.Quantity `json:"amount"`

	// currency of the amount, an ISO 4217 code such as "EUR" or "USD".
	// +required
	// +kubebuilder:validation:MinLength=3
	// +kubebuilder:validation:MaxLength=3
	// +kubebuilder:validation:Pattern=`^[A-Z]{3}$`
	Currency string `json:"currency"`
}

// UnmarshalJSON reads a Money, and also a bare decimal such as "0.16", the
// shape of a price before prices carried their currency, as an amount
// without a currency. The API server refuses that shape in writes; reading
// it lets Meridian read an object stored before the change and name the
// currency it lacks, where a failed read would stop the controller's cache
// for every object of the kind.
func (m *Money) UnmarshalJSON(data []byte) error {
	if legacy := bytes.TrimSpace(data); len(legacy) > 0 && legacy[0] != '{' && !bytes.Equal(legacy, []byte("null")) {
		var q resource.Quantity
		if err := q.UnmarshalJSON(legacy); err != nil {
			return err
		}
		*m = Money{Amount: q}
		return nil
	}
	type plain Money
	return json.Unmarshal(data, (*plain)(m))
}

// SecretReference names a Secret, and optionally one key in it.
type SecretReference struct {
	// name of the Secret.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Name string `json:"name"`

	// namespace of the Secret. Empty means the namespace Meridian runs in
	// (meridian-system by default).
	// +optional
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Namespace string `json:"namespace,omitempty"`

	// key in the Secret's data.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	Key string `json:"key,omitempty"`
}

// ClusterName is the name of a member Cluster object.
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=253
// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
type ClusterName string
