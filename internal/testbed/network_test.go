package testbed

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/meridian-dev/meridian/internal/probe"
)

// TestNetworkDelaysByTheSource measures, with the prober's own
// measurement, the round trips through a route from two source addresses
// the route delays differently.
func TestNetworkDelaysByTheSource(t *testing.T) {
	echo, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() { _ = probe.Serve(ctx, echo) }()
	front, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := front.Addr().String()
	front.Close()
	route := Route{Listen: addr, Target: echo.Addr().String(), RTT: map[string]time.Duration{
		"127.0.1.1": 2160 * time.Microsecond, "127.0.2.1": 23260 * time.Microsecond,
	}}
	go func() { _ = ServeNetwork(ctx, []Route{route}) }()
	time.Sleep(100 * time.Millisecond)
	for _, tc := range []struct {
		source string
		want   time.Duration
	}{{"127.0.1.1", 2160 * time.Microsecond}, {"127.0.2.1", 23260 * time.Microsecond}, {"127.0.3.1", 0}} {
		got, err := probe.Measure(ctx, addr, tc.source, 9, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		// At least the delay, and less than twice it plus a millisecond:
		// each source gets its own delay. How close it comes depends on the
		// machine's load (docs/latencies.md measures it), not asserted.
		if got < tc.want || got > 2*tc.want+time.Millisecond {
			t.Errorf("round trip from %s = %v, want the %v delay of that source", tc.source, got, tc.want)
		}
		t.Logf("from %s: %v (declared %v)", tc.source, got, tc.want)
	}
}
