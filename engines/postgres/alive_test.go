//go:build unix

package postgres

import (
	"context"
	"crypto/tls"
	"net"
	"net/url"
	"testing"
	"time"

	"github.com/dbeast/dbeast/engines"
)

// The third adversarial review, of 32c63bb: pool.get drops an idle
// connection whose socket has unread bytes or is closed (alive).

// adv3Transports returns the test source over TLS and over the unix
// socket, each with a pool of its own.
func adv3Transports(t *testing.T, tag string) map[string]engines.Source {
	t.Helper()
	out := map[string]engines.Source{}
	dsn := testDSN(t)
	u, err := url.Parse(dsn)
	if err != nil || u.Host == "" {
		t.Skip("needs a URL DSN")
	}
	p := map[string]string{"timezone": "UTC", "application_name": "dbeast_adv3_" + tag}
	tp := map[string]string{"sslmode": "require"}
	for k, v := range p {
		tp[k] = v
	}
	out["tls"] = engines.Source{Kind: engines.Postgres, DSN: withParams(t, dsn, "", tp)}
	up := map[string]string{"host": "/var/run/postgresql"}
	for k, v := range p {
		up[k] = v
	}
	out["unix"] = engines.Source{Kind: engines.Postgres, DSN: withParams(t, dsn, "", up)}
	return out
}

// TestAliveOverTLSAndUnixSocket (held) checks alive on the two
// transports a deployment may use besides plain TCP: over TLS the check
// must look through *tls.Conn to the socket, over a unix socket the
// *net.UnixConn. A healthy pooled connection is handed out again (the same
// backend answers the next read: alive read nothing and dropped nothing),
// and one the administrator terminated while idle is dropped, the next
// operation running on a new backend.
func TestAliveOverTLSAndUnixSocket(t *testing.T) {
	for name, src := range adv3Transports(t, "transport") {
		t.Run(name, func(t *testing.T) {
			e, err := Driver{}.Open(context.Background(), src)
			if err != nil {
				if name == "unix" {
					t.Skipf("no unix socket connection: %v", err)
				}
				if name == "tls" && scalar(t, adminConn(t), "SELECT pg_catalog.current_setting('ssl')") == "off" {
					t.Skip("the server has ssl off")
				}
				t.Fatal(err)
			}
			en := e.(*Engine)
			_, isTLS := en.pg.Conn().(*tls.Conn)
			_, isUnix := en.pg.Conn().(*net.UnixConn)
			if name == "tls" && !isTLS || name == "unix" && !isUnix {
				t.Fatalf("the connection is a %T, not the transport under test", en.pg.Conn())
			}
			if _, _, err := en.Read(context.Background(), pointRead()); err != nil {
				t.Fatal(err)
			}
			e.Close()
			pids := idlePIDs(src)
			if len(pids) != 1 {
				t.Fatalf("pooled = %v, want one", pids)
			}
			// Healthy: reused, several times.
			for i := 0; i < 3; i++ {
				time.Sleep(50 * time.Millisecond)
				e2 := advOpen(t, src)
				if e2.pg.PID() != pids[0] {
					t.Fatalf("round %d: a healthy idle %s connection (pid %d) was not reused; got %d", i, name, pids[0], e2.pg.PID())
				}
				if _, _, err := e2.Read(context.Background(), pointRead()); err != nil {
					t.Fatalf("round %d: read on the reused connection: %v", i, err)
				}
				e2.Close()
			}
			// Dead: dropped.
			adv2Terminate(t, pids[0])
			e3 := advOpen(t, src)
			if e3.pg.PID() == pids[0] {
				t.Fatalf("the engine took the %s connection the server had ended", name)
			}
			if _, _, err := e3.Read(context.Background(), pointRead()); err != nil {
				t.Errorf("read after the pooled %s connection died: %v", name, err)
			}
			e3.Close()
		})
	}
}
