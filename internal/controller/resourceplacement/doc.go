// Package resourceplacement is the placement pass of the resource templates
// propagation policies select: for each ResourcePlacement it reads the
// template and the winning policy's placement block, decides with the same
// pure functions as every other workload (decide.Copy for a kind copied
// whole), writes the member objects with server-side apply, removes them
// from members that must not hold them, and records the decision per
// cluster in the ResourcePlacement's status.
//
// A member that is not ready keeps what it holds until it returns. A
// finalizer on the ResourcePlacement removes the member objects when it
// goes (its template deleted, or no policy selecting it any more).
package resourceplacement
