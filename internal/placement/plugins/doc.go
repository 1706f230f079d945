// Package plugins assembles Meridian's placement plugins: the registry of
// every plugin by name, and one profile per placement policy of seed 001.
//
// Each plugin lives in its own package under this one, with its name as
// const Name and its factory as New. This package is the one place that
// lists them all; registering a name twice fails to compile (the registry is
// a map literal keyed by the constants) and, at run time, Register refuses
// it.
//
// Every profile runs the same filters, cheapest first, and two score
// plugins: the policy's own, weighted by PrimaryWeight, and nearestfirst,
// weighted by TieBreakWeight. Because a score is at most MaxScore, a
// difference of one point in the policy's score outweighs any difference in
// latency, so the policy decides the order and latency only breaks its ties
// (for cluster affinity: the clusters that are not preferred, which is
// seed 001's nearest-first substitution).
package plugins
