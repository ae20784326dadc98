package sqlite

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
)

func wideTable(name string, n int) string {
	cols := make([]string, n)
	for i := range cols {
		cols[i] = fmt.Sprintf("c%d INTEGER", i)
	}
	return "CREATE TABLE " + name + " (" + strings.Join(cols, ", ") + ")"
}

func TestEligibility(t *testing.T) {
	path := fixture(t,
		`CREATE TABLE plain (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score REAL)`,
		`CREATE TABLE norowid (k TEXT PRIMARY KEY, v BLOB) WITHOUT ROWID`,
		`CREATE VIRTUAL TABLE docs USING fts5(body)`,
		`CREATE VIRTUAL TABLE boxes USING rtree(id, x0, x1)`,
		`CREATE VIEW v AS SELECT id FROM plain`,
		`CREATE TABLE gen (a INTEGER, b INTEGER GENERATED ALWAYS AS (a * 2) VIRTUAL)`,
		`CREATE TABLE gens (a INTEGER, b INTEGER GENERATED ALWAYS AS (a * 2) STORED)`,
		wideTable("wide64", 64),
		wideTable("wide65", 65),
		`CREATE TABLE auto (id INTEGER PRIMARY KEY AUTOINCREMENT)`,
		`ANALYZE`,
	)
	eng := openEngine(t, path, true)
	cases := []struct {
		table  verifier.Table
		reason engines.Reason // "" means eligible
	}{
		{tbl("plain"), ""},
		{tbl("PLAIN"), ""},
		{tbl("norowid"), ""},
		{tbl("wide64"), ""},
		{tbl("docs"), ReasonVirtual},
		{tbl("docs_data"), ReasonShadow},
		{tbl("docs_idx"), ReasonShadow},
		{tbl("docs_content"), ReasonShadow},
		{tbl("docs_docsize"), ReasonShadow},
		{tbl("docs_config"), ReasonShadow},
		{tbl("boxes"), ReasonVirtual},
		{tbl("boxes_node"), ReasonShadow},
		{tbl("boxes_parent"), ReasonShadow},
		{tbl("boxes_rowid"), ReasonShadow},
		{tbl("v"), ReasonView},
		{tbl("gen"), ReasonGenerated},
		{tbl("gens"), ReasonGenerated},
		{tbl("wide65"), engines.ReasonTooManyColumns},
		{tbl("sqlite_schema"), ReasonInternal},
		{tbl("sqlite_sequence"), ReasonInternal},
		{tbl("sqlite_stat1"), ReasonInternal},
		{tbl("missing"), engines.ReasonNotFound},
		{verifier.Table{Schema: "temp", Name: "plain"}, ReasonNotMain},
		{verifier.Table{Schema: "other", Name: "plain"}, ReasonNotMain},
	}
	for _, c := range cases {
		t.Run(c.table.String(), func(t *testing.T) {
			p, err := eng.Describe(context.Background(), c.table)
			if c.reason != "" {
				wantErr(t, err, engines.CodeIneligible, c.reason)
				return
			}
			if err != nil {
				t.Fatalf("Describe: %v", err)
			}
			if p.Kind != "table" || p.Identity == "" || len(p.Columns) == 0 {
				t.Fatalf("proof = %+v", p)
			}
		})
	}
}

func TestDescribeColumns(t *testing.T) {
	path := fixture(t, `CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT NOT NULL, note varchar(20), x)`)
	eng := openEngine(t, path, true)
	p, err := eng.Describe(context.Background(), tbl("People"))
	if err != nil {
		t.Fatal(err)
	}
	want := []engines.Column{
		{Name: "id", Type: "INTEGER", Nullable: true},
		{Name: "name", Type: "TEXT", Nullable: false},
		{Name: "note", Type: "varchar(20)", Nullable: true},
		{Name: "x", Type: "", Nullable: true},
	}
	if fmt.Sprint(p.Columns) != fmt.Sprint(want) {
		t.Fatalf("columns = %+v, want %+v", p.Columns, want)
	}
	if p.Table != tbl("people") {
		t.Fatalf("table = %v, want the stored spelling", p.Table)
	}
}

func TestListTables(t *testing.T) {
	path := fixture(t,
		`CREATE TABLE zeta (a)`, `CREATE TABLE alpha (a)`, `CREATE VIEW v AS SELECT 1`,
		`CREATE TABLE auto (id INTEGER PRIMARY KEY AUTOINCREMENT)`,
	)
	eng := openEngine(t, path, true)
	got, err := eng.ListTables(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range got {
		if e.Kind != "table" || e.Table.Schema != "main" {
			t.Fatalf("entry %+v", e)
		}
		names = append(names, e.Table.Name)
	}
	if strings.Join(names, ",") != "alpha,auto,zeta" {
		t.Fatalf("tables = %v", names)
	}
}

func TestIdentityChangesWithPin(t *testing.T) {
	path := fixture(t, `CREATE TABLE t (a INTEGER)`, `INSERT INTO t VALUES (1)`)
	eng := openEngine(t, path, true)
	ctx := context.Background()
	v := readVerdict(`SELECT "a" FROM "main"."t"`, []string{"t"}, map[string][]string{"t": {"a"}})
	_, proofs, err := eng.Read(ctx, engines.ReadRequest{Verdict: v})
	if err != nil {
		t.Fatal(err)
	}
	pins := map[string]string{"main.t": proofs[0].Identity}
	if _, _, err := eng.Read(ctx, engines.ReadRequest{Verdict: v, Pins: pins}); err != nil {
		t.Fatalf("same identity: %v", err)
	}
	admin(t, path, `ALTER TABLE t ADD COLUMN b TEXT`)
	_, _, err = eng.Read(ctx, engines.ReadRequest{Verdict: v, Pins: pins})
	wantErr(t, err, engines.CodeIdentityChanged, engines.ReasonIdentityChanged)
	// Unpinned (standing access by name) still reads.
	if _, _, err := eng.Read(ctx, engines.ReadRequest{Verdict: v}); err != nil {
		t.Fatalf("unpinned after change: %v", err)
	}
}

func TestIdentityStable(t *testing.T) {
	path := fixture(t, `CREATE TABLE t (a INTEGER)`)
	eng := openEngine(t, path, true)
	p1, err := eng.Describe(context.Background(), tbl("t"))
	if err != nil {
		t.Fatal(err)
	}
	admin(t, path, `INSERT INTO t VALUES (5)`)
	p2, err := eng.Describe(context.Background(), tbl("t"))
	if err != nil {
		t.Fatal(err)
	}
	if p1.Identity != p2.Identity {
		t.Fatal("identity changed on a data change")
	}
	admin(t, path, `DROP TABLE t`, `CREATE TABLE t (a INTEGER)`)
	p3, err := eng.Describe(context.Background(), tbl("t"))
	if err != nil {
		t.Fatal(err)
	}
	if p3.Identity == p1.Identity {
		t.Fatal("identity kept across drop and re-create")
	}
}
