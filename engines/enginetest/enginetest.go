// Package enginetest is the contract suite every engine runs: the
// behaviour the broker relies on that does not depend on the database
// (listing, proving, exact-text reads, truncation, pins, read_only
// sources, single-statement full SQL).
//
// An engine's own test calls Run with a Harness that knows how to reach
// its database and quote identifiers in its dialect; the suite creates its
// fixture tables through the harness's admin handle (never through the
// engine under test) and builds verdicts by hand, so it does not depend on
// any verifier.
//
// It also holds what the engines' and the broker's TPC-H tests share: the
// generated dataset (TPCH), its loader for each dialect, the server's
// direct answer and the runner over the corpus's 22 queries (TPCHRun), so
// each of those tests keeps only how it reads.
package enginetest

import (
	"context"
	"errors"
	"testing"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
)

// Fixture table names. The harness's Setup creates both in Schema.
const (
	Items = "et_items" // columns id (integer key), name (text), big (64-bit integer)
	Other = "et_other" // column id (integer)
)

// Harness connects the suite to one engine. Every field is required.
type Harness struct {
	// Driver is the engine's driver.
	Driver engines.Driver
	// Dialect is the verifier dialect the verdicts are marked with.
	Dialect verifier.Dialect
	// Schema is the schema (SQLite "main", MySQL the database) the
	// fixture tables live in, as the engine reports it.
	Schema string
	// Source returns the source of the fixture database.
	Source func(t *testing.T, readOnly bool) engines.Source
	// Admin runs statements through a separate admin connection, failing
	// the test on error.
	Admin func(t *testing.T, stmts ...string)
	// Quote quotes an identifier in the dialect ("x" or `x`).
	Quote func(ident string) string
	// Setup drops and re-creates Items and Other and fills Items with
	// exactly (1, 'one', 9223372036854775807), (2, 'two', NULL),
	// (3, 'three', -1), and Other with (1). It must be idempotent.
	Setup []string
}

// Run runs the contract suite. Subtests run in order and each re-creates
// the fixture, so they can be run alone with -run.
func Run(t *testing.T, h Harness) {
	t.Helper()
	for _, c := range []struct {
		name string
		fn   func(*testing.T, Harness)
	}{
		{"ListTables", testListTables},
		{"Describe", testDescribe},
		{"ReadExact", testReadExact},
		{"ReadTruncated", testReadTruncated},
		{"PinAfterAlter", testPinAfterAlter},
		{"ReadOnlySource", testReadOnlySource},
		{"ExecOneStatement", testExecOne},
	} {
		t.Run(c.name, func(t *testing.T) {
			h.Admin(t, h.Setup...)
			c.fn(t, h)
		})
	}
}

func open(t *testing.T, h Harness, readOnly bool) engines.Engine {
	t.Helper()
	eng, err := h.Driver.Open(context.Background(), h.Source(t, readOnly))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := eng.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return eng
}

func (h Harness) table(name string) verifier.Table {
	return verifier.Table{Schema: h.Schema, Name: name}
}

func (h Harness) qualified(name string) string { return h.Quote(h.Schema) + "." + h.Quote(name) }

// readItems is a hand-built read verdict over Items.
func (h Harness) readItems(sqlText string, cols ...string) *verifier.Verdict {
	t := h.table(Items)
	return &verifier.Verdict{
		Dialect: h.Dialect, Mode: verifier.ModeRead, Op: verifier.OpRead,
		NormalizedSQL: sqlText, Tables: []verifier.Table{t},
		Columns: map[string][]string{t.String(): cols}, Functions: []string{},
	}
}

func (h Harness) selectItems(where string) string {
	s := "SELECT " + h.Quote("id") + ", " + h.Quote("name") + ", " + h.Quote("big") + " FROM " + h.qualified(Items)
	if where != "" {
		s += " WHERE " + where
	}
	return s + " ORDER BY " + h.Quote("id")
}

func wantCode(t *testing.T, err error, code engines.Code, reason engines.Reason) {
	t.Helper()
	var e *engines.Error
	if !errors.As(err, &e) {
		t.Fatalf("error = %v, want *engines.Error with code %s", err, code)
	}
	if e.Code != code || (reason != "" && e.Reason != reason) {
		t.Fatalf("error = %s/%q, want %s/%q", e.Code, e.Reason, code, reason)
	}
}

func testListTables(t *testing.T, h Harness) {
	eng := open(t, h, true)
	list, err := eng.ListTables(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for i, e := range list {
		if i > 0 && e.Table.Less(list[i-1].Table) {
			t.Fatalf("not sorted: %v before %v", list[i-1].Table, e.Table)
		}
		if e.Kind == "" {
			t.Fatalf("entry %v has no kind", e.Table)
		}
		found[e.Table.String()] = true
	}
	for _, n := range []string{Items, Other} {
		if !found[h.table(n).String()] {
			t.Errorf("%s missing from %v", h.table(n), list)
		}
	}
}

func testDescribe(t *testing.T, h Harness) {
	eng := open(t, h, true)
	p, err := eng.Describe(context.Background(), h.table(Items))
	if err != nil {
		t.Fatal(err)
	}
	if p.Table != h.table(Items) || p.Kind != "table" || p.Identity == "" {
		t.Fatalf("proof = %+v", p)
	}
	var names []string
	for _, c := range p.Columns {
		names = append(names, c.Name)
	}
	if len(names) != 3 || names[0] != "id" || names[1] != "name" || names[2] != "big" {
		t.Fatalf("columns = %v, want id name big", names)
	}
	_, err = eng.Describe(context.Background(), h.table("et_missing"))
	wantCode(t, err, engines.CodeIneligible, engines.ReasonNotFound)
}

func testReadExact(t *testing.T, h Harness) {
	eng := open(t, h, true)
	v := h.readItems(h.selectItems(h.Quote("id")+" IN (1, 2)"), "big", "id", "name")
	res, proofs, err := eng.Read(context.Background(), engines.ReadRequest{Verdict: v})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]any{{"1", "one", "9223372036854775807"}, {"2", "two", nil}}
	if len(res.Rows) != len(want) {
		t.Fatalf("rows = %v, want %v", res.Rows, want)
	}
	for i := range want {
		for j := range want[i] {
			if res.Rows[i][j] != want[i][j] {
				t.Fatalf("rows = %v, want %v", res.Rows, want)
			}
		}
	}
	if res.Truncated || len(res.Columns) != 3 || len(proofs) != 1 || proofs[0].Identity == "" {
		t.Fatalf("result %+v proofs %+v", res, proofs)
	}
}

