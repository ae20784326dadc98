package conformance

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/corpus"
	"github.com/dbeast/dbeast/verifier/dialect"
)

// TestTokensRoundTrip pins that token pieces concatenate back to the
// input exactly, and that quoted text and comments stay one piece.
func TestTokensRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		want int
	}{
		{"SELECT a.b FROM main.t", 8},
		{"SELECT 'it''s -- x' , \"a\"\"b\" -- c\n FROM [x y]", 7},
		{"/* unterminated", 1},
		{"SELECT `a``b`/* c */1", 4},
		{"  ", 1},
		{"SELECT 'unterminated", 2},
	} {
		toks := tokens(tc.sql)
		if got := strings.Join(toks, ""); got != tc.sql {
			t.Errorf("%q: pieces join to %q", tc.sql, got)
		}
		if len(toks) != tc.want {
			t.Errorf("%q: %d pieces %q, want %d", tc.sql, len(toks), toks, tc.want)
		}
	}
}

// TestDdmin pins that delta debugging finds a 1-minimal failing subset.
func TestDdmin(t *testing.T) {
	toks := strings.Split("a b c d e f g h", " ")
	fails := func(ts []string) bool {
		j := strings.Join(ts, "")
		return strings.Contains(j, "c") && strings.Contains(j, "g")
	}
	got := windows(ddmin(toks, fails, 200), fails, 200)
	if !reflect.DeepEqual(got, []string{"c", "g"}) {
		t.Fatalf("got %q, want [c g]", got)
	}
}

// TestPlanCalls pins what counts as a function call in a deparsed
// PostgreSQL expression.
func TestPlanCalls(t *testing.T) {
	for _, tc := range []struct {
		expr string
		want []string
	}{
		{"lower(t1.name)", []string{".lower"}},
		{"dbeast_conf.lower(t1.name)", []string{"dbeast_conf.lower"}},
		{"COALESCE(t1.x, '0'::numeric)", nil},
		{"(t1.name = 'pg_sleep(0)'::text)", nil},
		{"\"LOWER\"(x)", []string{".LOWER"}},
		{"count(*), (SubPlan 1), ANY (x)", []string{".count"}},
		{"public.\"we\"\"ird\"(a)", []string{"public.we\"ird"}},
	} {
		f := &planFacts{relations: map[string]bool{}, functions: map[string]bool{}}
		f.calls(tc.expr)
		got := sortedKeys(f.functions)
		if len(got) == 0 {
			got = nil
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: got %q, want %q", tc.expr, got, tc.want)
		}
	}
}

// TestMyPlanNames pins how plan names (aliases) map back to tables.
func TestMyPlanNames(t *testing.T) {
	sql := "WITH `c1` AS (SELECT `t2`.`id` FROM `db`.`orders` AS `t2`) SELECT 1 FROM `c1` AS `q3` JOIN (SELECT 1) AS `d4` JOIN `secret` AS `s` JOIN db.x AS y"
	got := myPlanNames(sql, "db")
	want := map[string]string{"c1": "", "t2": "db.orders", "q3": "", "d4": "", "s": "db.secret", "y": "db.x"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for name, internal := range map[string]bool{"<derived2>": true, "<subquery3>": true, "<union1,2>": true, "<unit1,3,4>": true, "secret": false, "<secret>": false} {
		if myDerivedRE.MatchString(name) != internal {
			t.Errorf("%s: internal table %v, want %v", name, !internal, internal)
		}
	}
	if s := fixJSONEscapes(`{"a":"x = 'it\'s' \\ \" \u0041"}`); s != `{"a":"x = 'it's' \\ \" \u0041"}` {
		t.Fatalf("fixJSONEscapes: %s", s)
	}
}

// TestRegressionsParse pins that written regressions are valid corpus
// files with the expected directive.
func TestRegressionsParse(t *testing.T) {
	dir := t.TempDir()
	ds := []Disagreement{
		{Case: Case{SQL: "SELECT x\n----\nFROM t"}, Kind: KindCalledFunction, Problems: []Problem{{KindCalledFunction, "plan calls pg_sleep"}}},
		{Case: Case{SQL: "SELECT 1"}, Kind: KindRowsDiffer, ShrunkSQL: "SELECT 2", Problems: []Problem{{KindRowsDiffer, "1 rows vs 2 rows"}},
			ShrunkVerdict: &VerdictJSON{Tables: []string{"main.orders"}}},
	}
	if n, err := WriteRegressions(dir, "sqlite", "sqlite", ds); err != nil || n != 2 {
		t.Fatalf("WriteRegressions: %d, %v", n, err)
	}
	text, err := os.ReadFile(filepath.Join(dir, "sqlite.txt"))
	if err != nil {
		t.Fatal(err)
	}
	cs, err := corpus.Parse("sqlite.txt", string(text))
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || cs[0].Accept || cs[0].Code != "function_not_allowed" || cs[0].SQL != ds[0].Case.SQL ||
		!cs[1].Accept || cs[1].SQL != "SELECT 2" || !reflect.DeepEqual(cs[1].Tables, []string{"main.orders"}) {
		t.Fatalf("parsed %+v", cs)
	}
}

// TestStartsAsRead pins which refused texts may be tried on a server.
func TestStartsAsRead(t *testing.T) {
	for sql, want := range map[string]bool{
		"SELECT 1": true, " with x as (select 1) select 1": true, "(SELECT 1)": true,
		"KILL 1": false, "COPY t TO PROGRAM 'sh'": false, "SHUTDOWN": false, "/* x */ SELECT 1": false, "SELECTX": false,
	} {
		if got := startsAsRead(sql); got != want {
			t.Errorf("%q: %v", sql, got)
		}
	}
}

// TestRevive pins that a check connection the driver closed (as it does
// after a client-side timeout) is reopened instead of ending the run.
func TestRevive(t *testing.T) {
	for _, name := range []string{"mysql", "postgres"} {
		t.Run(name, func(t *testing.T) {
			e := openEngine(t, name)
			switch x := e.(type) {
			case *MySQL:
				x.conn.Close()
				x.probe.Close()
			case *Postgres:
				x.probe.Close(context.Background())
			}
			r := &Runner{Engine: e, Verify: dialect.Verify}
			cases := []Case{
				{Source: FromCorpus, Name: "accepted", SQL: "SELECT o.id FROM " + e.Schema() + ".orders AS o"},
				{Source: FromCorpus, Name: "over-refused", SQL: "SELECT id FROM orders"},
			}
			s, err := r.Run(context.Background(), cases)
			if err != nil {
				t.Fatal(err)
			}
			if s.Accepted != 1 || s.Refused != 1 || s.OverRefusals != 1 || len(s.Disagreements) != 0 {
				t.Fatalf("summary %+v", s)
			}
		})
	}
}
