// Package decide holds the decision pass of Meridian's workload controllers:
// pure functions from what was observed (the member clusters' objects, an
// inventory snapshot, the time) to a plan. The reconcilers read, call them
// and write; the simulator calls the very same functions in virtual time, so
// every rule here (pending grace, failover hold, pull-back pace, the order of
// a move) exists in the simulator because it exists in the controllers.
//
// A decision does no I/O and reads no clock: the time comes in the input,
// and what a controller must remember between passes (when a workload was
// last considered for a pull-back) comes back in the plan for it to keep.
//
// # A MultiClusterDeployment's pass
//
// Deployment takes the workload as the user asked for it and what every
// member shows of it:
//
//   - A member that is not ready keeps its replicas (they are held) until it
//     has been not ready for longer than the failover grace period; then its
//     replicas are placed among the ready members. When it returns, what it
//     still runs counts as current again and the excess is given up.
//   - A member whose replicas stayed Unschedulable beyond the pending grace
//     period (once it has acted on the last write) is full for the workload:
//     it keeps the replicas it runs, and the overflow is placed elsewhere.
//   - The placement framework places the rest, with what each member runs
//     as current, so a settled workload does not move and a scale-down keeps
//     the replicas the policy prefers.
//   - With an active re-scheduler, replicas away from the preferred clusters
//     come back where there is room, at most once per interval; not under a
//     policy that places every replica afresh on each pass (traffic-aware),
//     which already puts them where it prefers and would undo the move.
//   - The rollout adds replicas before it removes any: members that grow are
//     written first, and members that shrink only once doing so keeps as
//     many replicas ready as the workload has now.
//
// # A CloudVM's pass
//
// VM takes a CloudVM's decision (spec.schedule), what its status recorded
// (the start, the objects the start applied, the completion), the provider
// objects that carry its label and the time, and says what to apply, what
// to delete, the phase and when to look again. The start and the end are
// requeued for exactly, never polled for; a start more than the start
// slack late, or one that would end after the deadline, fails the VM
// instead of starting it late. Because every time follows from the
// decision and status.startedTime (or, when the start was not recorded,
// the oldest object), a restarted controller neither applies a running
// VM's objects again nor loses its end.
package decide
