// Package policy embeds the Open Policy Agent: Rego modules and their data
// documents kept in the repository (or loaded from bundles), evaluated
// in-process, with every decision logged so that it can be replayed.
//
// One engine serves the cloud VM admission webhook, resource sharing's
// policies and the placement filters that policies express.
package policy
