package testbed

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// The testbed's network makes the latencies a profile declares real: every
// member's prober (meridian probe) is reached through a proxy of its own
// that delays what passes each way by half the round-trip time the profile
// declares between the member and the one the connection comes from, known
// by its source address (each member's prober sends from 127.0.<index>.1).
// So probers measure the profile's matrix, as probers across real links
// measure theirs, and nothing in Meridian knows it is on a testbed.

// NetworkComponent is the process that runs the proxies, in the management
// cluster's folder.
const NetworkComponent = "meridian-network"

// Route is one proxy of the network: it listens on Listen, forwards to
// Target, and delays each direction by half of RTT[source IP].
type Route struct {
	Listen string                   `json:"listen"`
	Target string                   `json:"target"`
	RTT    map[string]time.Duration `json:"rtt"`
}

// ReadRoutes reads the network's routes from a JSON file.
func ReadRoutes(path string) ([]Route, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("failed to read the network's routes: %w", err)
	}
	var routes []Route
	if err := json.Unmarshal(data, &routes); err != nil {
		return nil, fmt.Errorf("failed to read the network's routes %s: %w", path, err)
	}
	return routes, nil
}

// ServeNetwork runs every route until ctx ends.
func ServeNetwork(ctx context.Context, routes []Route) error {
	var lns []net.Listener
	for _, r := range routes {
		ln, err := net.Listen("tcp", r.Listen)
		if err != nil {
			for _, l := range lns {
				l.Close()
			}
			return fmt.Errorf("failed to listen on %s: %w", r.Listen, err)
		}
		lns = append(lns, ln)
	}
	var wg sync.WaitGroup
	for i, r := range routes {
		wg.Go(func() { serveRoute(ctx, lns[i], r) })
	}
	<-ctx.Done()
	for _, l := range lns {
		l.Close()
	}
	wg.Wait()
	return nil
}

func serveRoute(ctx context.Context, ln net.Listener, r Route) {
	for {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		var oneWay time.Duration
		if tcp, ok := conn.RemoteAddr().(*net.TCPAddr); ok {
			oneWay = r.RTT[tcp.IP.String()] / 2
		}
		go forward(ctx, conn, r.Target, oneWay)
	}
}

// forward joins conn to target, each direction delayed by oneWay.
func forward(ctx context.Context, conn net.Conn, target string, oneWay time.Duration) {
	defer conn.Close()
	up, err := (&net.Dialer{Timeout: 5 * time.Second}).DialContext(ctx, "tcp", target)
	if err != nil {
		return
	}
	defer up.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close(); up.Close() })
	defer stop()
	done := make(chan struct{}, 2)
	go func() { delayed(up, conn, oneWay); done <- struct{}{} }()
	go func() { delayed(conn, up, oneWay); done <- struct{}{} }()
	<-done
}

// delayed copies src to dst, writing each chunk read at t at t+delay: the
// deadlines are absolute, so that time spent waiting for one chunk is not
// added to the next.
func delayed(dst io.WriteCloser, src io.Reader, delay time.Duration) {
	type chunk struct {
		data []byte
		due  time.Time
	}
	q := make(chan chunk, 1024)
	go func() {
		defer close(q)
		for {
			buf := make([]byte, 32*1024)
			n, err := src.Read(buf)
			if n > 0 {
				q <- chunk{buf[:n], time.Now().Add(delay)}
			}
			if err != nil {
				return
			}
		}
	}()
	for c := range q {
		waitUntil(c.due)
		if _, err := dst.Write(c.data); err != nil {
			break
		}
	}
	dst.Close()
	for range q {
	}
}

// spin is the end of a wait spent spinning: the kernel wakes a sleeper up
// to a few tenths of a millisecond late on a busy machine (its timer
// slack and the wake-up).
const spin = 500 * time.Microsecond

// waitUntil returns at due. It sleeps in the kernel (nanosleep), not on the
// runtime's timers, which may wake a sleeper a millisecond late (5 to 10 %
// of a round trip of a few milliseconds), and spins only the last
// moment, so that on a busy machine it does not hold a processor the other
// connections' reads need.
func waitUntil(due time.Time) {
	if wait := time.Until(due) - spin; wait > 0 {
		ts := unix.NsecToTimespec(wait.Nanoseconds())
		_ = unix.Nanosleep(&ts, nil)
	}
	for time.Now().Before(due) {
		runtime.Gosched()
	}
}