func testReadTruncated(t *testing.T, h Harness) {
	eng := open(t, h, true)
	v := h.readItems(h.selectItems(""), "big", "id", "name")
	res, _, err := eng.Read(context.Background(), engines.ReadRequest{Verdict: v, Limits: engines.Limits{MaxRows: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 2 || !res.Truncated {
		t.Fatalf("rows=%d truncated=%v, want 2 true", len(res.Rows), res.Truncated)
	}
	res, _, err = eng.Read(context.Background(), engines.ReadRequest{Verdict: v, Limits: engines.Limits{MaxRows: 3}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 3 || res.Truncated {
		t.Fatalf("rows=%d truncated=%v, want 3 false", len(res.Rows), res.Truncated)
	}
}

func testPinAfterAlter(t *testing.T, h Harness) {
	v := h.readItems(h.selectItems(h.Quote("id")+" = 1"), "big", "id", "name")
	eng := open(t, h, true)
	_, proofs, err := eng.Read(context.Background(), engines.ReadRequest{Verdict: v})
	if err != nil {
		t.Fatal(err)
	}
	pins := map[string]string{h.table(Items).String(): proofs[0].Identity}
	if _, _, err := eng.Read(context.Background(), engines.ReadRequest{Verdict: v, Pins: pins}); err != nil {
		t.Fatalf("unchanged table: %v", err)
	}
	h.Admin(t, "ALTER TABLE "+h.qualified(Items)+" ADD COLUMN "+h.Quote("extra")+" INTEGER")
	eng2 := open(t, h, true)
	_, _, err = eng2.Read(context.Background(), engines.ReadRequest{Verdict: v, Pins: pins})
	wantCode(t, err, engines.CodeIdentityChanged, engines.ReasonIdentityChanged)
}

func testReadOnlySource(t *testing.T, h Harness) {
	eng := open(t, h, true)
	target := h.table(Items)
	w := &verifier.Verdict{
		Dialect: h.Dialect, Mode: verifier.ModeTableWrite, Op: verifier.OpDelete,
		NormalizedSQL: "DELETE FROM " + h.qualified(Items) + " WHERE " + h.Quote("id") + " = 1",
		Tables:        []verifier.Table{target}, Target: &target,
		Columns: map[string][]string{target.String(): {"id"}}, Functions: []string{},
	}
	_, err := eng.Write(context.Background(), w, engines.Limits{})
	wantCode(t, err, engines.CodeDenied, engines.ReasonReadOnlySource)
	_, err = eng.Exec(context.Background(), w.NormalizedSQL, engines.Limits{})
	wantCode(t, err, engines.CodeDenied, engines.ReasonReadOnlySource)
	check := open(t, h, false)
	res, _, err := check.Read(context.Background(), engines.ReadRequest{Verdict: h.readItems(h.selectItems(""), "big", "id", "name")})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 3 {
		t.Fatalf("%d rows after refused writes, want 3", len(res.Rows))
	}
}

func testExecOne(t *testing.T, h Harness) {
	eng := open(t, h, false)
	upd := "UPDATE " + h.qualified(Items) + " SET " + h.Quote("name") + " = 'uno' WHERE " + h.Quote("id") + " = 1"
	res, err := eng.Exec(context.Background(), upd, engines.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if res.AffectedRows == nil || *res.AffectedRows != 1 {
		t.Fatalf("affected = %v, want 1", res.AffectedRows)
	}
	sel, err := eng.Exec(context.Background(), h.selectItems(h.Quote("id")+" = 1"), engines.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sel.Rows) != 1 || sel.Rows[0][1] != "uno" {
		t.Fatalf("rows = %v", sel.Rows)
	}
	two := "DELETE FROM " + h.qualified(Other) + "; DELETE FROM " + h.qualified(Items)
	if _, err := eng.Exec(context.Background(), two, engines.Limits{}); err == nil {
		t.Fatal("two statements ran")
	}
	eng2 := open(t, h, true)
	for _, n := range []string{Items, Other} {
		tb := h.table(n)
		v := &verifier.Verdict{Dialect: h.Dialect, Mode: verifier.ModeRead, Op: verifier.OpRead,
			NormalizedSQL: "SELECT " + h.Quote("id") + " FROM " + h.qualified(n),
			Tables:        []verifier.Table{tb}, Columns: map[string][]string{tb.String(): {"id"}}, Functions: []string{}}
		res, _, err := eng2.Read(context.Background(), engines.ReadRequest{Verdict: v})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Rows) == 0 {
			t.Fatalf("%s was emptied by a refused second statement", n)
		}
	}
}
