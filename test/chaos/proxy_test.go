package chaos_test

import (
	"io"
	"net"
	"sync"
	"testing"
)

// cutter is a TCP proxy on loopback in front of a member's API server:
// cut closes every connection and refuses new ones, as a network partition
// would, while the member keeps running; mend lets connections through
// again.
type cutter struct {
	target string
	ln     net.Listener

	mu    sync.Mutex
	cut   bool
	conns map[net.Conn]struct{}
}

// newCutter starts a proxy to target (host:port); t's cleanup stops it.
func newCutter(t *testing.T, target string) *cutter {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &cutter{target: target, ln: ln, conns: map[net.Conn]struct{}{}}
	go c.serve()
	t.Cleanup(func() {
		_ = ln.Close()
		c.setCut(true)
	})
	return c
}

func (c *cutter) addr() string { return c.ln.Addr().String() }

// setCut cuts the member off (true) or mends the cut (false).
func (c *cutter) setCut(cut bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cut = cut
	if cut {
		for conn := range c.conns {
			_ = conn.Close()
			delete(c.conns, conn)
		}
	}
}

func (c *cutter) serve() {
	for {
		in, err := c.ln.Accept()
		if err != nil {
			return
		}
		go c.relay(in)
	}
}

func (c *cutter) relay(in net.Conn) {
	if !c.track(in) {
		_ = in.Close()
		return
	}
	out, err := net.Dial("tcp", c.target)
	if err != nil || !c.track(out) {
		_ = in.Close()
		if out != nil {
			_ = out.Close()
		}
		return
	}
	go c.pipe(out, in)
	c.pipe(in, out)
}

// track registers conn, unless the member is cut off.
func (c *cutter) track(conn net.Conn) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cut {
		return false
	}
	c.conns[conn] = struct{}{}
	return true
}

func (c *cutter) pipe(dst, src net.Conn) {
	_, _ = io.Copy(dst, src)
	_ = dst.Close()
	_ = src.Close()
	c.mu.Lock()
	delete(c.conns, dst)
	delete(c.conns, src)
	c.mu.Unlock()
}
