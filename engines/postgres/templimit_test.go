package postgres

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
	"github.com/dbeast/dbeast/verifier/dialect"
)

// TestReadTempFileLimit reads, as the test server's superuser, a query the
// verifier accepts whose running string_agg over 300 rows of 10 KB makes
// the final sort spill about 450 MB: the read's temp_file_limit (256 MB)
// must stop it with the server's configuration-limit error (53400). The
// server's own setting is unlimited, so without the engine's limit the
// read runs to the end.
func TestReadTempFileLimit(t *testing.T) {
	a := adminConn(t)
	if scalar(t, a, `SELECT pg_catalog.current_setting('is_superuser')`) != "on" {
		t.Skip("the test account is not a superuser; the engine sets temp_file_limit only for one")
	}
	if v := scalar(t, a, `SELECT pg_catalog.current_setting('temp_file_limit')`); v != "-1" {
		t.Skipf("the server limits temporary files itself (%s)", v)
	}
	plant(t, []string{`CREATE SCHEMA dbeast_tfl`,
		`CREATE TABLE dbeast_tfl.big AS SELECT g AS id, pg_catalog.repeat(pg_catalog.md5(g::text), 313) AS s FROM pg_catalog.generate_series(1, 300) g`},
		[]string{`DROP SCHEMA IF EXISTS dbeast_tfl CASCADE`})
	v, err := dialect.Verify(verifier.Input{Dialect: verifier.Postgres, Mode: verifier.ModeRead,
		SQL: `SELECT length(q.w) FROM (SELECT string_agg(b.s, '') OVER (ORDER BY b.id) AS w FROM dbeast_tfl.big b) q ORDER BY q.w DESC`})
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	e := openEngine(t, engines.Source{})
	res, _, err := e.Read(context.Background(), engines.ReadRequest{Verdict: v})
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "53400" {
		t.Fatalf("read = %v, %v; want the temp_file_limit error (53400)", res, err)
	}
}
