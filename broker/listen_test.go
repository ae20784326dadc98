package broker

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"testing"
	"time"
)

// TestListenerConnectionCap: each listener serves at most
// maxConnsPerListener connections at once. With that many open (and
// silent), one more connection's request is not answered; once one of
// them closes, it is. Without the cap the extra request is answered at
// once.
func TestListenerConnectionCap(t *testing.T) {
	e := newEnv(t, "")
	e.b.srvMu.Lock()
	authorities := map[string]string{"mcp": e.b.mcpAddr, "console": e.b.consoleAddr}
	e.b.srvMu.Unlock()
	for name, authority := range authorities {
		t.Run(name, func(t *testing.T) {
			var held []net.Conn
			defer func() {
				for _, c := range held {
					c.Close()
				}
			}()
			for i := 0; i < maxConnsPerListener; i++ {
				c, err := net.Dial("tcp", authority)
				if err != nil {
					t.Fatalf("connection %d: %v", i, err)
				}
				held = append(held, c)
			}
			extra, err := net.Dial("tcp", authority)
			if err != nil {
				t.Fatal(err)
			}
			defer extra.Close()
			fmt.Fprintf(extra, "GET / HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", authority)
			r := bufio.NewReader(extra)
			// A negative check: under load it can only pass wrongly, never
			// fail wrongly.
			extra.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
			if _, err := r.Peek(1); !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Fatalf("connection %d answered while %d were open: %v", maxConnsPerListener+1, maxConnsPerListener, err)
			}
			held[0].Close()
			extra.SetReadDeadline(time.Now().Add(30 * time.Second))
			resp, err := http.ReadResponse(r, nil)
			if err != nil {
				t.Fatalf("after one connection closed: %v", err)
			}
			resp.Body.Close()
		})
	}
}
