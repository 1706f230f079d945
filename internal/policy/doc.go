// Package policy embeds the Open Policy Agent: Rego modules and their data
// documents kept in the repository (or loaded from bundles), evaluated
// in-process, with every decision logged so that it can be replayed.
//
// One engine serves the cloud VM admission webhook, resource sharing's
// policies and the placement filters that policies express.
//
// # Bundles and revisions
//
// The Engine evaluates one bundle at a time, an OPA bundle (Rego modules,
// data.json documents and a .manifest carrying a revision) read from the
// binary (the default, package policies), a folder or an HTTP bundle server.
// A bundle is read, verified when a signing key is configured, and compiled
// into a revision: the compiler, an in-memory store holding the bundle's data
// and the prepared queries built from them. Evaluations load the current
// revision through an atomic pointer, so a new bundle is swapped in between
// two evaluations and one in flight finishes on the revision it started
// with; none waits and none fails because of a reload. A bundle that cannot
// be downloaded, verified or compiled is refused and the current revision
// stays; the failure is reported by Status, the Prometheus metrics and the
// log.
//
// # Decisions
//
// Every evaluation is a Decision: its ID, time, query, input, the revision it
// was made with and its result. Decisions are written as JSON lines to a
// writer and kept in a bounded ring; the last few revisions stay compiled,
// so Replay can evaluate a logged decision again with the revision it was
// made with.
//
// # VM policies
//
// The default bundle's packages meridian.vm.* decide which provider regions
// a cloud VM may go to (see docs/policy.md); Engine.VM is their typed entry
// point and implements VMPolicies.
package policy
