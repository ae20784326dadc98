package postgres

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/dbeast/dbeast/engines"
)

// TestSlowWriteThenAlive (held) runs reads whose statement text is
// large (1 MB), so that pgx's write to the socket can take longer than
// its 15 ms slow-write timer and start its background reader, a goroutine
// reading the same socket. alive then reads the socket of the pooled
// connection: had the background reader still been blocked in a read,
// alive's read (which waits for the socket's read lock) would block under
// the pool's mutex, or it would steal a byte of a live stream. The pooled
// connection must be handed out again (the same backend), each read must
// answer right, and nothing may hang.
func TestSlowWriteThenAlive(t *testing.T) {
	src := advSource(t, "adv3_bgreader", nil)
	var b strings.Builder
	b.WriteString(`SELECT t.id, t.name FROM dbeast_pgengine.t AS t WHERE t.id IN (1`)
	for b.Len() < 1<<20 {
		b.WriteString(",1")
	}
	b.WriteString(")")
	req := engines.ReadRequest{Verdict: readVerdict(b.String(), map[string][]string{"t": {"id", "name"}}, nil, "t")}
	done := make(chan struct{})
	var pid uint32
	go func() {
		defer close(done)
		for i := 0; i < 6; i++ {
			e, err := Driver{}.Open(context.Background(), src)
			if err != nil {
				t.Errorf("open %d: %v", i, err)
				return
			}
			en := e.(*Engine)
			if i == 0 {
				pid = en.pg.PID()
			} else if en.pg.PID() != pid {
				t.Errorf("round %d: a healthy pooled connection (pid %d) was dropped after a large write; got pid %d", i, pid, en.pg.PID())
				pid = en.pg.PID()
			}
			res, _, err := en.Read(context.Background(), req)
			if err != nil {
				t.Errorf("round %d: read: %v", i, err)
			} else if rows := rowsOf(res); len(rows) != 1 || rows[0][0] != "1" {
				t.Errorf("round %d: rows = %v", i, rows)
			}
			if _, _, err := en.Read(context.Background(), pointRead()); err != nil {
				t.Errorf("round %d: point read after the large one: %v", i, err)
			}
			e.Close()
		}
	}()
	select {
	case <-done:
	case <-time.After(90 * time.Second):
		t.Fatal("the reads did not finish: alive or the pool hangs")
	}
}
