package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/dbeast/dbeast/engines"
)

// BenchmarkPointRead measures one point read as the broker runs it (Open,
// Read, Close of an engine, on a Driver that keeps its read handles, as
// cmd/dbeast's does) on files with 1 and 100 tables, beside the same
// query on a plain database/sql handle kept open (direct), so the ratio
// dbeast/direct comes from one run.
func BenchmarkPointRead(b *testing.B) {
	for _, tables := range []int{1, 100} {
		path := benchFixture(b, tables)
		src := engines.Source{Kind: engines.SQLite, Path: path, ReadOnly: true}
		v := readVerdict(`SELECT "id", "v" FROM "main"."t0" WHERE "id" = 42`, []string{"t0"},
			map[string][]string{"t0": {"id", "v"}})
		b.Run(fmt.Sprintf("tables=%d/dbeast", tables), func(b *testing.B) {
			ctx := context.Background()
			d := NewDriver()
			defer d.Close()
			for i := 0; i < b.N; i++ {
				eng, err := d.Open(ctx, src)
				if err != nil {
					b.Fatal(err)
				}
				res, _, err := eng.Read(ctx, engines.ReadRequest{Verdict: v})
				if err != nil || len(res.Rows) != 1 {
					b.Fatalf("read: %v %v", res, err)
				}
				if err := eng.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("tables=%d/direct", tables), func(b *testing.B) {
			db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			for i := 0; i < b.N; i++ {
				var id int64
				var s string
				if err := db.QueryRow(`SELECT "id", "v" FROM "main"."t0" WHERE "id" = 42`).Scan(&id, &s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchFixture makes a file with tables t0…t(n-1), each of 1,000 rows.
func benchFixture(b *testing.B, n int) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "bench.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	for i := 0; i < n; i++ {
		for _, s := range []string{
			fmt.Sprintf(`CREATE TABLE t%d (id INTEGER PRIMARY KEY, v TEXT NOT NULL, n INTEGER, at DATETIME)`, i),
			fmt.Sprintf(`CREATE INDEX t%d_n ON t%d (n)`, i, i),
			fmt.Sprintf(`INSERT INTO t%d (id, v, n) WITH RECURSIVE s(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM s WHERE x < 1000) SELECT x, 'row ' || x, x %% 7 FROM s`, i),
		} {
			if _, err := db.Exec(s); err != nil {
				b.Fatal(err)
			}
		}
	}
	return path
}
