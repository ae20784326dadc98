package sqlite

import (
	"context"
	"database/sql"
	"testing"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/engines/internal/pool"
	"github.com/dbeast/dbeast/verifier"
)

// pooledDriver returns a Driver that keeps read handles, closed when the
// test ends.
func pooledDriver(t *testing.T) Driver {
	t.Helper()
	d := NewDriver()
	t.Cleanup(func() { d.Close() })
	return d
}

// readOnce opens an engine of path on d, runs one read of v and closes the
// engine, returning the read's outcome and the handle it ran on.
func readOnce(t *testing.T, d Driver, path string, v *verifier.Verdict) (*engines.Result, *handle, error) {
	t.Helper()
	return readCtx(t, context.Background(), d, path, v)
}

func readCtx(t *testing.T, ctx context.Context, d Driver, path string, v *verifier.Verdict) (*engines.Result, *handle, error) {
	t.Helper()
	eng, err := d.Open(context.Background(), engines.Source{Kind: engines.SQLite, Path: path, ReadOnly: true})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	e := eng.(*Engine)
	res, _, err := e.Read(ctx, engines.ReadRequest{Verdict: v})
	h := e.ro
	if cerr := e.Close(); cerr != nil {
		t.Fatalf("Close: %v", cerr)
	}
	return res, h, err
}

// idleOf returns the idle handles d keeps for path.
func idleOf(d Driver, path string) []*handle {
	sp, ok := d.pools.Lookup(keyOf(path))
	if !ok {
		return nil
	}
	return sp.Idle()
}

// isClosed reports whether h's connection is closed.
func isClosed(h *handle) bool {
	return h.conn.PingContext(context.Background()) == sql.ErrConnDone
}

// rows1 returns the first column of res's rows.
func rows1(res *engines.Result) []any {
	if res == nil {
		return nil
	}
	out := []any{}
	for _, r := range res.Rows {
		out = append(out, r[0])
	}
	return out
}

var _ pool.Conn = (*handle)(nil)

// holdOpen keeps a connection of path open, reading, until the test
// ends: the owner's application holding its WAL file. No read handle of a
// WAL file is kept idle (pool.go), so without it the writer that changes
// the file closes last and checkpoints into the main file, and a case
// meant to leave the main file alone no longer does.
func holdOpen(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_schema`).Scan(&n); err != nil {
		t.Fatal(err)
	}
}
