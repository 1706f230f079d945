package testbed

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"strings"
	"time"

	"k8s.io/utils/clock"
)

// restartable are the components a supervisor starts again when they exit
// while their cluster starts: the API server's clients, which keep no
// state of their own, as the kubelet restarts a static pod. etcd and
// kube-apiserver are not among them: when one exits, the cluster fails.
//
// They are the components that can lose the race kwokctl starts them in:
// it forks every component of a cluster at once and waits for none, and on
// a busy machine the API server may not answer for many seconds.
// metrics-server reads the extension-apiserver-authentication ConfigMap
// once when it starts and panics when that read fails ("unable to load
// configmap based request-header-client-ca-file ... net/http: TLS
// handshake timeout"); kube-controller-manager exits when the API server
// is not healthy within ten seconds of taking its lease.
var restartable = map[string]bool{
	"kube-controller-manager": true,
	"kube-scheduler":          true,
	"kwok-controller":         true,
	MetricsServer:             true,
}

// restartPolicy bounds how often a supervisor starts an exited component
// again.
type restartPolicy struct {
	// Limit is how many times one component is started again; exiting
	// once more fails the cluster.
	Limit int
	// Backoff is how long after its first restart a component may be
	// restarted again; it doubles with every restart.
	Backoff time.Duration
}

// defaultRestartPolicy gives a component five more starts, the last one
// 15s after the first restart: a component that loses a race wins the
// next one, one that fails every time fails the cluster well within
// DefaultTimeout.
var defaultRestartPolicy = restartPolicy{Limit: 5, Backoff: time.Second}

// backoff is how long after its restarts-th restart a component may be
// restarted again.
func (p restartPolicy) backoff(restarts int) time.Duration {
	if restarts == 0 {
		return 0
	}
	return p.Backoff << (restarts - 1)
}

// supervisor watches the components of one cluster while it starts.
// The steps of a start call check as they poll: it fails the cluster when
// etcd or kube-apiserver exited, and starts a restartable component that
// exited again, but only once the API server is ready (so the new start
// does not run the race the first one lost) and its backoff has passed.
// It is not safe for concurrent use: one cluster's steps run one after
// the other.
type supervisor struct {
	l       layout
	cluster string
	policy  restartPolicy
	clock   clock.PassiveClock
	// start starts the cluster's components whose process is gone and
	// leaves the others alone (kwokctl start cluster).
	start func(ctx context.Context) error
	// report is told of every restart: the component, when the restart
	// began, and what happened for a person to read.
	report func(component string, began time.Time, detail string)

	// serving is set once the API server is ready.
	serving  bool
	restarts map[string]*restarts
}

// restarts is what a supervisor did to one component.
type restarts struct {
	count int
	last  time.Time
}

// apiReady tells the supervisor that the cluster's API server is ready:
// from now on an exited component is started again.
func (sv *supervisor) apiReady() { sv.serving = true }

// check fails with a ComponentError when etcd or kube-apiserver exited,
// or a component exited after its last allowed restart; it starts again
// the restartable components that exited and are due.
func (sv *supervisor) check(ctx context.Context) error {
	var due []string
	for _, c := range RoleMember.Components() {
		pid := sv.l.readPID(sv.cluster, c)
		if pid == 0 || alive(pid) {
			continue
		}
		if !restartable[c] {
			return &ComponentError{Cluster: sv.cluster, Component: c, Log: sv.l.componentLog(sv.cluster, c)}
		}
		r := sv.record(c)
		if r.count >= sv.policy.Limit {
			return &ComponentError{Cluster: sv.cluster, Component: c, Log: sv.l.componentLog(sv.cluster, c), Restarts: r.count}
		}
		if sv.serving && !sv.clock.Now().Before(r.last.Add(sv.policy.backoff(r.count))) {
			due = append(due, c)
		}
	}
	if len(due) == 0 {
		return nil
	}
	return sv.restart(ctx, due)
}

// settled reports whether every component of the cluster runs and none
// was started again within the last settle: a start that ends while a
// component it restarted has not yet had time to exit again would report
// a cluster ready that is not.
func (sv *supervisor) settled(settle time.Duration) bool {
	for _, c := range RoleMember.Components() {
		pid := sv.l.readPID(sv.cluster, c)
		if pid != 0 && !alive(pid) {
			return false
		}
	}
	now := sv.clock.Now()
	for _, r := range sv.restarts {
		if now.Before(r.last.Add(settle)) {
			return false
		}
	}
	return true
}

func (sv *supervisor) record(component string) *restarts {
	if sv.restarts == nil {
		sv.restarts = map[string]*restarts{}
	}
	r := sv.restarts[component]
	if r == nil {
		r = &restarts{}
		sv.restarts[component] = r
	}
	return r
}

// restart starts the exited components again. kwokctl truncates a
// component's log when it starts it, so each one's log is first kept as
// <component>.log.<restart>, where the reason it exited stays readable.
// Its pid file goes too: kwokctl takes a pid that answers signal 0 for a
// running component, and an exited one answers until it is reaped.
func (sv *supervisor) restart(ctx context.Context, components []string) error {
	details := make([]string, len(components))
	for i, c := range components {
		n := sv.record(c).count + 1
		log := sv.l.componentLog(sv.cluster, c)
		kept := fmt.Sprintf("%s.%d", log, n)
		details[i] = fmt.Sprintf("%s exited (%s); started it again, restart %d of at most %d; the log of the run that exited is %s",
			c, exitReason(log), n, sv.policy.Limit, kept)
		if err := os.Rename(log, kept); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("cluster %q: failed to keep the log of %s before starting it again: %w", sv.cluster, c, err)
		}
		if err := os.Remove(sv.l.pidFile(sv.cluster, c)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("cluster %q: failed to remove the pid file of %s before starting it again: %w", sv.cluster, c, err)
		}
	}
	began := sv.clock.Now()
	if err := sv.start(ctx); err != nil {
		return err
	}
	for i, c := range components {
		r := sv.record(c)
		r.count++
		r.last = sv.clock.Now()
		sv.report(c, began, details[i])
	}
	return nil
}

// maxReasonLength bounds the reason a restart reports.
const maxReasonLength = 300

// klogProblem matches a klog line of severity error or fatal.
var klogProblem = regexp.MustCompile(`^[EF]\d{4} `)

// exitReason says from the end of a component's log why it exited: the
// panic, else the last error klog wrote, else the last line.
func exitReason(log string) string {
	lines, err := tailFile(log, 100)
	if err != nil {
		return fmt.Sprintf("cannot read its log: %v", err)
	}
	reason := ""
	for i := len(lines) - 1; i >= 0; i-- {
		line := strings.TrimSpace(lines[i])
		if strings.HasPrefix(line, "panic: ") {
			reason = line
			break
		}
		if reason == "" && klogProblem.MatchString(line) {
			reason = line
		}
	}
	if reason == "" {
		for i := len(lines) - 1; i >= 0 && reason == ""; i-- {
			reason = strings.TrimSpace(lines[i])
		}
	}
	if reason == "" {
		return "its log is empty"
	}
	if len(reason) > maxReasonLength {
		reason = reason[:maxReasonLength] + "..."
	}
	return reason
}
