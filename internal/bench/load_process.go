package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/meridian-dev/meridian/internal/procfs"
	"github.com/meridian-dev/meridian/internal/testbed"
)

// controllerProcess is one `meridian controller` process against a
// testbed, run apart from the benchmark so that its memory is its own.
type controllerProcess struct {
	cmd     *exec.Cmd
	done    chan struct{}
	metrics string // URL of its metrics endpoint
	// pprof is the address of its /debug/pprof profiles.
	pprof string
}

// startController runs bin as `meridian controller` on tb's management
// cluster, its output appended to logPath, its metrics on a free loopback
// port.
func startController(bin string, tb *testbed.Testbed, logPath string) (*controllerProcess, error) {
	addr, err := freeLoopbackAddr()
	if err != nil {
		return nil, err
	}
	pprof, err := freeLoopbackAddr()
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("failed to open the controller's log: %w", err)
	}
	defer f.Close()
	cmd := exec.Command(bin, "controller",
		"--kubeconfig", tb.Kubeconfig,
		"--leader-elect=false",
		"--namespace", testbed.Namespace,
		"--metrics-bind-address", addr,
		"--health-probe-bind-address", "0",
		"--pprof-bind-address", pprof,
	)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("failed to start %s controller: %w", bin, err)
	}
	p := &controllerProcess{cmd: cmd, done: make(chan struct{}), metrics: "http://" + addr + "/metrics", pprof: pprof}
	go func() { _ = cmd.Wait(); close(p.done) }()
	return p, nil
}

// stop ends the process with SIGTERM (a clean stop), and SIGKILL after
// 30 seconds.
func (p *controllerProcess) stop() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// exited returns an error when the process is no longer running.
func (p *controllerProcess) exited() error {
	select {
	case <-p.done:
		return fmt.Errorf("the controller exited: %v", p.cmd.ProcessState)
	default:
		return nil
	}
}

// memory reads the process's resident set now (VmRSS) and at its peak
// (VmHWM), in bytes.
func (p *controllerProcess) memory() (rss, peak int64, err error) {
	return procMemory(p.cmd.Process.Pid)
}

func procMemory(pid int) (rss, peak int64, err error) {
	m, err := procfs.Memory(procfs.StatusPath(pid), "VmRSS", "VmHWM")
	if err != nil {
		return 0, 0, fmt.Errorf("failed to read the controller's memory: %w", err)
	}
	if m["VmRSS"] == 0 || m["VmHWM"] == 0 {
		return 0, 0, fmt.Errorf("no VmRSS or VmHWM in %s", procfs.StatusPath(pid))
	}
	return m["VmRSS"], m["VmHWM"], nil
}

// queue is what the controller's metrics say of the
// MultiClusterDeployment controller's work queue.
type queue struct {
	// Depth is the items waiting; Unfinished the seconds of work in
	// progress (0 when no reconcile runs).
	Depth, Unfinished float64
	// Reconciles counts finished reconciles, of any result.
	Reconciles float64
	// Errors counts reconciles that returned an error.
	Errors float64
}

func (q queue) drained() bool { return q.Depth == 0 && q.Unfinished == 0 }

// readQueue scrapes the controller's metrics endpoint.
func (p *controllerProcess) readQueue(ctx context.Context) (queue, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.metrics, nil)
	if err != nil {
		return queue{}, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return queue{}, fmt.Errorf("failed to read the controller's metrics: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return queue{}, fmt.Errorf("failed to read the controller's metrics: %s", resp.Status)
	}
	return parseQueue(resp.Body, mcdController)
}

// mcdController is the name of the MultiClusterDeployment controller, as
// its metrics label it.
const mcdController = "multiclusterdeployment"

// parseQueue sums, from Prometheus text exposition, the work-queue and
// reconcile series of controller.
func parseQueue(r io.Reader, controller string) (queue, error) {
	var q queue
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		name, rest, ok := strings.Cut(line, "{")
		if !ok {
			continue
		}
		labels, value, ok := strings.Cut(rest, "} ")
		if !ok {
			continue
		}
		var dst *float64
		switch {
		case name == "workqueue_depth" && strings.Contains(labels, `name="`+controller+`"`):
			dst = &q.Depth
		case name == "workqueue_unfinished_work_seconds" && strings.Contains(labels, `name="`+controller+`"`):
			dst = &q.Unfinished
		case name == "controller_runtime_reconcile_total" && strings.Contains(labels, `controller="`+controller+`"`):
			dst = &q.Reconciles
			if strings.Contains(labels, `result="error"`) {
				v, err := strconv.ParseFloat(strings.Fields(value)[0], 64)
				if err != nil {
					return q, fmt.Errorf("invalid metric line %q: %w", line, err)
				}
				q.Errors += v
			}
		default:
			continue
		}
		v, err := strconv.ParseFloat(strings.Fields(value)[0], 64)
		if err != nil {
			return q, fmt.Errorf("invalid metric line %q: %w", line, err)
		}
		*dst += v
	}
	return q, sc.Err()
}

func freeLoopbackAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("failed to find a free port for the controller's metrics: %w", err)
	}
	defer l.Close()
	return l.Addr().String(), nil
}
