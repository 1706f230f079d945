// Package clusterselector is the filter plugin that restricts a workload to
// the member clusters whose labels match its cluster selector.
package clusterselector
