package carbon

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// Defaults of a Refresher.
const (
	// DefaultRefreshInterval is how often a Refresher reads its source;
	// services refresh their forecasts every 5 to 60 minutes, and a Chain
	// caches forecasts for 30.
	DefaultRefreshInterval = 15 * time.Minute
	// DefaultRefreshHorizon is how far ahead a Refresher reads forecasts:
	// the 48 hours of slack the scheduler is built for.
	DefaultRefreshHorizon = 48 * time.Hour
)

// IntensitiesTarget receives the snapshots a Refresher builds; *Planner is
// one.
type IntensitiesTarget interface {
	Intensities() *Intensities
	SetIntensities(*Intensities)
}

// Refresher keeps a Planner's intensities fresh: every Interval it reads
// each zone's current hour and forecast from Source, builds a new snapshot,
// and swaps it in, so that the admission path never waits on a source. It is
// a controller-runtime Runnable that runs on every replica (each replica
// serves the webhook), not only the leader.
//
// A zone whose source fails keeps the hours the previous snapshot held for
// it from the current hour on, and the failure is logged; the next refresh
// tries again.
type Refresher struct {
	// Source answers; usually a Chain ending with the offline data.
	Source Source
	// Zones are the grid zones to read: those of every region the policies
	// may propose.
	Zones []string
	// Target receives each snapshot.
	Target IntensitiesTarget
	// Interval between refreshes; DefaultRefreshInterval when zero.
	Interval time.Duration
	// Horizon of the forecasts; DefaultRefreshHorizon when zero.
	Horizon time.Duration
	// Clock paces the refreshes and dates the kept hours; the real clock
	// when nil.
	Clock clock.WithTicker

	// refreshed is set once a first snapshot was swapped in.
	refreshed atomic.Bool
}

// Ready is a readiness check (healthz.Checker) that passes once the first
// snapshot is in: until then the scheduler knows no intensity, and a
// CloudVM admitted by this replica would be placed without carbon.
func (r *Refresher) Ready(*http.Request) error {
	if !r.refreshed.Load() {
		return errors.New("the carbon intensities are not read yet")
	}
	return nil
}

var (
	_ manager.Runnable               = &Refresher{}
	_ manager.LeaderElectionRunnable = &Refresher{}
)

// NeedLeaderElection returns false: every replica needs its own snapshot.
func (r *Refresher) NeedLeaderElection() bool { return false }

// Start refreshes at once, then every Interval until ctx ends. A failed
// refresh is logged, not returned: the previous snapshot serves until the
// next one.
func (r *Refresher) Start(ctx context.Context) error {
	if r.Source == nil || r.Target == nil {
		return fmt.Errorf("failed to start the carbon intensity refresher: it needs a Source and a Target (source set: %t, target set: %t)", r.Source != nil, r.Target != nil)
	}
	logger := log.FromContext(ctx).WithName("carbon-refresher")
	ctx = log.IntoContext(ctx, logger)
	interval := r.Interval
	if interval <= 0 {
		interval = DefaultRefreshInterval
	}
	logger.Info("Starting carbon intensity refresher", "zones", len(r.Zones), "interval", interval, "horizon", r.horizon(), "source", r.Source.Name())
	t := r.clock().NewTicker(interval)
	defer t.Stop()
	for {
		if err := r.Refresh(ctx); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			logger.Error(err, "Carbon intensity refresh incomplete; failed zones keep their previous hours")
		}
		select {
		case <-ctx.Done():
			logger.Info("Stopping carbon intensity refresher")
			return nil
		case <-t.C():
		}
	}
}

// Refresh reads every zone once, sets the Target's snapshot, and returns
// the failures of the zones it could not read (joined), if any.
func (r *Refresher) Refresh(ctx context.Context) error {
	logger := log.FromContext(ctx)
	began := r.clock().Now()
	now := Hour(began)
	prev := r.Target.Intensities()
	var points []Point
	var errs []error
	var read, kept, failed int
	for i, zone := range r.Zones {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("carbon refresh stopped after %d of %d zones: %w", i, len(r.Zones), err)
		}
		pts, err := r.readZone(ctx, zone)
		if err != nil {
			errs = append(errs, err)
			failed++
			old := Between(prev.Points(zone), now, now.Add(r.horizon()+time.Hour))
			kept += len(old)
			points = append(points, old...)
			logger.V(1).Info("Zone failed; keeping its previous hours", "zone", zone, "kept", len(old), "err", err.Error())
			continue
		}
		read++
		points = append(points, pts...)
		logger.V(1).Info("Read zone", "zone", zone, "hours", len(pts), "source", pts[0].Source, "progress", fmt.Sprintf("%d/%d", i+1, len(r.Zones)))
	}
	r.Target.SetIntensities(NewIntensities(points))
	r.refreshed.Store(true)
	logger.Info("Refreshed carbon intensities", "zones", len(r.Zones), "read", read, "failed", failed, "keptHours", kept, "hours", len(points), "took", r.clock().Since(began).Round(time.Millisecond))
	return errors.Join(errs...)
}

// readZone returns the zone's forecast from the current hour on; the latest
// hour is asked for only when the forecast failed or does not cover the
// current hour, so a refresh costs one request per zone, not two.
func (r *Refresher) readZone(ctx context.Context, zone string) ([]Point, error) {
	forecast, ferr := r.Source.Forecast(ctx, zone, r.horizon())
	if ferr == nil && len(forecast) > 0 && !forecast[0].Time.After(Hour(r.clock().Now())) {
		return forecast, nil
	}
	latest, lerr := r.Source.Latest(ctx, zone)
	if ferr != nil && lerr != nil {
		return nil, fmt.Errorf("failed to read zone %q: forecast: %w; latest: %w", zone, ferr, lerr)
	}
	if lerr != nil {
		return forecast, nil //nolint:nilerr // the forecast answered; the latest hour is an extra
	}
	// The latest hour first, so that a forecast of the same hour replaces it.
	return append([]Point{latest}, forecast...), nil
}

func (r *Refresher) horizon() time.Duration {
	if r.Horizon <= 0 {
		return DefaultRefreshHorizon
	}
	return r.Horizon
}

func (r *Refresher) clock() clock.WithTicker {
	if r.Clock == nil {
		return clock.RealClock{}
	}
	return r.Clock
}
