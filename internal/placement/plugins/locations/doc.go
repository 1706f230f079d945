// Package locations is the filter plugin that keeps a workload with
// preferred locations on those clusters, unless substitution or bursting
// lets it use others when they are full.
package locations
