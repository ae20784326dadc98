package mysql

import (
	"bytes"
	"errors"
)

// Statements sent ahead. Each statement of a read is one COM_QUERY (multi
// statements stay off on every connection), and go-sql-driver waits for
// one answer before it sends the next command, so a warm point read was a
// round trip per statement. Where the next statement does not depend on
// the previous answer, the engine now sends it ahead: limitConn writes its
// packet right behind the driver's current command, the server runs the
// commands in the order they arrive, and when the driver later sends the
// same command, limitConn takes its write as already done and the driver
// reads the answer that is already on its way. The driver parses every
// answer as before; limitConn only hands it no byte past the end of the
// packet it is reading, so the driver's buffer is empty at each command
// boundary (it refuses to write a command otherwise). A driver write that
// is not the packet sent ahead breaks the connection (every later write
// fails) rather than let the driver take one statement's answer for
// another's.
//
// What is sent ahead on MariaDB over a plain connection (TLS hides the
// packets; MySQL 8's read sets its session read-only between LOCK TABLES
// and START TRANSACTION, so it keeps one statement per round trip):
//
//   - behind LOCK TABLES … READ: START TRANSACTION READ ONLY, the
//     metadata-lock statement (lockAndIdentify) and one SHOW CREATE TABLE
//     per table (fingerprints);
//   - behind the relation guard's EXPLAIN: SHOW WARNINGS;
//   - behind the read: ROLLBACK.
//
// Every statement still runs, in the same order, in the same transaction
// as before, and every answer is checked in that order before the engine
// goes on: the read is sent only after the relation guard and every proof
// check answered, the EXPLAIN only after the proof. What changes is that
// a statement sent ahead runs even when the one before it failed. None of
// them can do harm then: START TRANSACTION READ ONLY opens a transaction;
// the metadata-lock statement reads no row (LIMIT 0) and refuses a view
// while opening it, before any of its code could run; SHOW CREATE TABLE
// prints a definition; SHOW WARNINGS lists diagnostics; ROLLBACK ends the
// read-only transaction. The engine returns the first failure exactly as
// before, and a connection with anything sent ahead and not taken (an
// operation that stopped at an error) is never reused: it is closed, and
// when a statement that may wait for a metadata lock is among them (the
// batch behind LOCK TABLES), its thread is killed first (Engine.run), so
// that nothing keeps running on the server once the operation returned.
// None of these statements is the agent's text; the agent's text is
// still alone in its COM_QUERY (the EXPLAIN and the read), so a printer
// bug still cannot make a second statement.

// errAheadMismatch is what a driver write gets when it is not the packet
// sent ahead (or after one was not): the connection is then unusable.
var errAheadMismatch = errors.New("mysql: a command other than the one sent ahead")

// comQuery and comQuit are the protocol's COM_QUERY and COM_QUIT
// command bytes.
const (
	comQuery = 0x03
	comQuit  = 0x01
)

// maxPacket is the longest payload of one protocol packet; a longer
// statement is never sent ahead (the driver would split it).
const maxPacket = 1<<24 - 1

// ahead is limitConn's state for statements sent ahead.
type ahead struct {
	armed  [][]byte // packets to send right behind the driver's next write
	sent   [][]byte // packets sent, which the driver's next writes must repeat, in order
	rbuf   []byte   // bytes read from the socket and not yet handed to the driver
	store  []byte   // rbuf's backing array, kept between reads
	rerr   error    // the socket's error, returned once rbuf is handed over
	cur    packetCursor
	broken bool // a driver write was not the packet sent ahead
	// waits is set when a statement armed or sent ahead may wait on the
	// server (for a metadata lock) after an earlier one failed.
	waits bool
}

// maxKeptReadBuffer bounds the read buffer kept between reads; a larger
// one (a long row) is dropped once handed over.
const maxKeptReadBuffer = 64 << 10

// queryPacket is the COM_QUERY packet of q as go-sql-driver writes it: a
// new command, so sequence number 0.
func queryPacket(q string) []byte {
	n := 1 + len(q)
	b := make([]byte, 4+n)
	b[0], b[1], b[2], b[3] = byte(n), byte(n>>8), byte(n>>16), 0
	b[4] = comQuery
	copy(b[5:], q)
	return b
}

// sendAhead arms c to send qs right behind the driver's next write, which
// must be a command; waits says whether one of them may wait for a lock.
// It reports false, arming nothing, when something is still outstanding
// or a statement does not fit one packet.
func (c *limitConn) sendAhead(waits bool, qs []string) bool {
	if c.pipelining() || len(c.armed) > 0 || c.broken {
		return false
	}
	packets := make([][]byte, len(qs))
	for i, q := range qs {
		if 1+len(q) >= maxPacket {
			return false
		}
		packets[i] = queryPacket(q)
	}
	c.armed = packets
	c.cur = packetCursor{}
	c.waits = waits
	return true
}

// mayWait reports whether a statement armed or sent ahead, and not taken,
// may wait on the server.
func (c *limitConn) mayWait() bool {
	return c.waits && (len(c.armed) > 0 || len(c.sent) > 0)
}

