package conformance

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/dbeast/dbeast/verifier"
	"github.com/jackc/pgx/v5/pgconn"
)

// pgVerdictFixture returns the statements creating the restricted roles
// (restricted.go): one NOLOGIN role per subset of the fixture tables. The
// check connection switches to one with SET LOCAL ROLE.
func pgVerdictFixture() []string {
	var out []string
	tables := verdictTables()
	for mask := 0; mask < 1<<len(tables); mask++ {
		r := verdictAccount(mask)
		out = append(out,
			`DO $r$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '`+r+`') THEN CREATE ROLE `+r+` NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE; END IF; END$r$`,
			"GRANT USAGE ON SCHEMA "+PGSchema+" TO "+r)
		for i, t := range tables {
			if mask&(1<<i) != 0 {
				out = append(out, "GRANT SELECT ON "+PGSchema+"."+t.Name+" TO "+r)
			}
		}
	}
	return out
}

// restricted runs v's normalized SQL under the role granted exactly v's
// tables, with the fixture schema on the search path, and returns the
// problem a denial (42501) shows, if any. prefix is sent in the same round
// trip before the transaction begins (the caller's "ROLLBACK; "); it is
// sent even when v is not checked this way.
func (e *Postgres) restricted(ctx context.Context, v *verifier.Verdict, prefix string) (*Problem, error) {
	mask, ok := verdictMask(v, PGSchema)
	if !ok {
		if prefix != "" {
			if _, err := e.conn.Exec(ctx, strings.TrimSuffix(prefix, "; ")); err != nil {
				return nil, fmt.Errorf("conformance: postgres rollback: %w", err)
			}
		}
		return nil, nil
	}
	tx := e.conn
	if _, err := tx.Exec(ctx, prefix+"BEGIN READ ONLY; SET LOCAL ROLE "+verdictAccount(mask)+"; SET LOCAL search_path = pg_catalog, "+PGSchema+"; SET LOCAL statement_timeout = '5s'"); err != nil {
		if !tx.IsClosed() {
			tx.Exec(context.Background(), "ROLLBACK")
		}
		return nil, fmt.Errorf("conformance: postgres restricted setup: %w", err)
	}
	defer func() {
		if !tx.IsClosed() {
			tx.Exec(context.Background(), "ROLLBACK")
		}
	}()
	_, rerr := pgRows(ctx, tx, v.NormalizedSQL)
	var pe *pgconn.PgError
	if errors.As(rerr, &pe) && pe.Code == "42501" {
		return &Problem{KindTouchedTable, "a role granted only [" + strings.Join(v.TableNames(), ", ") + "] was denied: " + pe.Message}, nil
	}
	return nil, nil
}
