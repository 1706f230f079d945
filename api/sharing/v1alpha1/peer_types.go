package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PeerRole says in which direction capacity flows with a peer.
// +kubebuilder:validation:Enum=Provider;Consumer;Both
type PeerRole string

// The roles a peer may have, seen from this cluster.
const (
	// RoleProvider: the peer lends capacity to this cluster.
	RoleProvider PeerRole = "Provider"
	// RoleConsumer: this cluster lends capacity to the peer.
	RoleConsumer PeerRole = "Consumer"
	// RoleBoth: capacity flows both ways.
	RoleBoth PeerRole = "Both"
)

// Lends reports whether an enabled peering of this spec has the peer lend
// capacity to this cluster.
func (s *PeerSpec) Lends() bool {
	return !s.Disabled && (s.Role == RoleProvider || s.Role == RoleBoth)
}

// Borrows reports whether an enabled peering of this spec has this cluster
// lend capacity to the peer.
func (s *PeerSpec) Borrows() bool {
	return !s.Disabled && (s.Role == RoleConsumer || s.Role == RoleBoth)
}

// HostsVirtualNodes reports whether this cluster runs virtual nodes of the
// peer: a peer that lends to it directly, not a broker (whose API server
// holds only this cluster's namespace, and no pods).
func (s *PeerSpec) HostsVirtualNodes() bool { return s.Lends() && !s.Broker }

// PeerPhase is the state of a peering.
// +kubebuilder:validation:Enum=Pending;Established;Unreachable;Disabled
type PeerPhase string

// The phases of a Peer.
const (
	// PeerPending: the peer has not been reached yet.
	PeerPending PeerPhase = "Pending"
	// PeerEstablished: the peer answers and messages flow.
	PeerEstablished PeerPhase = "Established"
	// PeerUnreachable: the peer's API server does not answer, or the
	// credentials are refused; the message says which.
	PeerUnreachable PeerPhase = "Unreachable"
	// PeerDisabled: spec.disabled is set; nothing is sent or accepted.
	PeerDisabled PeerPhase = "Disabled"
)

// Peer condition types and reasons.
const (
	// PeerReady is True while the peer's API server answers with the
	// credentials of spec.credentialsSecretRef.
	PeerReady = "Ready"

	PeerReasonConnected          = "Connected"
	PeerReasonUnreachable        = "Unreachable"
	PeerReasonCredentialsInvalid = "CredentialsInvalid"
	PeerReasonDisabled           = "Disabled"
)

// PeerIdentity is who a peer authenticates as when it writes into this
// cluster. The agent attributes every message in the peer's namespace to
// this identity, never to the cluster ID the message claims.
type PeerIdentity struct {
	// username the peer's requests authenticate as, normally its service
	// account here: "system:serviceaccount:<namespace>:<name>".
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=320
	Username string `json:"username"`
}

// OutgoingPolicy is what this cluster advertises to one consumer.
type OutgoingPolicy struct {
	// sharePercent is the part of each node's spare capacity (allocatable
	// minus requested) that may be advertised to this peer. Capacity
	// advertised to or reserved by another peer is never advertised again.
	// +optional
	// +kubebuilder:default=50
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	SharePercent int32 `json:"sharePercent,omitempty"`

	// prices this peer is charged; empty means free sharing.
	// +optional
	// +listType=map
	// +listMapKey=resource
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:XValidation:rule="self.all(p, p.currency == self[0].currency)",message="all prices must be in one currency"
	Prices []Price `json:"prices,omitempty"`
}

// PeerSpec says who a peer is, how to reach it and what is shared with it.
type PeerSpec struct {
	// clusterID of the peer, as its messages name it.
	// +required
	ClusterID ClusterID `json:"clusterID"`

	// role of the peer: Provider lends to this cluster, Consumer borrows
	// from it, Both does both.
	// +required
	Role PeerRole `json:"role"`

	// apiServer is the URL of the peer's Kubernetes API server, which this
	// cluster's agent writes its messages into.
	// +required
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^https://[^\s/]+(/[^\s]*)?$`
	APIServer string `json:"apiServer"`

	// credentialsSecretRef names the Secret, in the Peer's namespace, that
	// holds the kubeconfig of this cluster's least-privilege service
	// account in the peer. Credentials are never written into the Peer.
	// +required
	CredentialsSecretRef SecretReference `json:"credentialsSecretRef"`

	// identity is who the peer authenticates as when it writes into this
	// cluster.
	// +required
	Identity PeerIdentity `json:"identity"`

	// namespace in this cluster that the peer writes its messages
	// (Advertisements, Quotes, Offers, Acknowledgements, Releases) into;
	// its RBAC allows nothing else.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Namespace string `json:"namespace"`

	// region of the peer, put on its virtual nodes.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Region string `json:"region,omitempty"`

	// outgoing is what this cluster advertises to the peer; only used when
	// the role is Consumer or Both.
	// +optional
	Outgoing *OutgoingPolicy `json:"outgoing,omitempty"`

	// disabled stops all sharing with the peer without forgetting it.
	// +optional
	Disabled bool `json:"disabled,omitempty"`

	// broker marks the peer as an advertisement broker (meridian broker),
	// not a cluster that hosts pods. With role Consumer or Both this
	// cluster publishes its advertisements to the broker and answers the
	// quotes the broker forwards, as to any consumer; with role Provider or
	// Both this cluster's auctions are run by the broker: the Quote goes to
	// the broker only, which collects the providers' offers, picks and
	// acknowledges the winner and writes the result into the Quote's
	// status there.
	// +optional
	Broker bool `json:"broker,omitempty"`
}

// PeerStatus is what the agent last observed of a peer.
type PeerStatus struct {
	// conditions of the object: Ready says whether the peer answers.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// phase of the peering.
	// +optional
	Phase PeerPhase `json:"phase,omitempty"`

	// observedGeneration is the generation of the spec last acted on.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// lastSeenTime is when the peer last answered or sent a message.
	// +optional
	LastSeenTime *metav1.Time `json:"lastSeenTime,omitempty"`

	// latency is the measured round-trip time to the peer's API server;
	// auctions break price ties by it.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=duration
	Latency *metav1.Duration `json:"latency,omitempty"`
}

// Peer is a cluster this one shares capacity with.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=peer,categories=meridian;sharing
// +kubebuilder:printcolumn:name="Cluster ID",type=string,JSONPath=`.spec.clusterID`
// +kubebuilder:printcolumn:name="Role",type=string,JSONPath=`.spec.role`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Region",type=string,JSONPath=`.spec.region`
// +kubebuilder:printcolumn:name="Broker",type=boolean,JSONPath=`.spec.broker`,priority=1
// +kubebuilder:printcolumn:name="Share",type=integer,JSONPath=`.spec.outgoing.sharePercent`,description="Percent of spare capacity advertised to the peer"
// +kubebuilder:printcolumn:name="Latency",type=string,JSONPath=`.status.latency`,priority=1
// +kubebuilder:printcolumn:name="API Server",type=string,JSONPath=`.spec.apiServer`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Peer struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec says who the peer is and how to reach it.
	// +required
	Spec PeerSpec `json:"spec"`

	// status is what the agent observed of the peer.
	// +optional
	Status PeerStatus `json:"status,omitempty"`
}

// PeerList is a list of Peers.
//
// +kubebuilder:object:root=true
type PeerList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Peer `json:"items"`
}
