package mysql

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
)

// threadAlive reports whether the server still lists the thread.
func threadAlive(t *testing.T, id uint64) bool {
	t.Helper()
	return count(t, fmt.Sprintf("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = %d", id)) == 1
}

// itemsVerdict reads one row of items.
func itemsVerdict() *verifier.Verdict {
	return readVerdict("SELECT `id`, `name` FROM `dbeast_myengine`.`items` WHERE `id` = 1",
		map[string][]string{"dbeast_myengine.items": {"id", "name"}}, nil, tbl("items"))
}

// TestPoolReturnsOnlyCleanConnections runs one operation on a pooled
// connection and checks where the connection went: back to the pool (the
// next Open gets the same server thread) only after an operation that
// succeeded and left nothing behind; closed (the thread is gone) after a
// refusal inside the transaction, a server error, a table write, a
// default database, and full SQL, which runs on a new connection of its
// own instead of the pooled one.
func TestPoolReturnsOnlyCleanConnections(t *testing.T) {
	needServer(t)
	adminExec(t, "CREATE TABLE IF NOT EXISTS dbeast_myengine.pool_w (id INT PRIMARY KEY, n INT) ENGINE=InnoDB")
	adminExec(t, "DELETE FROM dbeast_myengine.pool_w")
	cases := []struct {
		name     string
		op       func(t *testing.T, e *Engine) error
		returned bool
	}{
		{"read", func(t *testing.T, e *Engine) error {
			_, _, err := e.Read(context.Background(), engines.ReadRequest{Verdict: itemsVerdict()})
			return err
		}, true},
		{"describe", func(t *testing.T, e *Engine) error {
			_, err := e.Describe(context.Background(), tbl("items"))
			return err
		}, true},
		{"list tables", func(t *testing.T, e *Engine) error {
			_, err := e.ListTables(context.Background())
			return err
		}, true},
		{"pin refused inside the transaction", func(t *testing.T, e *Engine) error {
			_, _, err := e.Read(context.Background(), engines.ReadRequest{Verdict: itemsVerdict(),
				Pins: map[string]string{"dbeast_myengine.items": "not-the-identity"}})
			wantErr(t, err, engines.CodeIdentityChanged, engines.ReasonIdentityChanged)
			return nil
		}, false},
		{"server error in the read", func(t *testing.T, e *Engine) error {
			v := readVerdict("SELECT `nope` FROM `dbeast_myengine`.`items`", nil, nil, tbl("items"))
			testHookSkipReverify = true
			defer func() { testHookSkipReverify = false }()
			_, _, err := e.Read(context.Background(), engines.ReadRequest{Verdict: v})
			if err == nil {
				t.Fatal("read of a missing column succeeded")
			}
			return nil
		}, false},
		{"table write", func(t *testing.T, e *Engine) error {
			_, err := e.Write(context.Background(), writeVerdict(verifier.OpInsert,
				"INSERT INTO `dbeast_myengine`.`pool_w` (`id`, `n`) VALUES (1, 1)", tbl("pool_w"), []string{"id", "n"}), engines.Limits{})
			return err
		}, false},
		{"default database", func(t *testing.T, e *Engine) error {
			if _, err := e.conn.ExecContext(context.Background(), "USE `"+testDB+"`"); err != nil {
				t.Fatal(err)
			}
			_, _, err := e.Read(context.Background(), engines.ReadRequest{Verdict: itemsVerdict()})
			wantErr(t, err, engines.CodeUnavailable, ReasonDefaultDatabase)
			return nil
		}, false},
	}
	src := sourceFor(t, "", "", nil)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			drainSource(src)
			warm := openSource(t, src)
			id := warm.connID
			if err := warm.Close(); err != nil {
				t.Fatal(err)
			}
			e := openSource(t, src)
			if e.connID != id {
				t.Fatalf("Open did not take the idle connection (%d, want %d)", e.connID, id)
			}
			if err := c.op(t, e); err != nil {
				t.Fatal(err)
			}
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			next := openSource(t, src)
			defer next.Close()
			switch {
			case c.returned && next.connID != id:
				t.Errorf("connection %d was not returned to the pool (next got %d)", id, next.connID)
			case !c.returned && next.connID == id:
				t.Errorf("connection %d was returned to the pool", id)
			case !c.returned:
				threadGone(t, id)
			}
		})
	}

	t.Run("full SQL", func(t *testing.T) {
		drainSource(src)
		warm := openSource(t, src)
		pooled := warm.connID
		_ = warm.Close()
		e := openSource(t, src)
		if e.connID != pooled {
			t.Fatalf("Open did not take the idle connection")
		}
		res, err := e.Exec(context.Background(), "SELECT CONNECTION_ID()", engines.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		ran := e.connID
		if ran == pooled || fmt.Sprint(res.Rows[0][0]) != fmt.Sprint(ran) {
			t.Fatalf("full SQL ran on thread %v (engine %d), pooled %d", res.Rows[0][0], ran, pooled)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		threadGone(t, ran)
		if !threadAlive(t, pooled) {
			t.Errorf("the untouched pooled connection was closed")
		}
		drainSource(src)
	})
}

// TestPooledSessionReset changes, through a pooled connection, every
// session setting a read relies on, as an earlier operation might have,
// and checks that the next read runs with the read's own settings.
func TestPooledSessionReset(t *testing.T) {
	needServer(t)
	src := sourceFor(t, "", "", nil)
	drainSource(src)
	e := openSource(t, src)
	if _, _, err := e.Read(context.Background(), engines.ReadRequest{Verdict: itemsVerdict()}); err != nil {
		t.Fatal(err)
	}
	isolation, readOnly, limit := "transaction_isolation", "transaction_read_only", "max_execution_time"
	if e.fl.mariadb {
		isolation, readOnly, limit = "tx_isolation", "tx_read_only", "max_statement_time"
	}
	if _, err := e.conn.ExecContext(context.Background(), "SET SESSION sql_mode = '', SESSION "+isolation+
		" = 'READ-COMMITTED', SESSION "+limit+" = 0, SESSION lock_wait_timeout = 31536000, autocommit = 0, NAMES latin1"); err != nil {
		t.Fatal(err)
	}
	id := e.connID
	_ = e.Close()
	e = openSource(t, src)
	if e.connID != id {
		t.Fatalf("Open did not take the idle connection")
	}
	var got []string
	testHookBeforeQuery = func() {
		var a, b, c, d, f, g, h string
		err := e.conn.QueryRowContext(context.Background(), "SELECT @@sql_mode, @@"+isolation+", @@"+readOnly+
			", @@"+limit+" > 0, @@lock_wait_timeout <= 30, @@autocommit, @@character_set_client").Scan(&a, &b, &c, &d, &f, &g, &h)
		if err != nil {
			got = []string{err.Error()}
			return
		}
		got = []string{a, b, c, d, f, g, h}
	}
	defer func() { testHookBeforeQuery = nil }()
	if _, _, err := e.Read(context.Background(), engines.ReadRequest{Verdict: itemsVerdict()}); err != nil {
		t.Fatal(err)
	}
	want := []string{sortedModes(sqlMode), "REPEATABLE-READ", "1", "1", "1", "1", "utf8mb4"}
	if len(got) > 0 {
		got[0] = sortedModes(got[0])
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("session inside the read = %q, want %q", got, want)
	}
}

// TestCachedProofRevalidated reads a table (its proof is then cached),
// changes one input of the proof, and reads again: the second read is
// refused, or re-proven inside its transaction with a new identity (and
// refused when pinned to the old one). Without the proof inside the
// transaction the second read would succeed with the cached identity.
func TestCachedProofRevalidated(t *testing.T) {
	needServer(t)
	type outcome struct {
		code   engines.Code
		reason engines.Reason
	}
	reproven := outcome{}
	same := outcome{code: "same"}
	cases := []struct {
		name   string
		change []string
		want   outcome
	}{
		{"add column", []string{"ALTER TABLE %s ADD COLUMN b INT"}, reproven},
		{"instant add column", []string{"ALTER TABLE %s ADD COLUMN b INT, ALGORITHM=INSTANT"}, reproven},
		{"modify column type", []string{"ALTER TABLE %s MODIFY a BIGINT"}, reproven},
		{"nullability", []string{"ALTER TABLE %s MODIFY a INT NOT NULL"}, reproven},
		{"rename column", []string{"ALTER TABLE %s CHANGE a a2 INT"}, reproven},
		// Instant on both servers: the InnoDB dictionary row stays, only
		// the definition (SHOW CREATE TABLE, COLUMN_TYPE) changes.
		{"enum value added", []string{"ALTER TABLE %s MODIFY e ENUM('a', 'b', 'c')"}, reproven},
		{"column default (no proof input)", []string{"ALTER TABLE %s ALTER a SET DEFAULT 7"}, same},
		{"collation", []string{"ALTER TABLE %s MODIFY s VARCHAR(20) COLLATE utf8mb4_bin"}, reproven},
		{"rebuild", []string{"ALTER TABLE %s FORCE"}, reproven},
		{"drop and recreate", []string{"DROP TABLE %s", "CREATE TABLE %s (id INT PRIMARY KEY, a INT, s VARCHAR(20), e ENUM('a', 'b')) ENGINE=InnoDB"}, reproven},
		{"generated column", []string{"ALTER TABLE %s ADD COLUMN g INT AS (a + 1) VIRTUAL"},
			outcome{engines.CodeIneligible, ReasonGeneratedColumn}},
		{"stored generated column", []string{"ALTER TABLE %s ADD COLUMN g INT AS (a + 1) STORED"},
			outcome{engines.CodeIneligible, ReasonGeneratedColumn}},
		{"partitioning", []string{"ALTER TABLE %s PARTITION BY HASH(id) PARTITIONS 2"},
			outcome{engines.CodeIneligible, ReasonPartitioned}},
		{"engine", []string{"ALTER TABLE %s ENGINE=MyISAM"}, outcome{engines.CodeIneligible, ReasonEngine}},
		{"replaced by a view", []string{"DROP TABLE %s", "CREATE VIEW %s AS SELECT 1 AS id, 2 AS a"},
			outcome{engines.CodeIneligible, ReasonView}},
		{"dropped", []string{"DROP TABLE %s"}, outcome{engines.CodeIneligible, engines.ReasonNotFound}},
		{"too many columns", []string{"ALTER TABLE %s " + addColumns(61)},
			outcome{engines.CodeIneligible, engines.ReasonTooManyColumns}},
	}
	if serverFlavor.mariadb {
		cases = append(cases, struct {
			name   string
			change []string
			want   outcome
		}{"JSON check", []string{"UPDATE %s SET s = '{}'", "ALTER TABLE %s MODIFY s LONGTEXT", "ALTER TABLE %s ADD CONSTRAINT CHECK (json_valid(`s`))"}, reproven})
	}
	src := sourceFor(t, "", "", nil)
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			name := fmt.Sprintf("cached_%d", i)
			q := "dbeast_myengine." + name
			adminExec(t, "DROP VIEW IF EXISTS "+q)
			adminExec(t, "DROP TABLE IF EXISTS "+q)
			adminExec(t, "CREATE TABLE "+q+" (id INT PRIMARY KEY, a INT, s VARCHAR(20), e ENUM('a', 'b')) ENGINE=InnoDB")
			adminExec(t, "INSERT INTO "+q+" VALUES (1, 1, 'x', 'a')")
			t.Cleanup(func() {
				adminExec(t, "DROP VIEW IF EXISTS "+q)
				adminExec(t, "DROP TABLE IF EXISTS "+q)
			})
			key := tbl(name).String()
			v := readVerdict("SELECT `id` FROM `dbeast_myengine`.`"+name+"`", map[string][]string{key: {"id"}}, nil, tbl(name))
			_, proofs, err := openSource(t, src).Read(context.Background(), engines.ReadRequest{Verdict: v})
			if err != nil {
				t.Fatal(err)
			}
			first := proofs[0].Identity
			if p := poolFor(src).cachedProof(tbl(name)); p == nil || p.proof.Identity != first {
				t.Fatal("the read's proof was not cached")
			}
			for _, s := range c.change {
				adminExec(t, strings.ReplaceAll(s, "%s", q))
			}
			_, proofs, err = openSource(t, src).Read(context.Background(), engines.ReadRequest{Verdict: v})
			if c.want == same {
				if err != nil || proofs[0].Identity != first {
					t.Fatalf("read after a change outside the proof: %v", err)
				}
				return
			}
			if c.want != reproven {
				wantErr(t, err, c.want.code, c.want.reason)
				if p := poolFor(src).cachedProof(tbl(name)); p != nil {
					t.Error("a refused table's proof stayed cached")
				}
				return
			}
			if err != nil {
				t.Fatalf("read after the change: %v", err)
			}
			if proofs[0].Identity == first {
				t.Fatal("the read after the change kept the cached identity")
			}
			pinned := engines.ReadRequest{Verdict: v, Pins: map[string]string{key: first}}
			_, _, err = openSource(t, src).Read(context.Background(), pinned)
			wantErr(t, err, engines.CodeIdentityChanged, engines.ReasonIdentityChanged)
		})
	}
}

