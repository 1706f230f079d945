// Package propagationpolicy is the controller that turns PropagationPolicies
// and ClusterPropagationPolicies into ResourcePlacements: it lists the
// objects every policy's selectors select (watching each selected kind as
// policies name it), asks package selection which policy wins each object,
// keeps one ResourcePlacement per placed object beside it (owned by it, so
// that deleting the object deletes its placement), and writes each policy's
// status: what it selects, who claims what it lost, and a Ready condition
// naming the selector at fault when one cannot be served.
//
// A policy with a selector at fault is held: the ResourcePlacements it
// already had stay as they were, so that a bad edit never removes what
// runs. The ResourcePlacements are placed by the placement pass
// (docs/design/20261128-any-workload.md).
//
// The controller reconciles the whole management cluster under one key:
// winning an object depends on every policy that selects it, in its
// namespace and cluster-wide, and the work queue folds a burst of changes
// into one pass.
package propagationpolicy
