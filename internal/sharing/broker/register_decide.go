package broker

import (
	"fmt"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/sharing"
)

// Reasons of a registration's Ready condition.
const (
	ReasonRegistered       = "Registered"
	ReasonInvalid          = "Invalid"
	ReasonIdentityMismatch = "IdentityMismatch"
	ReasonNotTheMember     = "NotTheMember"
)

// admit decides a registration p written into member m's namespace. The
// member is who the namespace belongs to (set by the administrator, and
// only its service account may write there), so every claim in p must
// agree with m: its name and clusterID are m's cluster ID, its namespace
// is m's namespace, its identity m's. A member is not a broker. The
// returned message names the field that is wrong.
func admit(p *sharingv1alpha1.Peer, m *member) (reason, message string, ok bool) {
	if errs := sharing.Validate(p); len(errs) > 0 {
		return ReasonInvalid, errs.ToAggregate().Error(), false
	}
	switch {
	case p.Spec.ClusterID != m.ClusterID:
		return sharing.ReasonClusterIDMismatch, fmt.Sprintf("spec.clusterID: %q is claimed, but namespace %q belongs to member %q", p.Spec.ClusterID, m.Namespace, m.ClusterID), false
	case p.Name != string(m.ClusterID):
		return ReasonNotTheMember, fmt.Sprintf("metadata.name: %q: the registration must be named after the member, %q", p.Name, m.ClusterID), false
	case p.Spec.Namespace != m.Namespace:
		return ReasonInvalid, fmt.Sprintf("spec.namespace: %q: must be %q, the namespace the member writes into", p.Spec.Namespace, m.Namespace), false
	case m.Identity != "" && p.Spec.Identity.Username != m.Identity:
		return ReasonIdentityMismatch, fmt.Sprintf("spec.identity.username: %q: member %q authenticates as %q", p.Spec.Identity.Username, m.ClusterID, m.Identity), false
	case p.Spec.Broker:
		return ReasonInvalid, "spec.broker: must be false: a member is a cluster, not a broker", false
	}
	return ReasonRegistered, fmt.Sprintf("member %q (%s) writes into %q as %q", m.ClusterID, p.Spec.Role, m.Namespace, p.Spec.Identity.Username), true
}
