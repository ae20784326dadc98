package postgres

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/engines/enginetest"
	"github.com/dbeast/dbeast/verifier"
	pgverify "github.com/dbeast/dbeast/verifier/postgres"
)

// TestJSONArrayLength runs json_array_length and jsonb_array_length
// (issue 31) through the verified-read path: the engine proves both names
// resolve to the built-ins and the rows are the server's, NULL for a
// missing field included.
func TestJSONArrayLength(t *testing.T) {
	a := adminConn(t)
	e := openEngine(t, engines.Source{})
	sql := `SELECT v.id, jsonb_array_length(v.j -> 'a'), json_array_length((v.j -> 'a')::json) FROM dbeast_pgengine.vals v ORDER BY v.id`
	v, err := pgverify.Verify(verifier.Input{Dialect: verifier.Postgres, SQL: sql})
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	res, _, err := e.Read(context.Background(), engines.ReadRequest{Verdict: v})
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	_, want := enginetest.PostgresAnswer(t, a, sql)
	if diff := cmp.Diff([]string{`"1","2","2"`, `"2",NULL,NULL`}, want); diff != "" {
		t.Fatalf("server answer (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, enginetest.RowLines(t, res.Rows)); diff != "" {
		t.Errorf("rows (-server +engine):\n%s", diff)
	}
}
