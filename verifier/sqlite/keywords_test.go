package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"sort"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/corpus"
	"github.com/dbeast/dbeast/verifier"
)

// keywordPlaces are the places a keyword may be written as a name: a bare
// column, bare and AS aliases of a column and of a table, a CTE name, a
// qualifier, a window name. K stands for the keyword.
var keywordPlaces = []string{
	`SELECT K FROM main.kw`,
	`SELECT x K FROM main.kw`,
	`SELECT x AS K FROM main.kw`,
	`SELECT K.x FROM main.kw K`,
	`SELECT K.x FROM main.kw AS K`,
	`SELECT x FROM main.kw WHERE K = 1 ORDER BY K`,
	`SELECT kw.K FROM main.kw`,
	`WITH K AS (SELECT x FROM main.kw) SELECT x FROM K`,
	`SELECT K(x) FROM main.kw`,
	`SELECT CASE K WHEN 1 THEN K ELSE K END FROM main.kw`,
	`SELECT max(x) OVER K FROM main.kw WINDOW K AS (ORDER BY x)`,
	`SELECT x FROM main.kw LIMIT 1 OFFSET K`,
}

// TestKeywordsAsNamesAgreeWithSQLite pins that the parser reads a keyword
// as a name exactly where SQLite does: for every keyword of SQLite's
// keyword table in every place of keywordPlaces, the verifier accepts the
// query if and only if the real SQLite (modernc) prepares it, and what it
// accepts prepares after normalization too. The only allowed difference
// is the verifier's own refusal of a function SQLite would call
// (CURRENT_DATE and friends, or a keyword called like a function that is
// not on the list).
func TestKeywordsAsNamesAgreeWithSQLite(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("sqlite", "file:sqlitekeywords?mode=memory&cache=private&_dqs=0")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	var kws []string
	for k := range keywords {
		kws = append(kws, k)
	}
	sort.Strings(kws)
	cols := []string{"x"}
	for _, k := range kws {
		cols = append(cols, `"`+strings.ToLower(k)+`"`)
	}
	if _, err := db.ExecContext(ctx, "CREATE TABLE kw ("+strings.Join(cols, ", ")+")"); err != nil {
		t.Fatal(err)
	}
	accepted := map[string]int{}
	for _, k := range kws {
		for _, place := range keywordPlaces {
			q := strings.ReplaceAll(place, "K", strings.ToLower(k))
			st, serr := db.PrepareContext(ctx, q)
			if serr == nil {
				st.Close()
			}
			v, verr := Verify(verifier.Input{Dialect: verifier.SQLite, SQL: q})
			if verr == nil {
				if place == keywordPlaces[2] {
					accepted[k]++
				}
				if serr != nil {
					t.Errorf("%s: verifier accepts, SQLite refuses: %v", q, serr)
					continue
				}
				st, err := db.PrepareContext(ctx, v.NormalizedSQL)
				if err != nil {
					t.Errorf("%s: normalized %s does not prepare: %v", q, v.NormalizedSQL, err)
					continue
				}
				st.Close()
				continue
			}
			var ref *verifier.Refusal
			if !errors.As(verr, &ref) {
				t.Fatalf("%s: %v", q, verr)
			}
			if serr == nil && ref.Code != verifier.CodeFunctionNotAllowed {
				t.Errorf("%s: SQLite prepares it, the verifier refuses: %s", q, ref.Code)
			}
		}
	}
	// After AS (parse.y's nm) every fallback keyword, JOIN_KW word and
	// context keyword is a name, a reserved keyword is not.
	for _, k := range kws {
		nameable := fallbackID[k] || joinWords[k] || k == "INDEXED" || k == "WINDOW" || k == "OVER" || k == "FILTER"
		if nameable != (accepted[k] > 0) {
			t.Errorf("keyword %s after AS: accepted %v, want %v", k, accepted[k] > 0, nameable)
		}
	}
	if n := len(fallbackID); n < 70 {
		t.Errorf("only %d fallback keywords", n)
	}

	// The corpus's keyword cases parse on SQLite exactly when accepted.
	if _, err := db.ExecContext(ctx, "CREATE TABLE orders (id, "+strings.Join(cols[1:], ", ")+")"); err != nil {
		t.Fatal(err)
	}
	cases, err := corpus.Load("sqlite")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range cases {
		if c.File != "keywords.txt" {
			continue
		}
		n++
		st, serr := db.PrepareContext(ctx, c.SQL)
		if serr == nil {
			st.Close()
		}
		if c.Accept != (serr == nil) && c.Code != string(verifier.CodeFunctionNotAllowed) {
			t.Errorf("%s: %s: corpus accept=%v, SQLite prepares: %v", c.Name(), c.SQL, c.Accept, serr)
		}
	}
	if n < 90 {
		t.Errorf("only %d keyword corpus cases", n)
	}
}
