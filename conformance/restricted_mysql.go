package conformance

import (
	"context"
	"database/sql"
	"strings"
	"time"

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
		conn := e.verdicts[mask]
		if conn == nil {
			cfg := e.vcfg.Clone()
			cfg.User = verdictAccount(mask)
			db, c, err := myOpen(ctx, cfg)
			if err != nil {
				return nil, err
			}
			e.verdictDBs[mask], e.verdicts[mask], conn = db, c, c
		}
		var err error
		if tx, err = conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true}); err == nil {
			break
		}
		conn.Close()
		e.verdictDBs[mask].Close()
		delete(e.verdicts, mask)
		delete(e.verdictDBs, mask)
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
