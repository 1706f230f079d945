// Package karmada converts Karmada's PropagationPolicy,
// ClusterPropagationPolicy, OverridePolicy and ClusterOverridePolicy
// (policy.karmada.io/v1alpha1) into Meridian's PropagationPolicy and
// ClusterPropagationPolicy, for a team moving from Karmada (`meridian
// convert karmada`).
//
// The fields both systems have are carried over; each field that has no
// equivalent, or a different meaning, becomes a warning that names it and
// says what Meridian does instead, so that nothing is dropped silently. The
// field meanings are those of Karmada's API at commit f8fdd02 of
// github.com/karmada-io/karmada (Apache-2.0), read for this mapping; no code
// of Karmada's is used. docs/karmada.md is the table.
package karmada
