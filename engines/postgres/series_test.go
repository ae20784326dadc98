package postgres

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/engines/enginetest"
	"github.com/dbeast/dbeast/verifier"
	pgverify "github.com/dbeast/dbeast/verifier/postgres"
)

// seriesSchema is the private schema of TestCalendarSpine.
const seriesSchema = "dbeast_series"

// TestCalendarSpine runs the bounded generate_series of
// verifier/postgres/series.go (issue 31) through the verified-read path
// and pins its semantics against the server: each read returns the rows
// the server gives the text, with the row count the verifier proved a
// bound for, and the same rows whatever the session's TimeZone (the
// timestamp variant does no zone arithmetic). The neighbour the verifier
// refuses, date bounds, is shown to be zone-dependent on the server.
func TestCalendarSpine(t *testing.T) {
	admin := adminConn(t)
	ctx := context.Background()
	if _, err := admin.Exec(ctx, `DROP SCHEMA IF EXISTS `+seriesSchema+` CASCADE;
CREATE SCHEMA `+seriesSchema+`;
CREATE TABLE `+seriesSchema+`.orders (id int PRIMARY KEY, created_at timestamp NOT NULL, amount numeric(10,2) NOT NULL);
INSERT INTO `+seriesSchema+`.orders VALUES
  (1, '2024-03-01 09:00', 10.50), (2, '2024-03-01 23:59:59', 4.00), (3, '2024-03-10 02:30', 7.25),
  (4, '2024-03-31 12:00', 1.00), (5, '2024-04-01 00:00', 99.00);
CREATE TABLE `+seriesSchema+`.one (x int);
INSERT INTO `+seriesSchema+`.one VALUES (1);`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Exec(context.Background(), `DROP SCHEMA IF EXISTS `+seriesSchema+` CASCADE`) })
	read := enginetest.VerifiedRead(openEngine(t, engines.Source{}), func(sql string) (*verifier.Verdict, error) {
		return pgverify.Verify(verifier.Input{Dialect: verifier.Postgres, SQL: sql})
	})
	// A verified read names a physical table (the engine refuses one
	// without), so the spines without orders cross one one-row table.
	one := ", " + seriesSchema + ".one"
	tests := []struct {
		name  string
		sql   string
		rows  int    // rows the server returns
		first string // the first row line, sorted ("" for none)
	}{
		{"a month of days joined to orders, empty days included",
			`SELECT g.day::date AS day, count(o.id) AS orders, coalesce(sum(o.amount), 0) AS total FROM generate_series(timestamp '2024-03-01', timestamp '2024-03-31', interval '1 day') AS g(day) LEFT JOIN ` + seriesSchema + `.orders o ON o.created_at >= g.day AND o.created_at < g.day + interval '1 day' GROUP BY g.day ORDER BY g.day`,
			31, `"2024-03-01","2","14.50"`},
		{"hours across the US and EU DST change are 24 a day",
			`SELECT count(*) FROM generate_series(timestamp '2024-03-10', timestamp '2024-03-31 23:00:00', interval '1 hour') g(h)` + one,
			1, `"528"`},
		{"a month step from the 31st sticks to the shortened day",
			`SELECT d FROM generate_series(timestamp '2024-01-31', timestamp '2024-12-31', interval '1 month') g(d)` + one,
			12, `"2024-01-31 00:00:00"`},
		{"10000 rows is the bound and is reached",
			`SELECT count(*), min(d), max(d) FROM generate_series(timestamp '2000-01-01', timestamp '2027-05-18', interval '1 day') g(d)` + one,
			1, `"10000","2000-01-01 00:00:00","2027-05-18 00:00:00"`},
		{"a stop before the start makes no rows",
			`SELECT d FROM generate_series(timestamp '2024-12-31', timestamp '2024-01-01', interval '1 day') g(d)` + one,
			0, ""},
		{"a year step from the 29th of February",
			`SELECT y.d FROM generate_series(timestamp '2024-02-29', timestamp '2028-03-01', interval '1 year') y(d)` + one,
			5, `"2024-02-29 00:00:00"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantCols, wantRows := enginetest.PostgresAnswer(t, admin, tt.sql)
			res := read(t, tt.sql)
			if diff := cmp.Diff(wantCols, res.Columns); diff != "" {
				t.Errorf("columns (-server +read):\n%s", diff)
			}
			got := enginetest.RowLines(t, res.Rows)
			if diff := cmp.Diff(wantRows, got); diff != "" {
				t.Errorf("rows (-server +read):\n%s", diff)
			}
			if len(got) != tt.rows {
				t.Errorf("%d rows, want %d", len(got), tt.rows)
			}
			if tt.first != "" && (len(got) == 0 || got[0] != tt.first) {
				t.Errorf("first row %q, want %q", strings.Join(got[:min(1, len(got))], ""), tt.first)
			}
			// The same text under another TimeZone gives the same rows.
			if _, err := admin.Exec(ctx, "SET TIME ZONE 'America/New_York'"); err != nil {
				t.Fatal(err)
			}
			_, zoned := enginetest.PostgresAnswer(t, admin, tt.sql)
			if _, err := admin.Exec(ctx, "RESET TIME ZONE"); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(wantRows, zoned); diff != "" {
				t.Errorf("rows depend on the TimeZone (-default +New York):\n%s", diff)
			}
		})
	}
	// The refused neighbour: date bounds pick the timestamptz variant,
	// whose values move with the session's TimeZone.
	const dated = `SELECT d FROM generate_series(date '2024-03-09', date '2024-03-12', interval '1 day') g(d)`
	if _, err := pgverify.Verify(verifier.Input{Dialect: verifier.Postgres, SQL: dated}); err == nil {
		t.Fatalf("date bounds accepted")
	}
	var zoned [2][]string
	for i, tz := range []string{"UTC", "America/New_York"} {
		if _, err := admin.Exec(ctx, "SET TIME ZONE '"+tz+"'"); err != nil {
			t.Fatal(err)
		}
		_, zoned[i] = enginetest.PostgresAnswer(t, admin, dated)
	}
	if _, err := admin.Exec(ctx, "RESET TIME ZONE"); err != nil {
		t.Fatal(err)
	}
	if cmp.Equal(zoned[0], zoned[1]) {
		t.Errorf("date bounds gave the same rows in UTC and New York (%v): the refusal's reason no longer holds", zoned[0])
	}
}
