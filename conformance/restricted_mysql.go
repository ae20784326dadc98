package conformance

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/dbeast/dbeast/verifier"
)

// myVerdictHosts are the host parts the restricted logins (restricted.go)
// are created with, so that they match over TCP and over the socket.
var myVerdictHosts = []string{"%", "localhost"}

// myVerdictFixture returns the statements creating the restricted logins:
// one per subset of the fixture tables, each also holding SELECT on
// myAnchor (a table no case names) so that it may use the fixture
// database as its default database.
func myVerdictFixture(password string) []string {
	out := []string{"CREATE TABLE " + MySQLDatabase + "." + myAnchor + " (id INT) ENGINE=InnoDB"}
	tables := verdictTables()
	for mask := 0; mask < 1<<len(tables); mask++ {
		for _, h := range myVerdictHosts {
			u := "'" + verdictAccount(mask) + "'@'" + h + "'"
			out = append(out, "CREATE USER IF NOT EXISTS "+u, "ALTER USER "+u+" IDENTIFIED BY '"+password+"'",
				"REVOKE ALL PRIVILEGES, GRANT OPTION FROM "+u,
				"GRANT SELECT ON "+MySQLDatabase+"."+myAnchor+" TO "+u)
			for i, t := range tables {
				if mask&(1<<i) != 0 {
					out = append(out, "GRANT SELECT ON "+MySQLDatabase+"."+t.Name+" TO "+u)
				}
			}
		}
	}
	return out
}

// myAnchor is the table every restricted login may read.
const myAnchor = "dbeast_anchor"

// restricted runs v's normalized SQL as the login granted exactly v's
// tables and returns the problem a denial shows, if any.
func (e *MySQL) restricted(ctx context.Context, v *verifier.Verdict) (*Problem, error) {
	mask, ok := verdictMask(v, MySQLDatabase)
	if !ok || e.vcfg == nil {
		return nil, nil
	}
	// A login's connection is opened on first use and reopened when it
	// fails to begin (the driver closes a connection whose query a
	// client-side timeout cancelled), without a ping per case.
	var tx *sql.Tx
	for attempt := 0; ; attempt++ {
		conn, err := e.logins.get(ctx, e.vcfg, mask)
		if err != nil {
			return nil, err
		}
		if tx, err = conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true}); err == nil {
			break
		}
		e.logins.drop(mask)
		if attempt == 1 || ctx.Err() != nil {
			return nil, err
		}
	}
	defer tx.Rollback()
	qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, rerr := sortedRows(qctx, tx, v.NormalizedSQL)
	switch myErrNumber(rerr) {
	case 1142, 1143, 1044:
		return &Problem{KindTouchedTable, "an account granted only [" + strings.Join(v.TableNames(), ", ") + "] was denied: " + rerr.Error()}, nil
	}
	return nil, nil
}

// Flavor is the verifier flavor of the server: MariaDB and MySQL scope
// nested WITH clauses differently.
func (e *MySQL) Flavor() verifier.Flavor {
	if strings.Contains(strings.ToLower(e.version), "mariadb") {
		return verifier.FlavorMariaDB
	}
	return verifier.FlavorMySQL
}

// maxLoginConns bounds the restricted logins' connections one worker
// keeps open. There is one login per subset of the fixture tables (32),
// so keeping them all made each worker hold 32 connections and four
// workers neared MariaDB's default max_connections (151); most cases name
// one or two tables, so the few subsets in use stay open.
const maxLoginConns = 8

// loginConns is one worker's open restricted-login connections by table
// subset, the least recently used closed beyond maxLoginConns. The zero
// value is empty and ready.
type loginConns struct {
	dbs   map[int]*sql.DB
	conns map[int]*sql.Conn
	used  map[int]uint64 // when each was last handed out, by clock
	clock uint64
}

// get returns mask's connection, opening it (as cfg with mask's user)
// when it is not open.
func (l *loginConns) get(ctx context.Context, cfg *mysql.Config, mask int) (*sql.Conn, error) {
	if l.conns == nil {
		l.dbs, l.conns, l.used = map[int]*sql.DB{}, map[int]*sql.Conn{}, map[int]uint64{}
	}
	l.clock++
	if c := l.conns[mask]; c != nil {
		l.used[mask] = l.clock
		return c, nil
	}
	for len(l.conns) >= maxLoginConns {
		oldest, first := 0, true
		for m := range l.conns {
			if first || l.used[m] < l.used[oldest] {
				oldest, first = m, false
			}
		}
		l.drop(oldest)
	}
	c := cfg.Clone()
	c.User = verdictAccount(mask)
	db, conn, err := myOpen(ctx, c)
	if err != nil {
		return nil, err
	}
	l.dbs[mask], l.conns[mask], l.used[mask] = db, conn, l.clock
	return conn, nil
}

// drop closes mask's connection, if open.
func (l *loginConns) drop(mask int) {
	if c := l.conns[mask]; c != nil {
		c.Close()
		l.dbs[mask].Close()
	}
	delete(l.conns, mask)
	delete(l.dbs, mask)
	delete(l.used, mask)
}

// closeAll closes every connection.
func (l *loginConns) closeAll() {
	for m := range l.conns {
		l.drop(m)
	}
}
