package postgres

import (
	"strings"
	"testing"

	"github.com/dbeast/dbeast/verifier"
	"github.com/google/go-cmp/cmp"
)

// TestKeywordNames uses every keyword of the grammar as every kind of
// name the printer writes (schema, table, alias, column, output name, CTE
// and CTE column, write target and assigned column): each statement must
// be accepted, print the name bare exactly when quote_identifier would
// (an unreserved keyword) and verify again to the same verdict.
func TestKeywordNames(t *testing.T) {
	if len(keywords) < 400 {
		t.Fatalf("only %d keywords", len(keywords))
	}
	for kw, cat := range keywords {
		q := `"` + kw + `"`
		want := q
		if cat == kwUnreserved {
			want = kw
		}
		for _, in := range []verifier.Input{
			{SQL: "SELECT " + q + "." + q + " AS " + q + " FROM " + q + "." + q + " " + q},
			{SQL: "WITH " + q + "(" + q + ") AS (SELECT 1) SELECT x." + q + " FROM " + q + " x"},
			{SQL: "UPDATE " + q + "." + q + " AS " + q + " SET " + q + " = " + q + "." + q + " WHERE " + q + "." + q + " = 1", Mode: verifier.ModeTableWrite},
			{SQL: "INSERT INTO " + q + "." + q + " (" + q + ") VALUES (1)", Mode: verifier.ModeTableWrite},
		} {
			v, err := Verify(in)
			if err != nil {
				t.Errorf("%s: %v", in.SQL, err)
				continue
			}
			printed := strings.ReplaceAll(in.SQL, q, want)
			if v.NormalizedSQL != printed {
				t.Errorf("%s printed as %s, want %s", in.SQL, v.NormalizedSQL, printed)
			}
			in.SQL = v.NormalizedSQL
			v2, err := Verify(in)
			if err != nil {
				t.Errorf("normalized %s: %v", in.SQL, err)
				continue
			}
			if diff := cmp.Diff(v, v2); diff != "" {
				t.Errorf("normalized %s verifies differently:\n%s", in.SQL, diff)
			}
		}
	}
}

// TestPrintUnknownNode: a node the printer does not know is an error, so
// a walker that let a new node type through would still get a refusal.
func TestPrintUnknownNode(t *testing.T) {
	res, stmt, err := parseOne("SELECT ARRAY[1] FROM public.t")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := printStmt(stmt); err == nil {
		t.Errorf("ARRAY[…] printed")
	}
	if _, err := normalize(res, stmt, "SELECT ARRAY[1] FROM public.t"); err == nil {
		t.Errorf("normalize accepted an unprintable tree")
	}
	_, stmt, err = parseOne("CREATE TABLE public.x (a int)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := printStmt(stmt); err == nil {
		t.Errorf("CREATE TABLE printed")
	}
}
