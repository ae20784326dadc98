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

// TestColumnTypeObligations runs casts of columns to date/time types end
// to end (issue 31): the verifier accepts each with an obligation on the
// column's type, and the engine reads it, with the server's own rows,
// when the proven type is a date/time one, and refuses it when the column
// is text (whose zone names the date input function would cache), a
// domain over a date, or when a second table may supply the column with
// another type.
func TestColumnTypeObligations(t *testing.T) {
	a := adminConn(t)
	ctx := context.Background()
	if _, err := a.Exec(ctx, `
CREATE TABLE dbeast_pgengine.ct_orders (id int, created_at timestamptz, day date, at time, label text, amount numeric(7,2));
INSERT INTO dbeast_pgengine.ct_orders VALUES
 (1, '2024-01-31 23:30:00+00', '2024-01-31', '10:15', '2024-01-01', 1.25),
 (2, '2024-02-01 00:10:00+00', '2024-02-01', '23:59', 'Europe/Paris', 2.50);
CREATE DOMAIN dbeast_pgengine.ct_day AS date;
CREATE TABLE dbeast_pgengine.ct_dom (id int, d dbeast_pgengine.ct_day);
CREATE TABLE dbeast_pgengine.ct_text (id int, day text);`); err != nil {
		t.Fatal(err)
	}
	e := openEngine(t, engines.Source{})
	verify := func(t *testing.T, sql string) *verifier.Verdict {
		t.Helper()
		v, err := pgverify.Verify(verifier.Input{Dialect: verifier.Postgres, SQL: sql})
		if err != nil {
			t.Fatalf("%s: verify: %v", sql, err)
		}
		if len(v.ColumnTypes) == 0 {
			t.Fatalf("%s: verdict has no type obligation", sql)
		}
		return v
	}
	for _, sql := range []string{
		`SELECT id, created_at::date, CAST(created_at AS timestamp), day::timestamptz, at::time(0) FROM dbeast_pgengine.ct_orders ORDER BY id`,
		`SELECT o.id FROM dbeast_pgengine.ct_orders o, dbeast_pgengine.ct_text x WHERE x.id = o.id AND cast(created_at AS date) < cast('2024-02-01' AS date)`,
		`SELECT amount::float, day::text, count(*) FROM dbeast_pgengine.ct_orders GROUP BY amount, day, created_at::date ORDER BY 1`,
	} {
		v, err := pgverify.Verify(verifier.Input{Dialect: verifier.Postgres, SQL: sql})
		if err != nil {
			t.Errorf("%s: verify: %v", sql, err)
			continue
		}
		res, _, err := e.Read(ctx, engines.ReadRequest{Verdict: v})
		if err != nil {
			t.Errorf("%s: read: %v", sql, err)
			continue
		}
		_, want := enginetest.PostgresAnswer(t, a, sql)
		if diff := cmp.Diff(want, enginetest.RowLines(t, res.Rows)); diff != "" {
			t.Errorf("%s: rows (-server +engine):\n%s", sql, diff)
		}
	}
	for _, c := range []struct {
		name, sql string
		reason    engines.Reason
	}{
		{"a text column", `SELECT label::date FROM dbeast_pgengine.ct_orders`, ReasonColumnTypeMismatch},
		{"a name a text table shares", `SELECT day::date FROM dbeast_pgengine.ct_orders o, dbeast_pgengine.ct_text x WHERE x.id = o.id`, ReasonColumnTypeMismatch},
		{"a column no table has", `SELECT nope::date FROM dbeast_pgengine.ct_orders`, engines.ReasonColumnMissing},
		{"a name neither of two tables has", `SELECT nope::date FROM dbeast_pgengine.ct_orders o, dbeast_pgengine.ct_text x`, ReasonColumnTypeMismatch},
		// A domain column is refused by the proof itself, before any
		// obligation is looked at.
		{"a domain over date", `SELECT d::date FROM dbeast_pgengine.ct_dom`, ReasonColumnType},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := e.Read(ctx, engines.ReadRequest{Verdict: verify(t, c.sql)})
			wantErr(t, err, engines.CodeIneligible, c.reason)
		})
	}
}
