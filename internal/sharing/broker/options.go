package broker

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
)

// Options configure a broker.
type Options struct {
	// BrokerID is the broker's cluster ID, as its members' Peers name it;
	// advertisements published to the broker are for this consumer.
	BrokerID sharingv1alpha1.ClusterID
	// ClockSkew tolerated between a member's clock and the broker's.
	ClockSkew time.Duration
	// ConfirmTimeout is how long after an auction's deadline the broker
	// waits for the winner to confirm before it reports no winner.
	ConfirmTimeout time.Duration
}

// AddFlags binds o to fs.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar((*string)(&o.BrokerID), "broker-id", "", "the broker's cluster ID, as its members' Peers name it (a DNS label)")
	fs.DurationVar(&o.ClockSkew, "clock-skew", 30*time.Second, "clock difference tolerated between a member and the broker")
	fs.DurationVar(&o.ConfirmTimeout, "confirm-timeout", 10*time.Second, "how long after an auction's deadline the winner may take to confirm")
}

// Default fills the zero fields with the flags' defaults.
func (o *Options) Default() {
	if o.ClockSkew == 0 {
		o.ClockSkew = 30 * time.Second
	}
	if o.ConfirmTimeout == 0 {
		o.ConfirmTimeout = 10 * time.Second
	}
}

// Validate names the first field that is not valid and what would be.
func (o Options) Validate() error {
	if err := ValidClusterID("broker-id", o.BrokerID); err != nil {
		return err
	}
	switch {
	case o.ClockSkew < 0:
		return fmt.Errorf("clock-skew %s: must not be negative", o.ClockSkew)
	case o.ConfirmTimeout <= 0:
		return fmt.Errorf("confirm-timeout %s: must be positive", o.ConfirmTimeout)
	}
	return nil
}
