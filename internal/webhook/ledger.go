package webhook

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	computev1alpha1 "github.com/meridian-dev/meridian/api/compute/v1alpha1"
	"github.com/meridian-dev/meridian/internal/carbon"
)

// A Reserver is a Scheduler that holds the runs it plans in a ledger, as
// *carbon.Planner does. The Planner previews with it on dry runs and
// replays, and gives a reservation back when it refuses a request after the
// scheduler planned it.
type Reserver interface {
	carbon.Scheduler
	// Previewer plans with the same data and ledger but reserves nothing.
	Previewer() carbon.Scheduler
	Ledger
}

// A Ledger holds the reservations of planned runs by name; *carbon.Planner
// is one.
type Ledger interface {
	Reserve(carbon.Reservation)
	Release(name string) bool
	Reservations() []carbon.Reservation
}

var _ Reserver = &carbon.Planner{}

// previewing returns the planner with a scheduler that reserves nothing.
func (p Planner) previewing() Planner {
	if r, ok := p.Scheduler.(Reserver); ok {
		p.Scheduler = r.Previewer()
	}
	return p
}

// unreserve gives back what the scheduler reserved for vm in a request that
// is refused after all: the run's reservation goes, and on UPDATE the stored
// decision's comes back.
func (p Planner) unreserve(vm, old *computev1alpha1.CloudVM, now time.Time) {
	r, ok := p.Scheduler.(Reserver)
	if !ok {
		return
	}
	r.Release(key(vm))
	if old != nil {
		if res, ok := ReservationOf(old, now); ok {
			r.Reserve(res)
		}
	}
}

// ReservationOf returns the reservation a stored CloudVM holds: the CPU of
// its decision in its region and grid zone from its start to its end. A VM
// holds none without a decision, once it is being deleted, Failed or
// Completed, or when its run ended by now.
func ReservationOf(vm *computev1alpha1.CloudVM, now time.Time) (carbon.Reservation, bool) {
	s := vm.Spec.Schedule
	switch {
	case s == nil, vm.DeletionTimestamp != nil,
		vm.Status.Phase == computev1alpha1.PhaseFailed, vm.Status.Phase == computev1alpha1.PhaseCompleted,
		!s.Decision.End.After(now):
		return carbon.Reservation{}, false
	}
	d := s.Decision
	return carbon.Reservation{
		Name:     key(vm),
		Region:   carbon.RegionKey(carbon.Candidate{Provider: string(d.Provider), Region: d.Region}),
		Zone:     d.Zone,
		Start:    d.Start.UTC(),
		End:      d.End.UTC(),
		MilliCPU: vm.Spec.CPU.MilliValue(),
	}, true
}

// Defaults of a LedgerSync.
const (
	// DefaultLedgerResync is the time between two sweeps of a LedgerSync.
	DefaultLedgerResync = time.Minute
	// DefaultLedgerWait bounds how long an admission waits for the ledger
	// to be rebuilt at start before it is refused: well inside the
	// webhook's 5 s timeout.
	DefaultLedgerWait = 3 * time.Second
)

// ErrLedgerNotSynced is why an admission is refused while the scheduler's
// ledger is still being rebuilt from the stored CloudVMs.
var ErrLedgerNotSynced = errors.New("the carbon scheduler's ledger is not yet rebuilt from the stored CloudVMs (the controller is starting); retry in a few seconds")

// LedgerSync keeps the carbon scheduler's ledger equal to the decisions of
// the stored CloudVMs, on every replica: it rebuilds the ledger when the
// controller starts (so capacity is not over-committed after a restart),
// takes in decisions another replica admitted, and releases a VM's
// reservation once it is deleted, Failed or Completed. The admission path
// waits for the first rebuild (Wait), so no VM is planned on a ledger that
// misses the VMs admitted before the restart.
//
// A periodic sweep also releases reservations no stored CloudVM holds:
// runs the webhook admitted that the API server refused afterwards (a name
// that exists already, a validation rule), after they stay unclaimed for a
// whole sweep period, and puts stored decisions back.
type LedgerSync struct {
	// Cache is the manager's cache: its CloudVM informer is followed and
	// listed.
	Cache cache.Cache
	// Ledger receives the reservations; usually the webhook's *carbon.Planner.
	Ledger Ledger
	// Resync is the time between two sweeps; DefaultLedgerResync when zero.
	Resync time.Duration
	// WaitTimeout bounds how long Wait blocks; DefaultLedgerWait when
	// zero.
	WaitTimeout time.Duration
	// Now tells which runs have ended; time.Now when nil.
	Now func() time.Time

	once   sync.Once
	synced chan struct{}
	// unclaimed are the reservations no stored CloudVM held at the last
	// sweep.
	unclaimed map[string]bool
}

