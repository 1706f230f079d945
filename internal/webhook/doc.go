// Package webhook holds Meridian's admission webhooks.
//
// The CloudVM webhook decides where and when a cloud VM runs at the moment
// it is created: it maps the VM's needs onto the policy engine's input, lets
// the policies remove every region the VM may not use, lets the carbon
// scheduler choose among all the regions left (every provider allowed by
// policy is compared) and a start before the deadline, and patches the
// decision and its explanation into spec.schedule. A VM that no region or
// start can satisfy is denied, with every constraint and the reason each
// region was removed, so it never exists.
//
// The decision is spec, not status: the API server drops status that a
// mutating webhook writes on the main resource, and a decision made from
// forecasts cannot be reconstructed by observing anything later (see
// docs/design/20261123-cloudvm-admission.md).
//
// Everything runs in-process on data already in memory (the policy engine's
// compiled bundle and the scheduler's intensities), so an admission takes
// milliseconds and never waits on the network: the API server's webhook
// timeout cannot be reached by a slow dependency.
//
// The decision itself is [Planner.Admit], a function of the request, the
// old object, the policies, the scheduler and the time, which it is given;
// [CloudVMHandler] decodes the AdmissionReview, reads the clock once and
// turns the result into a JSON patch or a denial.
//
// The carbon scheduler (a [Reserver], *carbon.Planner in meridian
// controller) reserves each admitted plan's CPU in a ledger so that VMs
// admitted one after another never exceed a region's or grid zone's
// capacity. The ledger must hold exactly the stored VMs' decisions: dry runs
// and replays preview instead of reserving, a plan refused after it was
// reserved is given back, and [LedgerSync] rebuilds the ledger from the
// stored CloudVMs at start (admissions wait for it), releases deleted,
// Failed and Completed VMs, and sweeps reservations no stored VM claims.
package webhook
