package postgres

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"
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

// TestTempFileLimitForGrantedRole: on PostgreSQL 15+, a role that is no
// superuser but was granted SET on temp_file_limit gets the read's bound
// (the engine's statement, run in a transaction as that role, sets it to
// 256MB, and a verified read as that role succeeds with it in place),
// and its source's connection test carries no warning; a role without the
// grant gets neither the bound nor an error, and its connection test
// warns (ReasonNoTempFileLimit). Before, only a superuser got the bound
// and no source said it had none.
func TestTempFileLimitForGrantedRole(t *testing.T) {
	a := adminConn(t)
	if v := scalar(t, a, `SELECT pg_catalog.current_setting('temp_file_limit')`); v != "-1" {
		t.Skipf("the server limits temporary files itself (%s)", v)
	}
	major, _ := serverMajor(scalar(t, a, `SELECT pg_catalog.current_setting('server_version')`))
	ctx := context.Background()
	for _, c := range []struct {
		role    string
		granted bool
	}{{"dbeast_cost_tfl_granted", true}, {"dbeast_cost_tfl_plain", false}} {
		t.Run(c.role, func(t *testing.T) {
			if c.granted && major < grantedParameterMajor {
				t.Skip("parameter privileges need PostgreSQL 15")
			}
			src := advRoleSource(t, c.role, c.role)
			if c.granted {
				advExec(t, `GRANT SET ON PARAMETER temp_file_limit TO `+c.role)
				advCleanup(t, `REVOKE SET ON PARAMETER temp_file_limit FROM `+c.role)
			}
			conn, err := pgx.Connect(ctx, src.DSN)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			tx, err := conn.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			e := advOpen(t, src)
			stmt := e.tempFileLimitSQL()
			if _, err := tx.Exec(ctx, stmt); err != nil {
				t.Fatalf("the engine's temp_file_limit statement: %v", err)
			}
			var got string
			if err := tx.QueryRow(ctx, "SHOW temp_file_limit").Scan(&got); err != nil {
				t.Fatal(err)
			}
			tx.Rollback(ctx)
			if want := map[bool]string{true: "256MB", false: "-1"}[c.granted]; got != want {
				t.Errorf("temp_file_limit in the read's transaction = %s, want %s", got, want)
			}
			mustRead(t, src, pointRead())

			warnings, err := e.HealthWarnings(ctx)
			if err != nil {
				t.Fatal(err)
			}
			e.Close()
			if warned := slices.Contains(warnings, ReasonNoTempFileLimit); warned == c.granted {
				t.Errorf("health warnings %q for a role granted SET: %v", warnings, c.granted)
			}
		})
	}
	// The test account (a superuser here) is bounded and not warned.
	if scalar(t, a, `SELECT pg_catalog.current_setting('is_superuser')`) == "on" {
		e := openEngine(t, engines.Source{})
		if w, err := e.HealthWarnings(ctx); err != nil || len(w) != 0 {
			t.Errorf("superuser health warnings %q, %v", w, err)
		}
	}
}
