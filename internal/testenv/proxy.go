package testenv

import (
	"fmt"
	"io"
	"net"
	"net/url"
	"sync"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
)

// Proxy is a TCP proxy on loopback in front of a cluster's API server, so a
// test can cut the network between Meridian and a member (Break) and mend it
// (Restore) while the member itself keeps running.
type Proxy struct {
	target string
	ln     net.Listener
	addr   string

	mu     sync.Mutex
	broken bool
	conns  map[net.Conn]struct{}
}

// NewProxy starts a proxy to c's API server; t's cleanup stops it.
func (c *Cluster) NewProxy(t testing.TB) *Proxy {
	t.Helper()
	u, err := url.Parse(c.Config.Host)
	if err != nil {
		t.Fatalf("failed to parse API server address %q: %v", c.Config.Host, err)
	}
	return NewProxyTo(t, u.Host)
}

// NewProxyTo starts a proxy to target (host:port), an API server that is
// not an envtest Cluster (a testbed member's); t's cleanup stops it.
func NewProxyTo(t testing.TB, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{target: target, ln: ln, addr: ln.Addr().String(), conns: map[net.Conn]struct{}{}}
	go p.serve()
	t.Cleanup(p.close)
	return p
}

// Kubeconfig returns kubeconfig rewritten to reach the API server through
// the proxy.
func (p *Proxy) Kubeconfig(kubeconfig []byte) ([]byte, error) {
	cfg, err := clientcmd.Load(kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("failed to load kubeconfig: %w", err)
	}
	for _, c := range cfg.Clusters {
		c.Server = "https://" + p.addr
	}
	return clientcmd.Write(*cfg)
}

// Break closes every connection through the proxy and refuses new ones.
func (p *Proxy) Break() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.broken = true
	for c := range p.conns {
		_ = c.Close()
		delete(p.conns, c)
	}
}

// Restore lets connections through again.
func (p *Proxy) Restore() {
	p.mu.Lock()
	p.broken = false
	p.mu.Unlock()
}

func (p *Proxy) serve() {
	for {
		in, err := p.ln.Accept()
		if err != nil {
			return // closed
		}
		p.mu.Lock()
		if p.broken {
			p.mu.Unlock()
			_ = in.Close()
			continue
		}
		out, err := net.Dial("tcp", p.target)
		if err != nil {
			p.mu.Unlock()
			_ = in.Close()
			continue
		}
		p.conns[in], p.conns[out] = struct{}{}, struct{}{}
		p.mu.Unlock()
		go p.pipe(in, out)
		go p.pipe(out, in)
	}
}

func (p *Proxy) pipe(dst, src net.Conn) {
	// Errors end the copy either way: a closed side is how a connection ends.
	_, _ = io.Copy(dst, src)
	_ = dst.Close()
	_ = src.Close()
	p.mu.Lock()
	delete(p.conns, dst)
	delete(p.conns, src)
	p.mu.Unlock()
}

func (p *Proxy) close() {
	_ = p.ln.Close()
	p.Break()
}
