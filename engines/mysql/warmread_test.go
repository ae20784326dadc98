package mysql

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
	myverify "github.com/dbeast/dbeast/verifier/mysql"
)

// warmUser is the account of TestWarmReadRefusesChangeBetweenReads.
const warmUser = "dbeast_warm_reader"

// aliasDB is a database named like the derived table of one case.
const aliasDB = "dbeast_myengine_alias"

// verified verifies q against the test database as the broker would.
func verified(t *testing.T, q string) *verifier.Verdict {
	t.Helper()
	v, err := myverify.Verify(verifier.Input{Dialect: verifier.MySQL, SQL: q, Database: testDB, Flavor: verifierFlavor()})
	if err != nil {
		t.Fatalf("verify %s: %v", q, err)
	}
	return v
}

// TestWarmReadRefusesChangeBetweenReads makes two reads (the second one
// warm: a pooled connection that skips the session SET, a cached proof),
// changes one thing a check of the read depends on, and reads again: the
// very next read is refused, and its connection is closed. Every check
// still runs on every read; none of their answers is kept from one read
// to the next.
func TestWarmReadRefusesChangeBetweenReads(t *testing.T) {
	if !serverFlavor.mariadb {
		t.Skip("the session SET is kept on MariaDB only")
	}
	needServer(t)
	const table = testDB + ".warm_t"
	point := "SELECT `id`, `name` FROM `" + testDB + "`.`warm_t` WHERE `id` = 1"
	derived := "SELECT `" + aliasDB + "`.`id` FROM (SELECT `id` FROM `" + testDB + "`.`warm_t` LIMIT 10) AS `" + aliasDB + "`"
	cleanup := func() {
		for _, q := range []string{"DROP VIEW IF EXISTS " + table, "DROP TABLE IF EXISTS " + table,
			"DROP DATABASE IF EXISTS " + aliasDB, "DROP USER IF EXISTS " + warmUser + "@'%'"} {
			adminExec(t, q)
		}
	}
	cleanup()
	t.Cleanup(cleanup)
	adminExec(t, "CREATE USER "+warmUser+"@'%' IDENTIFIED BY 'pw'")
	adminExec(t, "GRANT PROCESS ON *.* TO "+warmUser+"@'%'")
	cases := []struct {
		name   string
		query  string
		change []string
		pinned bool // the third read is pinned to the second's identity
		code   engines.Code
		reason engines.Reason
	}{
		{name: "LOCK TABLES revoked", query: point,
			change: []string{"REVOKE LOCK TABLES ON " + testDB + ".* FROM " + warmUser + "@'%'"},
			code:   engines.CodeDenied, reason: ReasonNoLockPrivilege},
		{name: "SELECT revoked", query: point,
			change: []string{"REVOKE SELECT ON " + testDB + ".* FROM " + warmUser + "@'%'"},
			code:   engines.CodeDenied, reason: ReasonNoLockPrivilege},
		{name: "replaced by a view", query: point,
			change: []string{"DROP TABLE " + table, "CREATE VIEW " + table + " AS SELECT 1 AS id, 'x' AS name"},
			code:   engines.CodeIneligible, reason: ReasonView},
		{name: "column dropped", query: point,
			change: []string{"ALTER TABLE " + table + " DROP COLUMN name"},
			code:   engines.CodeIneligible, reason: engines.ReasonColumnMissing},
		{name: "generated column added", query: point,
			change: []string{"ALTER TABLE " + table + " ADD COLUMN g INT AS (id + 1) VIRTUAL"},
			code:   engines.CodeIneligible, reason: ReasonGeneratedColumn},
		{name: "rebuilt under a pin", query: point, pinned: true,
			change: []string{"ALTER TABLE " + table + " FORCE"},
			code:   engines.CodeIdentityChanged, reason: engines.ReasonIdentityChanged},
		{name: "a database named like a derived table", query: derived,
			change: []string{"CREATE DATABASE " + aliasDB, "GRANT SELECT ON " + aliasDB + ".* TO " + warmUser + "@'%'"},
			code:   engines.CodeIneligible, reason: ReasonRelationGuard},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, q := range []string{"DROP VIEW IF EXISTS " + table, "DROP TABLE IF EXISTS " + table,
				"DROP DATABASE IF EXISTS " + aliasDB,
				"CREATE TABLE " + table + " (id INT PRIMARY KEY, name VARCHAR(20)) ENGINE=InnoDB",
				"INSERT INTO " + table + " VALUES (1, 'one')",
				"GRANT SELECT, LOCK TABLES ON " + testDB + ".* TO " + warmUser + "@'%'"} {
				adminExec(t, q)
			}
			src, l := loggedUserSource(t, warmUser, "pw")
			drainSource(src)
			t.Cleanup(func() { drainSource(src) })
			v := verified(t, c.query)
			var lastConn uint64
			read := func(pins map[string]string) ([]engines.Proof, error) {
				eng, err := Driver{}.Open(context.Background(), src)
				if err != nil {
					t.Fatal(err)
				}
				defer eng.Close()
				lastConn = eng.(*Engine).connID
				_, proofs, err := eng.Read(context.Background(), engines.ReadRequest{Verdict: v, Pins: pins})
				return proofs, err
			}
			if _, err := read(nil); err != nil {
				t.Fatalf("first read: %v", err)
			}
			l.take()
			proofs, err := read(nil)
			if err != nil {
				t.Fatalf("warm read: %v", err)
			}
			for _, s := range l.take() {
				if regexp.MustCompile(`^SET NAMES`).MatchString(s) {
					t.Fatalf("the warm read applied its session SET: the test does not reach the kept session")
				}
			}
			for _, q := range c.change {
				adminExec(t, q)
			}
			var pins map[string]string
			if c.pinned {
				pins = map[string]string{proofs[0].Table.String(): proofs[0].Identity}
			}
			_, err = read(pins)
			var ee *engines.Error
			if !errors.As(err, &ee) || ee.Code != c.code || ee.Reason != c.reason {
				t.Fatalf("read after the change: %v, want %s/%s", err, c.code, c.reason)
			}
			// The refused read may have left statements sent ahead
			// unanswered: its connection is closed, never pooled.
			threadGone(t, lastConn)
		})
	}
}

