// Package ready is the filter plugin that rules out member clusters that do
// not answer: a NotReady cluster can take no replicas until it is back.
package ready
