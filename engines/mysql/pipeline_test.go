package mysql

import (
	"bytes"
	"errors"
	"net"
	"strings"
	"testing"
)

// packets joins packets with the given body lengths, each body filled
// with its index.
func packets(bodies ...int) ([]byte, []int) {
	var out []byte
	var ends []int
	for i, n := range bodies {
		out = append(out, byte(n), byte(n>>8), byte(n>>16), byte(i))
		out = append(out, bytes.Repeat([]byte{byte(i)}, n)...)
		ends = append(ends, len(out))
	}
	return out, ends
}

// TestPacketCursorStopsAtPacketEnds hands a stream of packets over in
// chunks of every size and checks that no chunk passes the end of a
// packet (the driver's buffer must be empty at a command boundary) and
// that the chunks rebuild the stream.
func TestPacketCursorStopsAtPacketEnds(t *testing.T) {
	cases := []struct {
		name   string
		bodies []int
	}{
		{"one packet", []int{7}},
		{"an empty packet between two", []int{3, 0, 5}},
		{"many small ones", []int{1, 1, 2, 3, 5, 8, 13}},
		{"a long one", []int{1000, 2}},
	}
	for _, c := range cases {
		stream, ends := packets(c.bodies...)
		isEnd := map[int]bool{}
		for _, e := range ends {
			isEnd[e] = true
		}
		for max := 1; max <= len(stream)+1; max++ {
			var cur packetCursor
			var got []byte
			pos := 0
			for pos < len(stream) {
				k := cur.span(stream[pos:], max)
				if k <= 0 {
					t.Fatalf("%s, max %d: no progress at %d", c.name, max, pos)
				}
				for e := range isEnd {
					if pos < e && pos+k > e {
						t.Fatalf("%s, max %d: chunk %d..%d passes the packet end %d", c.name, max, pos, pos+k, e)
					}
				}
				got = append(got, stream[pos:pos+k]...)
				pos += k
			}
			if !bytes.Equal(got, stream) {
				t.Fatalf("%s, max %d: chunks do not rebuild the stream", c.name, max)
			}
		}
	}
}

// recordConn is a net.Conn that records what is written to it and reads
// from a fixed stream.
type recordConn struct {
	net.Conn
	written [][]byte
	in      []byte
}

func (r *recordConn) Write(p []byte) (int, error) {
	r.written = append(r.written, append([]byte(nil), p...))
	return len(p), nil
}

func (r *recordConn) Read(p []byte) (int, error) {
	n := copy(p, r.in)
	r.in = r.in[n:]
	return n, nil
}

// TestSendAheadWrites checks the writes of statements sent ahead: the
// armed packets leave in the same write as the next command, the
// driver's repetitions of them are taken without writing, and a write
// that is not the packet sent ahead breaks the connection (that write and
// every later one fail) except COM_QUIT, which always goes out.
func TestSendAheadWrites(t *testing.T) {
	first, second, third := queryPacket("LOCK TABLES x READ"), queryPacket("START TRANSACTION READ ONLY"), queryPacket("SHOW WARNINGS")
	quit := []byte{1, 0, 0, 0, comQuit}
	cases := []struct {
		name       string
		writes     [][]byte
		failFrom   int // index of the first write that fails; -1 for none
		wantWrites [][]byte
		idle       bool
	}{
		{"in order", [][]byte{first, second, third}, -1, [][]byte{append(append(append([]byte(nil), first...), second...), third...)}, true},
		{"stopped early", [][]byte{first, second}, -1, [][]byte{append(append(append([]byte(nil), first...), second...), third...)}, false},
		{"another command", [][]byte{first, third, second}, 1, [][]byte{append(append(append([]byte(nil), first...), second...), third...)}, false},
		{"closed with statements outstanding", [][]byte{first, quit}, -1, [][]byte{append(append(append([]byte(nil), first...), second...), third...), quit}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rc := &recordConn{}
			lc := &limitConn{Conn: rc, limit: wireLimit}
			if !lc.sendAhead(true, []string{"START TRANSACTION READ ONLY", "SHOW WARNINGS"}) {
				t.Fatal("sendAhead refused")
			}
			if lc.sendAhead(false, []string{"ROLLBACK"}) {
				t.Fatal("sendAhead armed twice")
			}
			for i, w := range c.writes {
				n, err := lc.Write(w)
				fails := c.failFrom >= 0 && i >= c.failFrom
				if fails != (err != nil) || (err == nil && n != len(w)) {
					t.Fatalf("write %d: %d, %v", i, n, err)
				}
				if fails && !errors.Is(err, errAheadMismatch) {
					t.Fatalf("write %d: %v, want errAheadMismatch", i, err)
				}
			}
			if c.failFrom >= 0 {
				if _, err := lc.Write(queryPacket("ROLLBACK")); !errors.Is(err, errAheadMismatch) {
					t.Fatalf("write after the mismatch: %v", err)
				}
			}
			if len(rc.written) != len(c.wantWrites) {
				t.Fatalf("%d writes reached the socket, want %d", len(rc.written), len(c.wantWrites))
			}
			for i := range rc.written {
				if !bytes.Equal(rc.written[i], c.wantWrites[i]) {
					t.Fatalf("socket write %d = %q, want %q", i, rc.written[i], c.wantWrites[i])
				}
			}
			if lc.idle() != c.idle {
				t.Errorf("idle = %v, want %v", lc.idle(), c.idle)
			}
			if lc.mayWait() == c.idle {
				t.Errorf("mayWait = %v with idle %v", lc.mayWait(), c.idle)
			}
		})
	}
}

