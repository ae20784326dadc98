package postgres

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
)

// proveTables proves tables with one prover in one proof transaction, as
// a read's first proof does, and returns the index of the first table
// refused (or len(tables)) with its error.
func proveTables(t *testing.T, e *Engine, tables []verifier.Table) (int, error) {
	t.Helper()
	ctx, cancel := opContext(context.Background())
	defer cancel()
	if err := e.start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := e.simple(ctx, beginProof+"; "+sessionSettings(ctx)); err != nil {
		t.Fatal(err)
	}
	defer func() {
		e.rollback()
		e.reset(ctx)
	}()
	p := newProver(e)
	for i, tb := range tables {
		if _, err := p.proveTable(ctx, tb); err != nil {
			return i, err
		}
	}
	return len(tables), nil
}

// execAdmin runs fixture statements and undoes them (undo) when the test
// ends.
func execAdmin(t *testing.T, do, undo string) {
	t.Helper()
	c := adminConn(t)
	if _, err := c.Exec(context.Background(), do); err != nil {
		t.Fatalf("fixture: %v", err)
	}
	t.Cleanup(func() {
		u := adminConn(t)
		if _, err := u.Exec(context.Background(), undo); err != nil {
			t.Errorf("undo fixture: %v", err)
		}
	})
}

// TestProofRelationBound pins maxProofRelations at its edge: one proof
// proves 64 distinct relations and refuses the 65th, and a relation proven
// again is not counted twice.
func TestProofRelationBound(t *testing.T) {
	e := openEngine(t, engines.Source{})
	var do strings.Builder
	tables := make([]verifier.Table, 0, maxProofRelations+1)
	for i := 1; i <= maxProofRelations+1; i++ {
		fmt.Fprintf(&do, "CREATE TABLE dbeast_pgengine.bound_%d (id int);\n", i)
		tables = append(tables, tbl(fmt.Sprintf("bound_%d", i)))
	}
	var undo strings.Builder
	for _, tb := range tables {
		fmt.Fprintf(&undo, "DROP TABLE IF EXISTS dbeast_pgengine.%s;\n", tb.Name)
	}
	execAdmin(t, do.String(), undo.String())

	cases := []struct {
		name    string
		tables  []verifier.Table
		refused int // index of the refused table, or -1
	}{
		{"64 relations", tables[:maxProofRelations], -1},
		{"64 relations, the first proven again", append(append([]verifier.Table(nil), tables[:maxProofRelations]...), tables[0]), -1},
		{"65 relations", tables, maxProofRelations},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			i, err := proveTables(t, e, c.tables)
			if c.refused < 0 {
				if err != nil {
					t.Fatalf("table %d refused: %v", i, err)
				}
				return
			}
			if i != c.refused {
				t.Fatalf("refused at table %d (%v), want %d", i, err, c.refused)
			}
			wantErr(t, err, engines.CodeIneligible, ReasonTooManyRelations)
		})
	}
}

// TestProofColumnBound pins the column bound at its edge: a table of
// exactly engines.MaxColumns columns is eligible (the fixture's wide, one
// more, is refused: TestDescribeRefused).
func TestProofColumnBound(t *testing.T) {
	cols := make([]string, engines.MaxColumns)
	for i := range cols {
		cols[i] = fmt.Sprintf("c%d int", i+1)
	}
	execAdmin(t, "CREATE TABLE dbeast_pgengine.wide_edge ("+strings.Join(cols, ", ")+")",
		"DROP TABLE IF EXISTS dbeast_pgengine.wide_edge")
	e := openEngine(t, engines.Source{})
	p, err := e.Describe(context.Background(), tbl("wide_edge"))
	if err != nil {
		t.Fatalf("describe: %v", err)
	}
	if len(p.Columns) != engines.MaxColumns {
		t.Fatalf("columns = %d, want %d", len(p.Columns), engines.MaxColumns)
	}
}

// TestProofColumnCollation checks the collation decision: a column with a
// built-in collation is eligible, one with a collation created after
// initdb is refused.
func TestProofColumnCollation(t *testing.T) {
	execAdmin(t, `CREATE COLLATION dbeast_pgengine.coll_user FROM "C";
CREATE TABLE dbeast_pgengine.coll_builtin (s text COLLATE "C", n text COLLATE "POSIX");
CREATE TABLE dbeast_pgengine.coll_custom (s text COLLATE dbeast_pgengine.coll_user)`,
		`DROP TABLE IF EXISTS dbeast_pgengine.coll_builtin, dbeast_pgengine.coll_custom;
DROP COLLATION IF EXISTS dbeast_pgengine.coll_user`)
	e := openEngine(t, engines.Source{})
	cases := []struct {
		name   string
		reason engines.Reason // "" when eligible
	}{
		{"coll_builtin", ""},
		{"coll_custom", ReasonColumnCollation},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := e.Describe(context.Background(), tbl(c.name))
			if c.reason == "" {
				if err != nil {
					t.Fatalf("describe: %v", err)
				}
				return
			}
			wantErr(t, err, engines.CodeIneligible, c.reason)
		})
	}
}
