package testbed

import (
	"sync"
	"time"
)

// Steps of a testbed's start, as Progress reports them.
const (
	// StepStart: kwokctl started etcd, kube-apiserver,
	// kube-controller-manager, kube-scheduler and kwok.
	StepStart = "start"
	// StepReady: the API server is ready and the controller manager works
	// (it created the default ServiceAccount).
	StepReady = "ready"
	// StepNodes: a member's fake nodes exist and are schedulable.
	StepNodes = "nodes"
	// StepMetrics: a member's metrics-server serves metrics.k8s.io.
	StepMetrics = "metrics"
	// StepCRDs: Meridian's CRDs are established in the management cluster.
	StepCRDs = "crds"
	// StepRegister: the members are Clusters of the management cluster.
	StepRegister = "register"
	// StepRestart: a component that exited while its cluster started
	// (one that lost the race with its API server on a busy machine) was
	// started again; the detail says which and why it exited. It may come
	// between any two steps of a cluster, and more than once.
	StepRestart = "restart"
)

// Progress is one finished step of one cluster.
type Progress struct {
	Cluster string
	Step    string
	// Took is how long the step took.
	Took time.Duration
	// Detail says what the step did, for a person to read.
	Detail string
}

// progressFunc calls the caller's callback from one goroutine at a time,
// so it need not be safe for concurrent use.
type progressFunc struct {
	mu sync.Mutex
	f  func(Progress)
}

func (p *progressFunc) report(cluster, step string, since time.Time, detail string) {
	if p.f == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.f(Progress{Cluster: cluster, Step: step, Took: time.Since(since), Detail: detail})
}
