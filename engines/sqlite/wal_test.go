package sqlite

import (
	"context"
	"database/sql"
	"testing"

	"github.com/dbeast/dbeast/engines"
)

// TestWALAndConcurrentWriter reads a WAL-mode file while another
// connection holds an open write transaction: the read sees the last
// committed state, and the pin stays valid because nothing was committed.
func TestWALAndConcurrentWriter(t *testing.T) {
	path := fixture(t, `PRAGMA journal_mode=WAL`, `CREATE TABLE a (id INTEGER)`, `INSERT INTO a VALUES (1)`)
	other, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	ctx := context.Background()
	c, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, s := range []string{`BEGIN IMMEDIATE`, `INSERT INTO a VALUES (2)`} {
		if _, err := c.ExecContext(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	eng := openEngine(t, path, true)
	v := readVerdict(`SELECT "id" FROM "main"."a"`, []string{"a"}, map[string][]string{"a": {"id"}})
	res, _, err := eng.Read(ctx, engines.ReadRequest{Verdict: v})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 1 || res.Rows[0][0] != "1" {
		t.Fatalf("rows = %v, want the committed row only", res.Rows)
	}
	if _, err := c.ExecContext(ctx, `ROLLBACK`); err != nil {
		t.Fatal(err)
	}
}
