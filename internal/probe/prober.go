package probe

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/meridian-dev/meridian/internal/manifest"
)

// Prober measures its member's round trips to the others and reports them
// in its member.
type Prober struct {
	// Client reaches the prober's own member.
	Client client.Client
	// Namespace holds the two ConfigMaps.
	Namespace string
	// Address is where the other members' probers reach this one.
	Address string
	// Source is the local address probes leave from; any when empty.
	Source string
	// Interval between two rounds; Samples round trips per target, within
	// Timeout.
	Interval time.Duration
	Samples  int
	Timeout  time.Duration
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

func (p *Prober) now() time.Time {
	if p.Now != nil {
		return p.Now()
	}
	return time.Now()
}

// Run measures every Interval until ctx ends.
func (p *Prober) Run(ctx context.Context) error {
	t := time.NewTicker(p.Interval)
	defer t.Stop()
	for {
		if err := p.Round(ctx); err != nil {
			log.FromContext(ctx).Error(err, "Probe round failed")
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// Round reads the targets, measures each, and writes the report: the
// round trips measured now, and for a target that did not answer none (so
// that its last measurement ages and placement falls back to the declared
// latency).
func (p *Prober) Round(ctx context.Context) error {
	targets := map[string]string{}
	cm := &corev1.ConfigMap{}
	switch err := p.Client.Get(ctx, client.ObjectKey{Namespace: p.Namespace, Name: TargetsConfigMap}, cm); {
	case apierrors.IsNotFound(err):
	case err != nil:
		return fmt.Errorf("failed to read the probe targets: %w", err)
	default:
		if targets, err = ReadTargets(cm); err != nil {
			return err
		}
	}
	var (
		mu  sync.Mutex
		wg  sync.WaitGroup
		out []Measurement
	)
	for _, name := range slices.Sorted(maps.Keys(targets)) {
		wg.Go(func() {
			rtt, err := Measure(ctx, targets[name], p.Source, p.Samples, p.Timeout)
			if err != nil {
				log.FromContext(ctx).Info("Member did not answer the probe", "cluster", name, "address", targets[name], "error", err.Error())
				return
			}
			mu.Lock()
			out = append(out, Measurement{Cluster: name, RTT: rtt, MeasuredAt: p.now().UTC().Truncate(time.Second)})
			mu.Unlock()
		})
	}
	wg.Wait()
	report, err := reportConfigMap(p.Namespace, Report{Address: p.Address, Latencies: out})
	if err != nil {
		return err
	}
	u, err := manifest.ForApply(report)
	if err != nil {
		return err
	}
	if err := p.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(FieldManager), client.ForceOwnership); err != nil {
		return fmt.Errorf("failed to write the probe report: %w", err)
	}
	return nil
}
