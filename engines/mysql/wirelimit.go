package mysql

import (
	"context"
	"database/sql"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/dbeast/dbeast/engines"
)

// The driver reads every packet whole: go-sql-driver/mysql allocates a
// buffer of the length a packet's header announces and joins the parts of
// a packet over 16 MiB, up to the server's max_allowed_packet (1 GiB at
// most). So one large cell (a LONGTEXT of 400 MB) would be copied into the
// broker, twice, before the 64 KiB cell limit could refuse it (issue 29).
// The engine dials the server itself and reads through limitConn, which
// follows the packet headers of the plain protocol and fails the
// connection as soon as a header announces more than wireLimit: the
// packet is never allocated.
//
// wireLimit is the largest row that can hold no cell over the cell limit:
// MaxColumns cells of DefaultMaxCellBytes with their length prefixes, and
// a little for the packet itself. A longer row has a cell over the limit,
// so refusing it answers what the result builder would have answered
// (ReasonCellTooLarge) once it had the row. Every other packet the engine
// reads (catalog rows, SHOW CREATE TABLE, the relation guard's note of a
// statement of at most 64 KiB) is far shorter.
//
// What it cannot bound: a TLS connection (the driver runs TLS over the
// dialed connection, so the headers are encrypted) and compression, which
// the engine turns off (dial) rather than follow its framing. A TLS
// source's packets stay bounded only by the server's max_allowed_packet
// (docs/safe-sql.md).
const wireLimit = engines.MaxColumns*(engines.DefaultMaxCellBytes+9) + 4096

// errWireLimit is what a limited connection's Read returns once a packet
// over wireLimit was announced; the driver then closes the connection.
var errWireLimit = errors.New("mysql: a packet over the engine's wire limit")

// limitConn is a net.Conn whose reads fail once the server announces a
// packet over limit. Only the reading side is parsed; a connection is read
// by one goroutine at a time (the driver's), so the parser needs no lock.
type limitConn struct {
	net.Conn
	limit int

	// The parser: head holds the header bytes seen so far (n of 4), body
	// the bytes of the current packet still to come.
	head [4]byte
	n    int
	body int

	// writes counts the driver's writes on the connection; session.go
	// reads it to know that nothing was sent between two operations.
	writes atomic.Uint64

	// Statements sent ahead (pipeline.go). Like the parser, used only by
	// the goroutine of the call: the engine between two driver calls, the
	// driver inside one.
	ahead

	mu      sync.Mutex // guards the fields below
	tripped bool
	key     *sql.DB // the registry key, nil until registered
	closed  bool
}

// Read reads from the connection and fails, delivering nothing, when the
// bytes read complete a header that announces more than the limit. While
// statements are sent ahead (pipeline.go) it hands the driver no byte
// past the end of the packet it is reading.
func (c *limitConn) Read(p []byte) (int, error) {
	if c.pipelining() {
		return c.readPacketwise(p)
	}
	return c.readWire(p)
}

// readWire reads from the socket through the wire limit's parser.
func (c *limitConn) readWire(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	for i := 0; i < n; {
		if c.body > 0 {
			step := min(c.body, n-i)
			c.body -= step
			i += step
			continue
		}
		c.head[c.n] = p[i]
		c.n++
		i++
		if c.n == 4 {
			c.n = 0
			c.body = int(c.head[0]) | int(c.head[1])<<8 | int(c.head[2])<<16
			if c.body > c.limit {
				c.mu.Lock()
				c.tripped = true
				c.mu.Unlock()
				return 0, errWireLimit
			}
		}
	}
	return n, err
}

// Write counts the write and sends p, with the packets sent ahead behind
// it, or takes p as the repetition of a packet already sent (pipeline.go).
func (c *limitConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.writeAhead(p)
}

// SyscallConn gives the driver the socket, which it peeks at before it
// hands out an idle connection (so a connection the server closed is not
// used); without it the driver skips that check.
func (c *limitConn) SyscallConn() (syscall.RawConn, error) {
	sc, ok := c.Conn.(syscall.Conn)
	if !ok {
		return nil, errors.ErrUnsupported
	}
	return sc.SyscallConn()
}

// Close closes the connection and leaves the registry, unless its reads
// were refused: the driver closes the connection before the engine can
// ask why its read failed, so that entry leaves when wireLimitHit reads
// it.
func (c *limitConn) Close() error {
	c.mu.Lock()
	c.closed = true
	key, keep := c.key, c.tripped
	c.mu.Unlock()
	if key != nil && !keep {
		wireLimits.Delete(key)
	}
	return c.Conn.Close()
}

// wireLimits maps each engine connection, by the *sql.DB of one
// connection that holds it (pconn.db; its *sql.Conn changes each time the
// pool hands it out), to its limitConn, so
// that a read that failed can tell a refused packet from a lost
// connection (the driver reports both as a bad connection). An entry
// leaves when its connection closes, or, for a refused one, when
// wireLimitHit reads it.
var wireLimits sync.Map

// dialHolder carries, in the context of a connection attempt, the
// limitConn the attempt dialed.
type dialHolder struct {
	mu sync.Mutex
	lc *limitConn
}

type dialHolderKey struct{}

// limitedDial dials like the driver does and wraps the connection in a
// limitConn, recorded in the attempt's dialHolder.
func limitedDial(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	lc := &limitConn{Conn: nc, limit: wireLimit}
	if h, ok := ctx.Value(dialHolderKey{}).(*dialHolder); ok {
		h.mu.Lock()
		h.lc = lc
		h.mu.Unlock()
	}
	return lc, nil
}

// conn returns the limitConn the attempt dialed, nil for none (TLS).
func (h *dialHolder) conn() *limitConn {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.lc
}

// register records db's limitConn, if the attempt dialed one.
func (h *dialHolder) register(db *sql.DB) {
	h.mu.Lock()
	lc := h.lc
	h.mu.Unlock()
	if lc == nil {
		return
	}
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if lc.closed {
		return
	}
	lc.key = db
	wireLimits.Store(db, lc)
}

// wireLimitHit reports whether the reads of db's connection were refused
// for a packet over the wire limit.
func wireLimitHit(db *sql.DB) bool {
	v, ok := wireLimits.Load(db)
	if !ok {
		return false
	}
	lc := v.(*limitConn)
	lc.mu.Lock()
	tripped, closed := lc.tripped, lc.closed
	lc.mu.Unlock()
	if closed {
		wireLimits.Delete(db)
	}
	return tripped
}
