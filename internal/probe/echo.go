package probe

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"syscall"
	"time"
)

// Bounds of the echo server, so that no peer (or anyone who reaches the
// port) makes it buffer, hold connections or spawn goroutines without end.
const (
	// maxLine bounds a probe line.
	maxLine = 64
	// maxConns is how many connections it serves at once; more are closed
	// at once.
	maxConns = 128
	// connLifetime is how long a connection may stay open, whatever it
	// sends: a round of probes takes a few round trips.
	connLifetime = 30 * time.Second
)

// Serve answers probes on ln until ctx ends: every line a connection sends
// is written back. A temporary accept error (too many open files) is
// retried after a pause, as net/http does.
func Serve(ctx context.Context, ln net.Listener) error {
	go func() {
		<-ctx.Done()
		ln.Close()
	}()
	slots := make(chan struct{}, maxConns)
	var pause time.Duration
	for {
		conn, err := ln.Accept()
		if err != nil {
			select {
			case <-ctx.Done():
				return nil // the listener closed because ctx ended
			default:
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) {
				pause = min(max(2*pause, 5*time.Millisecond), time.Second)
				time.Sleep(pause)
				continue
			}
			return fmt.Errorf("failed to accept a probe: %w", err)
		}
		pause = 0
		select {
		case slots <- struct{}{}:
			go func() {
				defer func() { <-slots }()
				echo(ctx, conn)
			}()
		default:
			conn.Close()
		}
	}
}

func echo(ctx context.Context, conn net.Conn) {
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	_ = conn.SetDeadline(time.Now().Add(connLifetime))
	r := bufio.NewReaderSize(conn, maxLine)
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return
		}
		if _, err := conn.Write(line); err != nil {
			return
		}
	}
}

// Measure opens a connection to addr (from the local address source when
// not empty) and returns the shortest of samples round trips on it, each a
// line written and read back: the link's own delay, without the queueing a
// busy moment of either end adds to some round trips (TCP keeps the least
// round trip as its base for the same reason). timeout bounds the whole
// measurement.
func Measure(ctx context.Context, addr, source string, samples int, timeout time.Duration) (time.Duration, error) {
	if samples < 1 {
		samples = 1
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	d := net.Dialer{}
	if source != "" {
		ip := net.ParseIP(source)
		if ip == nil {
			return 0, fmt.Errorf("source address %q is not an IP address", source)
		}
		d.LocalAddr = &net.TCPAddr{IP: ip}
	}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return 0, fmt.Errorf("failed to reach the prober at %s: %w", addr, err)
	}
	defer conn.Close()
	if deadline, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(deadline)
	}
	r := bufio.NewReaderSize(conn, maxLine)
	rtts := make([]time.Duration, 0, samples)
	for i := range samples {
		msg := "ping " + strconv.Itoa(i) + "\n"
		start := time.Now()
		if _, err := conn.Write([]byte(msg)); err != nil {
			return 0, fmt.Errorf("failed to probe %s: %w", addr, err)
		}
		line, err := r.ReadSlice('\n')
		if err != nil {
			return 0, fmt.Errorf("failed to read the echo of %s: %w", addr, err)
		}
		rtts = append(rtts, time.Since(start))
		if string(line) != msg {
			return 0, fmt.Errorf("the prober at %s answered %q, not the probe", addr, line)
		}
	}
	return slices.Min(rtts), nil
}
