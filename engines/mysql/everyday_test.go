package mysql

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
	myverify "github.com/dbeast/dbeast/verifier/mysql"
	gomysql "github.com/go-sql-driver/mysql"
)

// everydayDB is the scratch database of TestReadPinsTimeNamesAndZone.
const everydayDB = "dbeast_myeveryday"

// TestReadPinsTimeNamesAndZone pins the session settings the everyday
// date functions of issue 31 depend on: a connection whose session starts
// with another lc_time_names and time_zone (here from the source's DSN,
// as full SQL on a pooled connection could leave them) still reads day and
// month names in English (DAYNAME, MONTHNAME, DATE_FORMAT's %W %M,
// STR_TO_DATE's %M) and UNIX_TIMESTAMP in the server's global zone.
func TestReadPinsTimeNamesAndZone(t *testing.T) {
	needServer(t)
	ctx := context.Background()
	for _, s := range []string{
		"DROP DATABASE IF EXISTS " + everydayDB, "CREATE DATABASE " + everydayDB,
		"CREATE TABLE " + everydayDB + ".t (d DATETIME, s VARCHAR(20))",
		"INSERT INTO " + everydayDB + ".t VALUES ('2024-01-01 00:00:00', 'Dezember 5 2024')",
	} {
		adminExec(t, s)
	}
	t.Cleanup(func() { _, _ = admin.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+everydayDB) })
	var want int64
	if err := admin.QueryRowContext(ctx, "SELECT UNIX_TIMESTAMP(CONVERT_TZ('2024-01-01 00:00:00', @@session.time_zone, @@global.time_zone))").Scan(&want); err != nil {
		t.Fatal(err)
	}
	cfg, err := gomysql.ParseDSN(os.Getenv(dsnVar))
	if err != nil {
		t.Fatal(err)
	}
	cfg.DBName = everydayDB
	cfg.Params = map[string]string{"lc_time_names": "'de_DE'", "time_zone": "'+05:00'"}
	eng := openSource(t, engines.Source{Kind: engines.MySQL, DSN: cfg.FormatDSN()})
	q := "SELECT DAYNAME(d), MONTHNAME(d), DATE_FORMAT(d, '%W %M'), STR_TO_DATE(s, '%M %d %Y'), UNIX_TIMESTAMP(d) FROM " + everydayDB + ".t"
	v, err := myverify.Verify(verifier.Input{Dialect: verifier.MySQL, SQL: q, Database: everydayDB, Flavor: verifierFlavor()})
	if err != nil {
		t.Fatal(err)
	}
	res, _, err := eng.Read(ctx, engines.ReadRequest{Verdict: v})
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(res.Rows)
	// STR_TO_DATE reads only English names under en_US: 'Dezember' is NULL.
	if w := fmt.Sprintf("[[Monday January Monday January <nil> %d]]", want); got != w {
		t.Errorf("rows = %s, want %s", got, w)
	}
}

// TestEverydayFunctionsMatchServer runs each everyday function of issue 31
// through the verified-read path, on rows with NULLs, and compares the
// rows with the server's answer to the agent's text on a plain session:
// NULL handling, TIMESTAMPDIFF's whole units and YEARWEEK's mode 0 (the
// engine's session says default_week_format=3, which YEARWEEK without a
// mode ignores) are the server's own.
func TestEverydayFunctionsMatchServer(t *testing.T) {
	needServer(t)
	ctx := context.Background()
	for _, s := range []string{
		"DROP DATABASE IF EXISTS " + everydayDB, "CREATE DATABASE " + everydayDB,
		"CREATE TABLE " + everydayDB + ".t (id INT, a DATETIME, b DATETIME, s VARCHAR(40), n INT)",
		"INSERT INTO " + everydayDB + ".t VALUES (1, '2024-01-31 10:00:00', '2024-02-29 09:59:59', 'a.b.c', 0), (2, NULL, '2024-12-30 00:00:00', NULL, NULL), (3, '1969-12-31 23:59:59', NULL, '2024-13-01', 5)",
	} {
		adminExec(t, s)
	}
	t.Cleanup(func() { _, _ = admin.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+everydayDB) })
	cfg, err := gomysql.ParseDSN(os.Getenv(dsnVar))
	if err != nil {
		t.Fatal(err)
	}
	cfg.DBName = everydayDB
	cfg.Params = map[string]string{"default_week_format": "3"}
	eng := openSource(t, engines.Source{Kind: engines.MySQL, DSN: cfg.FormatDSN()})
	from := " FROM " + everydayDB + ".t ORDER BY id"
	for _, q := range []string{
		"SELECT IF(n > 1, 'big', 'small'), IF(n, s, NULL), IFNULL(s, 'none'), IFNULL(n, a)",
		"SELECT TIMESTAMPDIFF(MONTH, a, b), TIMESTAMPDIFF(DAY, a, b), TIMESTAMPDIFF(SECOND, b, a), TIMESTAMPDIFF(YEAR, a, b)",
		"SELECT YEARWEEK(a), YEARWEEK(b), YEARWEEK(b, 3), YEARWEEK(a, 7)",
		"SELECT DAYNAME(a), MONTHNAME(b), DATE_FORMAT(a, '%W %M %a %b %D %j')",
		"SELECT UNIX_TIMESTAMP(a), UNIX_TIMESTAMP(b), UNIX_TIMESTAMP(s)",
		"SELECT STR_TO_DATE(s, '%Y-%m-%d'), STR_TO_DATE('31/01/2024 10:05', '%d/%m/%Y %H:%i'), STR_TO_DATE(s, '%M')",
		"SELECT SUBSTRING_INDEX(s, '.', 2), SUBSTRING_INDEX(s, '.', -1), SUBSTRING_INDEX(s, '.', n), SUBSTRING_INDEX(s, '', 1)",
	} {
		v, err := myverify.Verify(verifier.Input{Dialect: verifier.MySQL, SQL: q + from, Database: everydayDB, Flavor: verifierFlavor()})
		if err != nil {
			t.Errorf("%s: verify: %v", q, err)
			continue
		}
		res, _, err := eng.Read(ctx, engines.ReadRequest{Verdict: v})
		if err != nil {
			t.Errorf("%s: read: %v", q, err)
			continue
		}
		rows, err := admin.QueryContext(ctx, q+from)
		if err != nil {
			t.Fatal(err)
		}
		var want [][]any
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for i, x := range vals {
				if b, ok := x.([]byte); ok {
					vals[i] = string(b)
				}
			}
			want = append(want, vals)
		}
		rows.Close()
		if g, w := fmt.Sprint(res.Rows), fmt.Sprint(want); g != w {
			t.Errorf("%s:\nengine %s\nserver %s", q, g, w)
		}
	}
}
