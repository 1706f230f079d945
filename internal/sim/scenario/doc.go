// Package scenario reads, checks and lists simulation scenarios: YAML files
// that name the member clusters and their nodes, the latency between them,
// the cloud the provisioner may use, the workload (a generator, a task trace
// in CSV, services with load curves), and the policies to compare.
//
// Scenarios are decoded strictly: an unknown field, a value of the wrong
// type, or a value out of range is refused with the file, line, column and
// field path at fault, for example
//
//	vi-b.yaml:12:9: clusters[1].nodes[0].cpu: "two": not a quantity (want e.g. 2, 500m)
//
// sigs.k8s.io/yaml loses positions when it converts YAML to JSON, so this
// package walks go.yaml.in/yaml/v3 nodes itself, matching the structs' json
// tags, and keeps each node's position for the checks that run after
// decoding.
//
// The built-in scenarios (seed 001's experiments VI-B, VI-C and VI-D) are
// embedded in the binary; Builtins lists them.
package scenario