// addColumns is an ALTER TABLE clause adding n INT columns.
func addColumns(n int) string {
	s := ""
	for i := 0; i < n; i++ {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("ADD COLUMN x%d INT", i)
	}
	return s
}

// sortedModes sorts the parts of an sql_mode value.
func sortedModes(m string) string {
	parts := strings.Split(m, ",")
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// TestCachedReadHoldsMetadataLocks is TestReadHoldsMetadataLocks on a read
// whose proof is cached (revalidated, not proven again): ALTER TABLE from
// another connection still times out on the read's metadata lock.
func TestCachedReadHoldsMetadataLocks(t *testing.T) {
	needServer(t)
	src := sourceFor(t, "", "", nil)
	v := readVerdict("SELECT `id` FROM `dbeast_myengine`.`items` AS `x`", map[string][]string{"dbeast_myengine.items": {"id"}}, nil, tbl("items"))
	if _, _, err := openSource(t, src).Read(context.Background(), engines.ReadRequest{Verdict: v}); err != nil {
		t.Fatal(err)
	}
	if poolFor(src).cachedProof(tbl("items")) == nil {
		t.Fatal("not cached")
	}
	var alterErr error
	testHookBeforeQuery = func() {
		conn, err := admin.Conn(context.Background())
		if err != nil {
			alterErr = err
			return
		}
		defer conn.Close()
		if _, err := conn.ExecContext(context.Background(), "SET SESSION lock_wait_timeout = 1"); err != nil {
			alterErr = err
			return
		}
		_, alterErr = conn.ExecContext(context.Background(), "ALTER TABLE dbeast_myengine.items ADD COLUMN held INT")
	}
	defer func() { testHookBeforeQuery = nil }()
	if _, _, err := openSource(t, src).Read(context.Background(), engines.ReadRequest{Verdict: v}); err != nil {
		t.Fatal(err)
	}
	if mysqlNumber(alterErr) != errLockWaitTimeout {
		if alterErr == nil {
			adminExec(t, "ALTER TABLE dbeast_myengine.items DROP COLUMN held")
		}
		t.Fatalf("ALTER during the read: %v, want lock wait timeout", alterErr)
	}
}

// TestCaseTwinIdentity proves two tables whose names differ only in case
// (possible with lower_case_table_names = 0): the InnoDB dictionary
// compares names without case, and each proof must take its own table's
// row, not refuse on the twin's or take it.
func TestCaseTwinIdentity(t *testing.T) {
	needServer(t)
	var lctn int
	if err := admin.QueryRow("SELECT @@lower_case_table_names").Scan(&lctn); err != nil {
		t.Fatal(err)
	}
	if lctn != 0 {
		t.Skip("the server folds table names")
	}
	adminExec(t, "DROP TABLE IF EXISTS dbeast_myengine.twin, dbeast_myengine.Twin")
	adminExec(t, "CREATE TABLE dbeast_myengine.twin (id INT) ENGINE=InnoDB")
	adminExec(t, "CREATE TABLE dbeast_myengine.Twin (id INT) ENGINE=InnoDB")
	t.Cleanup(func() { adminExec(t, "DROP TABLE IF EXISTS dbeast_myengine.twin, dbeast_myengine.Twin") })
	src := sourceFor(t, "", "", nil)
	ids := map[string]string{}
	for _, name := range []string{"twin", "Twin"} {
		for round := 0; round < 2; round++ { // the full proof, then the cached one
			p, err := openSource(t, src).Describe(context.Background(), tbl(name))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if prev, ok := ids[name]; ok && prev != p.Identity {
				t.Fatalf("%s: identity moved between two describes", name)
			}
			ids[name] = p.Identity
		}
	}
	if ids["twin"] == ids["Twin"] {
		t.Fatal("the twins have the same identity")
	}
	adminExec(t, "DROP TABLE dbeast_myengine.Twin")
	adminExec(t, "CREATE TABLE dbeast_myengine.Twin (id INT) ENGINE=InnoDB")
	p, err := openSource(t, src).Describe(context.Background(), tbl("twin"))
	if err != nil || p.Identity != ids["twin"] {
		t.Fatalf("twin after its twin was recreated: %v, same identity %v", err, p != nil && p.Identity == ids["twin"])
	}
	p, err = openSource(t, src).Describe(context.Background(), tbl("Twin"))
	if err != nil || p.Identity == ids["Twin"] {
		t.Fatalf("Twin after it was recreated: %v, same identity %v", err, p != nil && p.Identity == ids["Twin"])
	}
}
