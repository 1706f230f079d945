package traffic

import (
	"context"
	"errors"

	"github.com/meridian-dev/meridian/internal/workload"
)

// Errors that Traffic and New wrap, so callers can tell with errors.Is what
// went wrong; Prometheus's own answers come back as *APIError.
var (
	// ErrInvalidConfig means a Config, or a workload's Query or
	// ClusterLabel, cannot be used; the message names the field.
	ErrInvalidConfig = errors.New("invalid traffic source configuration")
	// ErrUnexpectedResultType means the query yielded something other than
	// an instant vector (a scalar, a string or a range vector).
	ErrUnexpectedResultType = errors.New("unexpected query result type")
	// ErrMissingClusterLabel means a series of the result has no cluster
	// label, so its traffic cannot be given to any cluster.
	ErrMissingClusterLabel = errors.New("series without the cluster label")
	// ErrInvalidValue means a sample is NaN, infinite or negative.
	ErrInvalidValue = errors.New("invalid traffic value")
)

// Source tells how much traffic each member cluster receives for a
// workload.
type Source interface {
	// Traffic returns, per cluster name, the traffic w receives (requests
	// per second, or whatever unit the source measures in). A cluster that
	// is missing receives none; a workload without any traffic gets an
	// empty map and no error. Implementations are safe for concurrent use.
	Traffic(ctx context.Context, w Workload) (map[string]float64, error)
}

// Workload names the workload whose traffic is asked for and, optionally,
// how to measure it.
type Workload struct {
	Namespace string
	Name      string
	// Query, when set, replaces the source's query template for this
	// workload; it is a template with the same fields.
	Query string
	// ClusterLabel, when set, replaces the source's cluster label for this
	// workload.
	ClusterLabel string
}

// Key returns the placement key of w's MultiClusterDeployment
// (workload.Key), under which the placement snapshot's Traffic map holds
// its traffic.
func (w Workload) Key() string { return workload.Key("MultiClusterDeployment", w.Namespace, w.Name) }
