package vmrender

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The condition types the providers' operators report readiness with.
const (
	// conditionReady is Azure Service Operator's and Config Connector's:
	// Ready=True once the cloud resource matches the spec.
	conditionReady = "Ready"
	// conditionACKSynced is ACK's: ACK.ResourceSynced=True once the AWS
	// resource matches the spec.
	conditionACKSynced = "ACK.ResourceSynced"
	// conditionACKTerminal is ACK's for an error retrying cannot fix.
	conditionACKTerminal = "ACK.Terminal"
)

// Ready says whether the operator that owns obj reports it ready, and the
// operator's last message about it, reading the operator's own status
// convention (chosen by the object's API group):
//
//   - Azure Service Operator (*.azure.com) and Config Connector
//     (*.cnrm.cloud.google.com): condition Ready=True, for the object's
//     current generation where the operator records the generation it saw.
//   - ACK (*.services.k8s.aws): condition ACK.ResourceSynced=True and no
//     ACK.Terminal=True; an EC2 Instance also needs status.state.name
//     "running".
//
// An object the operator has not reported on yet is not ready, with a
// message saying so.
func Ready(obj *unstructured.Unstructured) (ready bool, message string) {
	group := obj.GroupVersionKind().Group
	conds := conditions(obj)
	switch {
	case strings.HasSuffix(group, ".azure.com"), strings.HasSuffix(group, ".cnrm.cloud.google.com"):
		c, ok := conds[conditionReady]
		if !ok {
			return false, "waiting for the operator to report condition Ready"
		}
		if stale, msg := staleGeneration(obj, c); stale {
			return false, msg
		}
		return c.status == "True", c.describe()
	case strings.HasSuffix(group, ".services.k8s.aws"):
		if t, ok := conds[conditionACKTerminal]; ok && t.status == "True" {
			return false, t.describe()
		}
		c, ok := conds[conditionACKSynced]
		if !ok {
			return false, "waiting for the ACK controller to report condition " + conditionACKSynced
		}
		if c.status != "True" {
			return false, c.describe()
		}
		if obj.GetKind() == "Instance" {
			state, _, _ := unstructured.NestedString(obj.Object, "status", "state", "name")
			if state != "running" {
				if state == "" {
					state = "unknown"
				}
				return false, fmt.Sprintf("instance state is %s, not running", state)
			}
		}
		return true, c.describe()
	default:
		return false, fmt.Sprintf("no readiness convention known for API group %q", group)
	}
}

// condition is the part of a status condition Ready reads.
type condition struct {
	status, reason, message string
	observedGeneration      int64
	hasGeneration           bool
}

// describe is the condition as a message: its reason and message, or its
// status when it has neither.
func (c condition) describe() string {
	switch {
	case c.reason != "" && c.message != "":
		return c.reason + ": " + c.message
	case c.message != "":
		return c.message
	case c.reason != "":
		return c.reason
	default:
		return "status " + c.status
	}
}

// conditions returns obj's status conditions by type.
func conditions(obj *unstructured.Unstructured) map[string]condition {
	list, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	out := make(map[string]condition, len(list))
	for _, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			continue
		}
		typ, _ := m["type"].(string)
		c := condition{}
		c.status, _ = m["status"].(string)
		c.reason, _ = m["reason"].(string)
		c.message, _ = m["message"].(string)
		c.observedGeneration, c.hasGeneration = asInt64(m["observedGeneration"])
		out[typ] = c
	}
	return out
}

// staleGeneration reports whether the operator's word is about an older
// generation of obj than the current one: on the condition (ASO) or in
// status.observedGeneration (Config Connector).
func staleGeneration(obj *unstructured.Unstructured, c condition) (bool, string) {
	observed, ok := c.observedGeneration, c.hasGeneration
	if !ok {
		v, found, _ := unstructured.NestedFieldNoCopy(obj.Object, "status", "observedGeneration")
		if found {
			observed, ok = asInt64(v)
		}
	}
	if !ok || obj.GetGeneration() == 0 || observed >= obj.GetGeneration() {
		return false, ""
	}
	return true, fmt.Sprintf("waiting for the operator to observe generation %d (it reported on %d)", obj.GetGeneration(), observed)
}

// asInt64 reads a JSON number as decoded into an unstructured object.
func asInt64(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	case float64:
		return int64(n), true
	default:
		return 0, false
	}
}