// loggedUserSource is loggedSource for another account.
func loggedUserSource(t *testing.T, user, pass string) (engines.Source, *queryLog) {
	t.Helper()
	src, l := loggedSource(t)
	cfg, err := gomysql.ParseDSN(src.DSN)
	if err != nil {
		t.Fatal(err)
	}
	cfg.User, cfg.Passwd = user, pass
	return engines.Source{Kind: engines.MySQL, DSN: cfg.FormatDSN()}, l
}

// TestReadZoneIsGlobalEachRead changes the session's time zone inside a
// read, after its session SET (as a change of the server's global zone
// after the SET would leave it), and checks that this read and the next,
// which keeps the session and skips its SET, both run in the global zone:
// each statement that reads the zone carries its own setting (session.go).
func TestReadZoneIsGlobalEachRead(t *testing.T) {
	if !serverFlavor.mariadb {
		t.Skip("the session SET is kept on MariaDB only")
	}
	src, l := loggedSource(t)
	drainSource(src)
	t.Cleanup(func() { drainSource(src) })
	ctx := context.Background()
	stamp := func(zone string) string {
		var s string
		q := "SET STATEMENT time_zone = " + zone + " FOR SELECT CAST(UNIX_TIMESTAMP(ts) AS CHAR) FROM " + testDB + ".vals WHERE id = 1"
		if err := admin.QueryRowContext(ctx, q).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	want, other := stamp("@@GLOBAL.time_zone"), "'+05:00'"
	if stamp(other) == want {
		other = "'-03:00'"
	}
	if stamp(other) == want {
		t.Fatal("no zone that differs from the global one")
	}
	v := verified(t, "SELECT UNIX_TIMESTAMP(`ts`) FROM `"+testDB+"`.`vals` WHERE `id` = 1")
	read := func(hook func(e *Engine)) string {
		t.Helper()
		eng, err := Driver{}.Open(ctx, src)
		if err != nil {
			t.Fatal(err)
		}
		defer eng.Close()
		e := eng.(*Engine)
		if hook != nil {
			testHookBeforeQuery = func() { hook(e) }
			defer func() { testHookBeforeQuery = nil }()
		}
		res, _, err := e.Read(ctx, engines.ReadRequest{Verdict: v})
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(res.Rows[0][0])
	}
	read(nil)
	l.take()
	if got := read(func(e *Engine) {
		if _, err := e.conn.ExecContext(ctx, "SET SESSION time_zone = "+other); err != nil {
			t.Fatal(err)
		}
	}); got != want {
		t.Errorf("read with the session zone changed = %s, want %s (global zone)", got, want)
	}
	l.take()
	if got := read(nil); got != want {
		t.Errorf("next read = %s, want %s (global zone)", got, want)
	}
	for _, s := range l.take() {
		if regexp.MustCompile(`^SET NAMES`).MatchString(s) {
			t.Errorf("the next read applied its session SET: the test does not reach the kept session")
		}
	}
}

// TestRefusedReadLeavesNoThreadBehind refuses a read at LOCK TABLES (an
// account without the privilege) while another session holds the table
// locked for writing, so that the statements sent ahead of LOCK TABLES's
// answer (pipeline.go) would wait for its metadata lock on the server.
// The refusal is the privilege's, and the read's server thread is gone
// when the read returns, not lock_wait_timeout later.
func TestRefusedReadLeavesNoThreadBehind(t *testing.T) {
	needServer(t)
	const table = testDB + ".warm_locked"
	adminExec(t, "DROP TABLE IF EXISTS "+table)
	adminExec(t, "CREATE TABLE "+table+" (id INT PRIMARY KEY) ENGINE=InnoDB")
	t.Cleanup(func() { adminExec(t, "DROP TABLE IF EXISTS "+table) })
	ctx := context.Background()
	holder, err := admin.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if _, err := holder.ExecContext(ctx, "LOCK TABLES "+table+" WRITE"); err != nil {
		t.Fatal(err)
	}
	defer func() { _, _ = holder.ExecContext(ctx, "UNLOCK TABLES") }()
	src := sourceFor(t, "dbeast_nolock", "dbeast_nolock_pw", nil)
	drainSource(src)
	e := openSource(t, src)
	id := e.connID
	v := verified(t, "SELECT `id` FROM `"+testDB+"`.`warm_locked`")
	_, _, err = e.Read(ctx, engines.ReadRequest{Verdict: v})
	wantErr(t, err, engines.CodeDenied, ReasonNoLockPrivilege)
	var n int
	if err := admin.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = ?", id).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("server thread %d still runs after the refused read returned", id)
	}
}
