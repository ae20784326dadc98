package broker

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/verifier"
	"github.com/dbeast/dbeast/verifier/dialect"
)

// TestRefusalErrorNamesConstructOffsetAndHint pins the agent's error for a
// verifier refusal on every dialect (issue 31): the static message, the
// construct from the verifier's fixed vocabulary, the byte offset and the
// dialect's safe spelling where one exists. A function the vocabulary
// does not know is "function", never the name the agent wrote.
func TestRefusalErrorNamesConstructOffsetAndHint(t *testing.T) {
	for _, c := range []struct {
		d    verifier.Dialect
		sql  string
		want string
	}{
		{verifier.SQLite, "SELECT char_length(name) FROM main.customers",
			"the function is not on the list of allowed functions: char_length at byte offset 7; use length(x) (the server instructions list the allowed functions per engine)"},
		{verifier.SQLite, "SELECT id FROM main.t WHERE zz_made_up(id)",
			"the function is not on the list of allowed functions: function at byte offset 28 (the server instructions list the allowed functions per engine)"},
		{verifier.SQLite, "SELECT CAST(id AS FLOAT) FROM main.t",
			"casts are not allowed: float at byte offset 18; CAST to INTEGER, REAL, TEXT or NUMERIC"},
		{verifier.Postgres, "SELECT ifnull(a, 0) FROM public.t",
			"the function is not on the list of allowed functions: ifnull at byte offset 7; use coalesce(x, y) (the server instructions list the allowed functions per engine)"},
		// A column's cast to date carries a type obligation; a derived
		// table's output, whose type the verifier does not follow, is
		// refused.
		{verifier.Postgres, "SELECT s.x::date FROM (SELECT created_at AS x FROM public.t) AS s",
			"casts are not allowed: date at byte offset 10; use date_trunc('day', x), or CAST a date/time column"},
		{verifier.Postgres, "SELECT a FROM t",
			"physical tables must be written as schema.table: table name at byte offset 14; write schema.table, for example public.orders"},
		{verifier.MySQL, "SELECT id, SYSDATE() FROM shop.t",
			"the function is not on the list of allowed functions: sysdate at byte offset 11; use NOW() (the server instructions list the allowed functions per engine)"},
		{verifier.MySQL, "SELECT @v FROM shop.t",
			"variables are not allowed: variable at byte offset 7"},
	} {
		_, err := dialect.Verify(verifier.Input{Dialect: c.d, SQL: c.sql, Database: "shop"})
		if err == nil {
			t.Errorf("%s: %s accepted", c.d, c.sql)
			continue
		}
		te := refusal(err, CodeUnsupportedSafeRead)
		if te.Code != CodeUnsupportedSafeRead || te.Message != c.want {
			t.Errorf("%s: %s\n got %q\nwant %q", c.d, c.sql, te.Message, c.want)
		}
		if strings.Contains(te.Message, "zz_made_up") {
			t.Errorf("%s: the agent's function name was echoed: %q", c.d, te.Message)
		}
	}
}

// TestQuerySQLRefusalReachesAgent runs one refusal through query_sql on a
// SQLite source: the MCP tool error the agent gets carries the construct,
// the offset and the safe spelling.
func TestQuerySQLRefusalReachesAgent(t *testing.T) {
	e := newReqEnv(t, false)
	a := e.agent("refusal")
	e.share(a.connID, LevelRead)
	m, code := a.call("query_sql", map[string]any{"source_id": e.srcID, "sql": "SELECT current_timestamp FROM main.items"})
	raw, _ := json.Marshal(m)
	if code != CodeUnsupportedSafeRead || !strings.Contains(string(raw), "current_timestamp at byte offset 7; use datetime('now')") {
		t.Errorf("query_sql: %s %s", code, raw)
	}
}
