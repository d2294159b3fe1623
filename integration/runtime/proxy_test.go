package runtime_test

import (
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
)

// faultProxy forwards TCP connections from a loopback port to a Cassandra
// node and can cut every connection it carries at once, in the middle of
// whatever requests they carry. It counts the bytes it forwards towards
// the node, so a test can tell whether a request reached it.
type faultProxy struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	conns map[*net.TCPConn]struct{}
	wg    sync.WaitGroup

	upstream atomic.Int64 // bytes forwarded client → node
	cuts     atomic.Int64 // connections cut

	holding chan struct{} // non-nil while replies are held (under mu)
}

func startProxy(t testing.TB, target string) *faultProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("proxy: %v", err)
	}
	p := &faultProxy{ln: ln, target: target, conns: make(map[*net.TCPConn]struct{})}
	p.wg.Go(p.serve)
	t.Cleanup(p.close)
	return p
}

func (p *faultProxy) addr() *net.TCPAddr { return p.ln.Addr().(*net.TCPAddr) }

func (p *faultProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return // closed
		}
		p.wg.Go(func() { p.forward(c.(*net.TCPConn)) })
	}
}

func (p *faultProxy) forward(client *net.TCPConn) {
	s, err := net.Dial("tcp", p.target)
	if err != nil {
		client.Close()
		return
	}
	server := s.(*net.TCPConn)
	if !p.track(client, server) {
		return
	}
	var wg sync.WaitGroup
	wg.Go(func() { pipe(server, client, &p.upstream, nil) })
	wg.Go(func() { pipe(client, server, nil, p.wait) })
	wg.Wait()
	p.mu.Lock()
	delete(p.conns, client)
	delete(p.conns, server)
	p.mu.Unlock()
}

func (p *faultProxy) track(cs ...*net.TCPConn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conns == nil { // closed
		for _, c := range cs {
			c.Close()
		}
		return false
	}
	for _, c := range cs {
		p.conns[c] = struct{}{}
	}
	return true
}

// pipe copies until either side fails, then closes both, so that a cut of
// one side is seen by the other at once. gate, if set, runs before each
// write, and may hold it.
func pipe(dst, src *net.TCPConn, count *atomic.Int64, gate func()) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if count != nil {
				count.Add(int64(n))
			}
			if gate != nil {
				gate()
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				err = werr
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				dst.SetLinger(0)
			}
			dst.Close()
			src.Close()
			return
		}
	}
}

// hold stops forwarding the node's replies, while requests still reach
// it, until release is called: a client sees its requests time out, and
// the node applies them all the same.
func (p *faultProxy) hold() (release func()) {
	ch := make(chan struct{})
	p.mu.Lock()
	p.holding = ch
	p.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			p.mu.Lock()
			p.holding = nil
			p.mu.Unlock()
			close(ch)
		})
	}
}

// wait blocks while replies are held.
func (p *faultProxy) wait() {
	p.mu.Lock()
	ch := p.holding
	p.mu.Unlock()
	if ch != nil {
		<-ch
	}
}

// cut drops every connection the proxy carries, with a reset (no FIN, no
// pending data delivered) when reset is set. It returns how many.
func (p *faultProxy) cut(reset bool) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		if reset {
			c.SetLinger(0)
		}
		c.Close()
	}
	n := len(p.conns)
	p.cuts.Add(int64(n))
	clear(p.conns)
	return n
}

func (p *faultProxy) close() {
	p.ln.Close()
	p.mu.Lock()
	conns := p.conns
	p.conns = nil
	p.mu.Unlock()
	for c := range conns {
		c.Close()
	}
	p.wg.Wait()
}
