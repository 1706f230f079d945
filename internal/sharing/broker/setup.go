package broker

import (
	"fmt"

	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/meridian-dev/meridian/internal/sharing/remote"
)

// Setup registers the broker's controllers with mgr, a manager of the
// broker's own API server: registrations, the advertisement table,
// capacity queries, auctions and
// the releases of what they won. clk may be nil for the real clock.
func Setup(mgr ctrl.Manager, opts Options, clk clock.PassiveClock) error {
	opts.Default()
	if err := opts.Validate(); err != nil {
		return fmt.Errorf("invalid broker options: %w", err)
	}
	if clk == nil {
		clk = clock.RealClock{}
	}
	b := &base{Client: mgr.GetClient(), reader: mgr.GetAPIReader(), opts: opts, clock: clk, remotes: remote.New(mgr.GetAPIReader(), mgr.GetScheme())}
	setups := []struct {
		name  string
		setup func(ctrl.Manager) error
	}{
		{"registration", (&registrations{b}).setup},
		{"advertisement table", (&table{b}).setup},
		{"capacity query", (&queries{b}).setup},
		{"auction", (&auctions{b}).setup},
		{"release", (&releases{b}).setup},
	}
	for _, s := range setups {
		if err := s.setup(mgr); err != nil {
			return fmt.Errorf("failed to set up the broker's %s controller: %w", s.name, err)
		}
	}
	return nil
}
