package bench

import (
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// ErrOvercommitted says that the burst asked a member for more than it
// holds.
var ErrOvercommitted = errors.New("a member is over-committed")

// Overcommitted returns the members the burst asked for more than they
// hold.
func (r *LoadResult) Overcommitted() []string {
	var out []string
	for _, u := range r.Burst.Usage {
		if u.overcommitted() {
			out = append(out, u.Member)
		}
	}
	return out
}

// LoadTable writes the load benchmark's table: the phases, then each
// member's share of its resources that the burst asked for. It returns
// ErrOvercommitted, after the table, when a member is over-committed.
func LoadTable(w io.Writer, r *LoadResult) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "phase\tMultiClusterDeployments\tmeasured\tgoal\tcontroller RSS (peak)\n")
	b := r.Burst
	running := "not all Running within the timeout: " + phases(b.Phases)
	if b.Running > 0 {
		running = fmt.Sprintf("all %d pods Running %s", b.Pods, seconds(b.Running))
	}
	fmt.Fprintf(tw, "burst (%d replicas of %s CPU)\t%d\tall placed, member Deployments written: %s (created in %s; %s)\t-\t%s\n",
		b.Pods, r.CPUPerPod.String(), b.MCDs, seconds(b.Placed), seconds(b.Created), running, b.Memory)
	if r.Cold.MCDs > 0 {
		fmt.Fprintf(tw, "cold start (%d new)\t%d\tqueue drained %s, every status current %s (%.0f reconciles, %.0f errors)\t<= 2m (Karmada: about 5m)\t%s\n",
			r.Cold.MCDs-b.MCDs, r.Cold.MCDs, seconds(r.Cold.Drained), seconds(r.Cold.Current), r.Cold.Reconciles, r.Cold.Errors, r.Cold.Memory)
		fmt.Fprintf(tw, "restart (all placed)\t%d\tqueue drained %s, every status current %s (%.0f reconciles, %.0f errors)\t<= 2m\t%s\n",
			r.Restart.MCDs, seconds(r.Restart.Drained), seconds(r.Restart.Current), r.Restart.Reconciles, r.Restart.Errors, r.Restart.Memory)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "member\tCPU asked/allocatable\tmemory\tpods\tmax utilization\tover-committed\n")
	for _, u := range b.Usage {
		f, which := u.utilization()
		over := "no"
		if u.overcommitted() {
			over = "YES"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.1f%% (%s)\t%s\n", u.Member,
			share(u, corev1.ResourceCPU), share(u, corev1.ResourceMemory), share(u, corev1.ResourcePods), 100*f, which, over)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if over := r.Overcommitted(); len(over) > 0 {
		return fmt.Errorf("%w: %v", ErrOvercommitted, over)
	}
	return nil
}

func share(u usage, name corev1.ResourceName) string {
	r, a := u.Requested[name], u.Allocatable[name]
	return fmt.Sprintf("%s/%s", r.String(), a.String())
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.1fs", d.Seconds()) }

func (m memory) String() string {
	return fmt.Sprintf("%d MiB (%d MiB)", m.RSS>>20, m.Peak>>20)
}
