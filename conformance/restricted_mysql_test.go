package conformance

import (
	"context"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/verifier"
)

// TestMySQLLoginsBounded reads as every restricted login in turn: the
// worker never holds more than maxLoginConns of their connections, on its
// side or on the server's, and a login whose connection was closed to
// make room still catches a read outside its grant when it is used again.
func TestMySQLLoginsBounded(t *testing.T) {
	e := openEngine(t, "mysql").(*MySQL)
	ctx := context.Background()
	tables := verdictTables()
	verdict := func(mask int, sql string) *verifier.Verdict {
		v := &verifier.Verdict{NormalizedSQL: sql}
		for i, tb := range tables {
			if mask&(1<<i) != 0 {
				v.Tables = append(v.Tables, verifier.Table{Schema: MySQLDatabase, Name: tb.Name})
			}
		}
		return v
	}
	// Login 1 may read only tables[0]; this read also touches tables[1].
	outside := "SELECT COUNT(*) FROM " + MySQLDatabase + "." + tables[0].Name + " CROSS JOIN " + MySQLDatabase + "." + tables[1].Name
	if p, err := e.restricted(ctx, verdict(1, outside)); err != nil || p == nil || p.Kind != KindTouchedTable {
		t.Fatalf("first use of login 1: problem %v, %v; want a denial", p, err)
	}
	for mask := 2; mask < 1<<len(tables); mask++ {
		sql := "SELECT COUNT(*) FROM " + MySQLDatabase + "." + myAnchor
		if p, err := e.restricted(ctx, verdict(mask, sql)); err != nil || p != nil {
			t.Fatalf("login %d: problem %v, %v", mask, p, err)
		}
		if n := len(e.logins.conns); n > maxLoginConns {
			t.Fatalf("after login %d: %d connections open, want at most %d", mask, n, maxLoginConns)
		}
	}
	var onServer int
	if err := e.conn.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE USER LIKE 'dbeast\\_conf\\_v%'").Scan(&onServer); err != nil {
		t.Fatal(err)
	}
	if onServer > maxLoginConns {
		t.Errorf("%d restricted-login connections on the server, want at most %d", onServer, maxLoginConns)
	}
	if e.logins.conns[1] != nil {
		t.Fatal("login 1 is still open after 30 others; the bound did not close the least recently used")
	}
	p, err := e.restricted(ctx, verdict(1, outside))
	if err != nil || p == nil || p.Kind != KindTouchedTable || !strings.Contains(p.Detail, "denied") {
		t.Fatalf("login 1 reopened: problem %v, %v; want a denial", p, err)
	}
}
