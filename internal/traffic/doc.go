// Package traffic tells how much traffic each member cluster receives for a
// workload, for traffic-aware placement (seed 001, mck8s), which places
// replicas where a workload's users are. The placement snapshot takes the
// answers as Snapshot.Traffic, keyed by Workload.Key ("namespace/name") and
// then by cluster name.
//
// A Source answers for one workload at a time. Two implement it:
//
//   - Prometheus runs an instant PromQL query against a Prometheus server's
//     HTTP API (GET /api/v1/query) and reads one number per cluster from
//     the result.
//   - Static holds the answers in memory, for the simulator and for tests
//     of the controllers that read traffic.
//
// Prometheus's query is a text/template filled with the workload's
// {{.Namespace}} and {{.Name}}. It must yield an instant vector, whose
// samples are summed per value of the cluster label, so
//
//	sum by (cluster) (rate(http_requests_total{namespace="{{.Namespace}}",app="{{.Name}}"}[1m]))
//
// gives requests per second per cluster. A workload may bring its own query
// and cluster label; empty ones fall back to the source's.
//
// A cluster missing from an answer receives no traffic. Anything the source
// cannot turn into a finite, non-negative number per cluster is an error
// rather than a guess: a result that is not an instant vector, a series
// without the cluster label, NaN, ±Inf or a negative value. Errors say which
// server, query and workload they concern; the sentinel errors and
// *APIError tell them apart.
package traffic