// TestSendAheadFollowsOnlyWholeCommands checks that statements armed to
// follow the next command are not written behind a write that is not one
// whole command packet: a payload of maxPacket, which the driver follows
// with another packet, would otherwise get them between its packets. They
// are dropped instead, and the driver's own writes of them go out as
// written.
func TestSendAheadFollowsOnlyWholeCommands(t *testing.T) {
	full := make([]byte, 4+maxPacket)
	full[0], full[1], full[2], full[4] = 0xff, 0xff, 0xff, comQuery
	next := queryPacket("SHOW WARNINGS")
	cases := []struct {
		name  string
		write []byte
		whole bool
	}{
		{"a query", queryPacket("SELECT 1"), true},
		{"one byte under a full packet", func() []byte { p := queryPacket(strings.Repeat("x", maxPacket-2)); return p }(), true},
		{"a full packet", full, false},
		{"a continuation packet", []byte{1, 0, 0, 1, 'x'}, false},
		{"a packet cut short", queryPacket("SELECT 1")[:8], false},
		{"two packets in one write", append(queryPacket("SELECT 1"), queryPacket("SELECT 2")...), false},
		{"a header alone", []byte{0, 0, 0, 0}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := wholeCommand(c.write); got != c.whole {
				t.Fatalf("wholeCommand = %v, want %v", got, c.whole)
			}
			rc := &recordConn{}
			lc := &limitConn{Conn: rc, limit: wireLimit}
			if !lc.sendAhead(false, []string{"SHOW WARNINGS"}) {
				t.Fatal("sendAhead refused")
			}
			if _, err := lc.Write(c.write); err != nil {
				t.Fatal(err)
			}
			if _, err := lc.Write(next); err != nil {
				t.Fatal(err)
			}
			want := [][]byte{c.write, next}
			if c.whole {
				want = [][]byte{append(append([]byte(nil), c.write...), next...)}
			}
			if len(rc.written) != len(want) {
				t.Fatalf("%d writes reached the socket, want %d", len(rc.written), len(want))
			}
			for i := range want {
				if !bytes.Equal(rc.written[i], want[i]) {
					t.Fatalf("socket write %d differs (%d bytes, want %d)", i, len(rc.written[i]), len(want[i]))
				}
			}
			if !lc.idle() {
				t.Error("not idle after the statements were written")
			}
		})
	}
}

// TestSendAheadReadsPacketwise checks that, with statements sent ahead,
// a read never hands over bytes past the end of the packet being read,
// even when the socket delivers two answers at once, and that reads go
// straight to the socket again once everything was handed over.
func TestSendAheadReadsPacketwise(t *testing.T) {
	stream, ends := packets(5, 0, 9)
	rc := &recordConn{in: stream}
	lc := &limitConn{Conn: rc, limit: wireLimit}
	lc.sendAhead(false, []string{"SHOW WARNINGS"})
	if _, err := lc.Write(queryPacket("EXPLAIN SELECT 1")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	pos := 0
	for _, end := range ends {
		n, err := lc.Read(buf)
		if err != nil || pos+n != end {
			t.Fatalf("read at %d: %d bytes, %v; want up to %d", pos, n, err, end)
		}
		pos += n
		if end == ends[0] {
			// The driver sends the statement sent ahead.
			if _, err := lc.Write(queryPacket("SHOW WARNINGS")); err != nil {
				t.Fatal(err)
			}
		}
	}
	if !lc.idle() {
		t.Errorf("not idle after every packet was handed over")
	}
}
