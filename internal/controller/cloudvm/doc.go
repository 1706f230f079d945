// Package cloudvm reconciles CloudVMs: it creates a VM's provider objects
// (Azure Service Operator, Config Connector or ACK, rendered by
// internal/vmrender) exactly at the start the admission webhook decided,
// reports whether the provider's operator made them ready, and deletes them
// at the start plus the run's length.
//
// # One pass
//
// Every pass reads the CloudVM, renders its decision (spec.schedule) into
// the provider objects, lists the objects that carry the VM's label
// (computev1alpha1.LabelCloudVM) in its namespace straight from the API
// server, and hands all of it with the time to decide.VM, which says what to
// apply, what to delete, the phase and when to look again. The pass then
// applies with server-side apply (field owner meridian-cloudvm, forced),
// deletes, and patches the status.
//
// # Timing
//
// The start and the end are never polled for: a waiting VM is requeued for
// exactly its start, a running one for exactly its end (and, more often,
// every Poll to follow its objects' readiness). A VM the controller reaches
// more than the start slack after its start, or whose run would end after
// its deadline, is Failed and nothing is created: a VM is never silently
// late. Provider kinds installed when the controller starts are watched
// (metadata only), so readiness changes are seen at once.
//
// # Restarts
//
// The controller keeps nothing in memory. The start is status.startedTime,
// or, when the controller stopped between the apply and the status write,
// the oldest provider object's creation time; the end follows from it and
// the decision. Provider objects are read from the API server rather than
// a cache, and only objects that do not exist are applied, so a restarted
// controller neither applies a running VM again nor drops it. Once started,
// a VM keeps the objects its start recorded (status.objects), even if its
// decision changes.
//
// # Deletion
//
// A CloudVM carries a finalizer; when it is deleted, its provider objects
// are deleted first, and the CloudVM goes once they are gone.
//
// # Without the webhook
//
// A CloudVM created while the admission webhook was not installed has no
// spec.schedule: it is Unschedulable, with condition Scheduled False
// (reason NoDecision) and a warning event saying to install the webhook and
// re-create it. Nothing is created for it.
package cloudvm
