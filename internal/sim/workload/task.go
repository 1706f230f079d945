package workload

import (
	"time"

	"github.com/meridian-dev/meridian/internal/placement"
)

// Task is one workload of a trace: a Deployment or a Job with identical
// replicas.
type Task struct {
	Name string
	// Submit is when the task is submitted, from the start of the run.
	Submit time.Duration
	// Duration is how long a Job runs once Running, or how long after its
	// submission a Deployment is deleted.
	Duration time.Duration
	Kind     placement.WorkloadKind
	// MilliCPU and Memory (bytes) are the request of one replica.
	MilliCPU int64
	Memory   int64
	Replicas int32
	// Location is the preferred cluster; empty means none.
	Location string
}