// pipelining reports whether answers to statements sent ahead may follow
// the packet the driver reads.
func (c *limitConn) pipelining() bool {
	return len(c.sent) > 0 || len(c.rbuf) > 0 || c.rerr != nil
}

// idle reports whether the driver and the server are at the same command
// boundary: nothing armed, sent ahead and not taken, or read and not
// handed over.
func (c *limitConn) idle() bool {
	return !c.pipelining() && len(c.armed) == 0 && !c.broken
}

// writeAhead writes p, or takes it as the repetition of the packet sent
// ahead, or writes it with the armed packets behind it in one write. A
// COM_QUIT always goes out: it is how a connection with statements still
// outstanding is closed.
func (c *limitConn) writeAhead(p []byte) (int, error) {
	switch {
	case len(p) >= 5 && p[3] == 0 && p[4] == comQuit:
		c.broken = true
		return c.Conn.Write(p)
	case c.broken:
		return 0, errAheadMismatch
	case len(c.sent) > 0:
		if !bytes.Equal(p, c.sent[0]) {
			c.broken = true
			return 0, errAheadMismatch
		}
		c.sent[0] = nil
		c.sent = c.sent[1:]
		return len(p), nil
	case len(c.armed) > 0 && !wholeCommand(p):
		// A command of more than one packet (a payload of maxPacket or
		// more, which the driver ends with a further packet): what is
		// armed would land between its packets. It is not sent ahead; the
		// driver sends each statement itself later, as without sendAhead.
		c.armed = nil
		return c.Conn.Write(p)
	case len(c.armed) > 0:
		size := len(p)
		for _, a := range c.armed {
			size += len(a)
		}
		buf := append(make([]byte, 0, size), p...)
		for _, a := range c.armed {
			buf = append(buf, a...)
		}
		c.sent, c.armed = c.armed, nil
		n, err := c.Conn.Write(buf)
		if err != nil {
			c.broken = true
			return min(n, len(p)), err
		}
		return len(p), nil
	}
	return c.Conn.Write(p)
}

// wholeCommand reports whether p is one whole command as the driver
// writes it: a single packet with sequence number 0 whose payload is
// shorter than maxPacket (a payload of exactly maxPacket announces a
// further packet) and which p holds to its end.
func wholeCommand(p []byte) bool {
	if len(p) < 5 || p[3] != 0 {
		return false
	}
	n := int(p[0]) | int(p[1])<<8 | int(p[2])<<16
	return n < maxPacket && len(p) == 4+n
}

// readPacketwise reads through the wire limit and hands the driver bytes
// only up to the end of the packet it is in.
func (c *limitConn) readPacketwise(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if len(c.rbuf) == 0 {
		if err := c.rerr; err != nil {
			c.rerr = nil
			return 0, err
		}
		if cap(c.store) < len(p) {
			c.store = make([]byte, len(p))
		}
		n, err := c.readWire(c.store[:len(p)])
		if n == 0 {
			return 0, err
		}
		c.rbuf, c.rerr = c.store[:n], err
	}
	k := c.cur.span(c.rbuf, len(p))
	copy(p, c.rbuf[:k])
	c.rbuf = c.rbuf[k:]
	if len(c.rbuf) == 0 {
		c.rbuf = nil
		if cap(c.store) > maxKeptReadBuffer {
			c.store = nil
		}
	}
	return k, nil
}

// packetCursor follows the packets handed to the driver.
type packetCursor struct {
	head [4]byte
	n    int // header bytes seen, of 4
	body int // bytes of the current packet's body still to come
}

// span returns how many bytes of b, at most max (at least 1 when b and
// max are not empty), continue the current packet without passing its
// end, and moves the cursor past them.
func (d *packetCursor) span(b []byte, max int) int {
	k := 0
	for k < len(b) && k < max {
		if d.body > 0 {
			step := min(d.body, len(b)-k, max-k)
			d.body -= step
			k += step
			if d.body == 0 {
				return k
			}
			continue
		}
		d.head[d.n] = b[k]
		d.n++
		k++
		if d.n == 4 {
			d.n = 0
			d.body = int(d.head[0]) | int(d.head[1])<<8 | int(d.head[2])<<16
			if d.body == 0 {
				return k
			}
		}
	}
	return k
}

// sendAhead arms the connection to send qs right behind the next
// statement the engine runs, on MariaDB over a plain connection; anywhere
// else it does nothing, and each statement waits for the answer before.
// waits says whether one of qs may wait for a lock on the server (see
// Engine.run).
func (e *Engine) sendAhead(waits bool, qs ...string) {
	if !e.fl.mariadb || e.pc == nil || e.pc.lc == nil {
		return
	}
	e.pc.lc.sendAhead(waits, qs)
}

// aheadMayWait reports whether a statement sent ahead on pc and not taken
// may still wait on the server.
func (pc *pconn) aheadMayWait() bool {
	return pc != nil && pc.lc != nil && pc.lc.mayWait()
}

// aheadIdle reports whether nothing sent ahead on pc is outstanding (see
// limitConn.idle); a connection without a limitConn never sends ahead.
func (pc *pconn) aheadIdle() bool {
	return pc == nil || pc.lc == nil || pc.lc.idle()
}
