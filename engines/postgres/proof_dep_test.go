package postgres

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
)

// depQueryReference is depQuery as it was before it was rewritten to
// start from the relation's indexes and constraints: a scan of every
// pg_depend row of those classes.
const depQueryReference = `SELECT d.classid, d.objid, d.refclassid, d.refobjid, d.refobjsubid
FROM pg_catalog.pg_depend d
WHERE ((d.classid = 1259 AND d.objid IN (SELECT x.indexrelid FROM pg_catalog.pg_index x WHERE x.indrelid = $1::pg_catalog.oid))
    OR (d.classid = 2606 AND d.objid IN (SELECT k.oid FROM pg_catalog.pg_constraint k WHERE k.conrelid = $1::pg_catalog.oid AND k.contype = 'c')))
  AND NOT (d.refclassid = 1259 AND d.refobjid = $1::pg_catalog.oid)
  AND NOT (d.refclassid = 2606 AND d.refobjid IN (SELECT k.oid FROM pg_catalog.pg_constraint k WHERE k.conrelid = $1::pg_catalog.oid))
UNION ALL
SELECT 1259, x.indexrelid, 2601, c.relam, 0
FROM pg_catalog.pg_index x JOIN pg_catalog.pg_class c ON c.oid = x.indexrelid
WHERE x.indrelid = $1::pg_catalog.oid
ORDER BY 1, 2, 3, 4, 5`

// TestDepQueryMatchesReference requires depQuery to return exactly the
// rows of its reference, in order, for every relation of the test
// database (the proof hashes these rows into the identity).
func TestDepQueryMatchesReference(t *testing.T) {
	admin := adminConn(t)
	ctx := context.Background()
	rows, err := admin.Query(ctx, `SELECT c.oid FROM pg_catalog.pg_class c WHERE c.relkind IN ('r', 'm', 'p')`)
	if err != nil {
		t.Fatal(err)
	}
	oids, err := pgx.CollectRows(rows, pgx.RowTo[uint32])
	if err != nil {
		t.Fatal(err)
	}
	nonEmpty := 0
	for _, oid := range oids {
		want := depRows(t, admin, depQueryReference, oid)
		got := depRows(t, admin, depQuery, oid)
		if want != got {
			t.Errorf("relation %d: depQuery = %q, reference = %q", oid, got, want)
		}
		if want != "" {
			nonEmpty++
		}
	}
	if nonEmpty == 0 {
		t.Fatal("no relation has dependencies: the comparison proves nothing")
	}
}

// depRows renders a dependency query's rows for one relation.
func depRows(t *testing.T, c *pgx.Conn, q string, oid uint32) string {
	t.Helper()
	rows, err := c.Query(context.Background(), q, oid)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := ""
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vals {
			out += "|" + fmt.Sprint(v)
		}
		out += "\n"
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
