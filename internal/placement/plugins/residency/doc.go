// Package residency is the Residency filter plugin (issue 12, seed 000's
// GDPR policy): a workload that lists jurisdictions
// (spec.placement.residency) goes only to clusters whose declared
// jurisdiction (Cluster spec.jurisdiction) is one of them.
package residency