var (
	_ manager.Runnable               = &LedgerSync{}
	_ manager.LeaderElectionRunnable = &LedgerSync{}
)

func (s *LedgerSync) init() {
	s.once.Do(func() { s.synced = make(chan struct{}) })
}

// NeedLeaderElection returns false: every replica serves the webhook with
// its own ledger.
func (s *LedgerSync) NeedLeaderElection() bool { return false }

// Start follows the CloudVMs until ctx ends.
func (s *LedgerSync) Start(ctx context.Context) error {
	s.init()
	if s.Cache == nil || s.Ledger == nil {
		return fmt.Errorf("failed to start the carbon ledger sync: it needs a Cache and a Ledger (cache set: %t, ledger set: %t)", s.Cache != nil, s.Ledger != nil)
	}
	logger := log.FromContext(ctx).WithName("carbon-ledger")
	inf, err := s.Cache.GetInformer(ctx, &computev1alpha1.CloudVM{})
	if err != nil {
		return fmt.Errorf("failed to get the CloudVM informer for the carbon ledger: %w", err)
	}
	reg, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    s.observe,
		UpdateFunc: func(_, obj any) { s.observe(obj) },
		DeleteFunc: s.forget,
	})
	if err != nil {
		return fmt.Errorf("failed to follow CloudVMs for the carbon ledger: %w", err)
	}
	defer func() { _ = inf.RemoveEventHandler(reg) }()
	if !toolscache.WaitForCacheSync(ctx.Done(), reg.HasSynced) {
		return nil
	}
	close(s.synced)
	logger.Info("Carbon scheduler's ledger rebuilt from the stored CloudVMs", "reservations", len(s.Ledger.Reservations()))

	resync := s.Resync
	if resync <= 0 {
		resync = DefaultLedgerResync
	}
	t := time.NewTicker(resync)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			if err := s.Sweep(ctx); err != nil {
				logger.Error(err, "Carbon ledger sweep failed; next one in a period", "period", resync)
			}
		}
	}
}

// Sweep puts every stored CloudVM's reservation back and releases the
// reservations no stored CloudVM claimed at this sweep and the one before.
func (s *LedgerSync) Sweep(ctx context.Context) error {
	list := &computev1alpha1.CloudVMList{}
	if err := s.Cache.List(ctx, list); err != nil {
		return fmt.Errorf("failed to list CloudVMs: %w", err)
	}
	stored := make(map[string]bool, len(list.Items))
	for i := range list.Items {
		vm := &list.Items[i]
		stored[key(vm)] = true
		s.observe(vm)
	}
	unclaimed := map[string]bool{}
	var released int
	for _, r := range s.Ledger.Reservations() {
		if stored[r.Name] {
			continue
		}
		if s.unclaimed[r.Name] {
			s.Ledger.Release(r.Name)
			released++
			continue
		}
		unclaimed[r.Name] = true
	}
	s.unclaimed = unclaimed
	if released > 0 {
		log.FromContext(ctx).Info("Released reservations of CloudVMs that were never stored", "released", released)
	}
	return nil
}

// Wait blocks until the ledger holds the stored CloudVMs, ctx ends or
// WaitTimeout passes; it returns ErrLedgerNotSynced in the two last cases.
func (s *LedgerSync) Wait(ctx context.Context) error {
	s.init()
	select {
	case <-s.synced:
		return nil
	default:
	}
	timeout := s.WaitTimeout
	if timeout <= 0 {
		timeout = DefaultLedgerWait
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-s.synced:
		return nil
	case <-ctx.Done():
		return ErrLedgerNotSynced
	case <-t.C:
		return ErrLedgerNotSynced
	}
}

// Checker is a readiness check: ready once the ledger is rebuilt.
func (s *LedgerSync) Checker(*http.Request) error {
	s.init()
	select {
	case <-s.synced:
		return nil
	default:
		return ErrLedgerNotSynced
	}
}

func (s *LedgerSync) observe(obj any) {
	vm, ok := obj.(*computev1alpha1.CloudVM)
	if !ok {
		return
	}
	if r, ok := ReservationOf(vm, s.now()); ok {
		s.Ledger.Reserve(r)
		return
	}
	s.Ledger.Release(key(vm))
}

func (s *LedgerSync) forget(obj any) {
	if d, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	if vm, ok := obj.(*computev1alpha1.CloudVM); ok {
		s.Ledger.Release(key(vm))
	}
}

func (s *LedgerSync) now() time.Time {
	if s.Now == nil {
		return time.Now()
	}
	return s.Now()
}
