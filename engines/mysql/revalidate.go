package mysql

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
)

// Revalidation of a cached proof. The full proof reads five
// information_schema views, each of which opens the table definition
// again (about 1.5 ms on MariaDB 10.11, most of a point read). A cached
// proof is instead revalidated, inside the reading transaction and after
// its metadata locks, by a fingerprint of everything the proof relied on:
//
//   - the InnoDB dictionary row (TABLE_ID, N_COLS, SPACE, FLAG), read in
//     the same statement that takes the metadata locks (lockAndIdentify):
//     it changes when the table is rebuilt, recreated, or gains or loses a
//     column instantly, and disappears when the table leaves InnoDB or is
//     partitioned (the dictionary then names its partitions);
//   - SHOW CREATE TABLE: the server's own rendering of the definition from
//     which information_schema is filled (kind, engine, options,
//     partitioning, every column's name, position, type, nullability,
//     character set and collation (printed when they differ from the
//     table's default, which is printed), generation, CHECK constraints).
//     The table's AUTO_INCREMENT=n counter is left out: it moves with
//     every insert and is no input of the proof.
//
// The same fingerprint is taken when a proof is made and cached. When
// every table's fingerprint is unchanged the cached proofs are used;
// otherwise the full proof runs, in the same transaction, and is cached
// with the new fingerprint. The fingerprint is a cache key only: a
// mismatch, an unreadable answer or a missing row means the full proof.

// cachedEntry is a cached proof and the fingerprint it was made with.
type cachedEntry struct {
	proof *engines.Proof
	fp    string
}

// lockAndIdentify takes the transaction's metadata locks on every table
// and, in the same statement (so after the locks: a statement opens all
// its tables before it reads information_schema), reads their InnoDB
// dictionary rows, by index (nil when absent), and the session's default
// database (proofSQL). LIMIT 0 runs nothing on
// the tables; USE INDEX () (no effect on a base table) makes the server
// refuse a view while opening it (error 1176), before any of its code
// could run.
func (e *Engine) lockAndIdentify(ctx context.Context, tables []verifier.Table) ([][]string, error) {
	if len(tables) == 0 {
		return nil, nil
	}
	q, byName := e.lockSQL(tables)
	rows, err := e.conn.QueryContext(ctx, q)
	switch mysqlNumber(err) {
	case errKeyDoesNotExist:
		return nil, engines.NewError(engines.CodeIneligible, ReasonView, err)
	case errNoSuchTable:
		return nil, engines.NewError(engines.CodeIneligible, engines.ReasonNotFound, err)
	}
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([][]string, len(tables))
	for rows.Next() {
		var v [5]string
		var db string
		if err := rows.Scan(&v[0], &v[1], &v[2], &v[3], &v[4], &db); err != nil {
			return nil, err
		}
		if db != "" {
			// A default database: not returned to the pool (see
			// Engine.tainted), and the read refused (Engine.defaultDB).
			// With no row, the full proof reads it.
			e.tainted, e.defaultDB = true, true
		}
		for _, i := range byName[v[0]] {
			out[i] = append([]string(nil), v[1:]...)
		}
	}
	return out, rows.Err()
}

// lockSQL is lockAndIdentify's statement, and the indexes of the tables
// by InnoDB name.
func (e *Engine) lockSQL(tables []verifier.Table) (string, map[string][]int) {
	locks := make([]string, len(tables))
	var names []string
	byName := map[string][]int{}
	for i, t := range tables {
		locks[i] = fmt.Sprintf("%s AS `t%d` USE INDEX ()", qualified(t.Schema, t.Name), i)
		if n, ok := innodbName(t.Schema, t.Name); ok {
			if byName[n] == nil {
				names = append(names, lit(n))
			}
			byName[n] = append(byName[n], i)
		}
	}
	where := "FALSE"
	if len(names) > 0 {
		where = "NAME IN (" + strings.Join(names, ", ") + ")"
	}
	q := "SELECT " + txt("NAME") + ", " + txt("TABLE_ID") + ", " + txt("N_COLS") + ", " + txt("SPACE") + ", " + txt("FLAG") + ", " + txt("DATABASE()") +
		" FROM " + e.fl.identityTable() + " LEFT JOIN (SELECT 1 AS `one` FROM " + strings.Join(locks, ", ") +
		" LIMIT 0) AS `locks` ON TRUE WHERE " + where
	return q, byName
}

// autoIncrementOption is the table option AUTO_INCREMENT=n.
var autoIncrementOption = regexp.MustCompile(` AUTO_INCREMENT=[0-9]+`)

// fingerprints returns each table's fingerprint: its dictionary row and
// its SHOW CREATE TABLE text, hashed; "" when either is missing (never
// equal to a cached one). SHOW CREATE TABLE runs for every table, also
// one without a dictionary row (whose full proof then refuses it), so
// that the statements are known before the dictionary rows are: they are
// sent ahead of them (pipeline.go).
func (e *Engine) fingerprints(ctx context.Context, tables []verifier.Table, ids [][]string) ([]string, error) {
	out := make([]string, len(tables))
	for i, t := range tables {
		text, ok, err := e.showCreate(ctx, t)
		if err != nil {
			return nil, err
		}
		if !ok || ids[i] == nil {
			continue
		}
		h := sha256.New()
		fmt.Fprintf(h, "dbeast-mysql-fingerprint-v1\x00%s\x00%s\x00%s\x00%s\x00%s\x00",
			ids[i][0], ids[i][1], ids[i][2], ids[i][3], text)
		out[i] = hex.EncodeToString(h.Sum(nil))
	}
	return out, nil
}

// showCreate returns SHOW CREATE TABLE's text without the table's
// AUTO_INCREMENT=n option; ok is false for anything but a table's
// two-column answer. On MariaDB it runs in the global time zone, in which
// the text prints TIMESTAMP defaults, as with the session SET (which a
// read may skip: session.go).
func (e *Engine) showCreate(ctx context.Context, t verifier.Table) (string, bool, error) {
	rows, err := e.conn.QueryContext(ctx, e.fl.showCreateSQL(t))
	if err != nil {
		return "", false, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return "", false, err
	}
	if len(cols) != 2 {
		return "", false, nil
	}
	var name, text sql.NullString
	n := 0
	for rows.Next() {
		if err := rows.Scan(&name, &text); err != nil {
			return "", false, err
		}
		n++
	}
	if err := rows.Err(); err != nil {
		return "", false, err
	}
	if n != 1 || !text.Valid {
		return "", false, nil
	}
	return stripAutoIncrement(text.String), true, nil
}

// showCreateSQL is showCreate's statement.
func (f flavor) showCreateSQL(t verifier.Table) string {
	q := "SHOW CREATE TABLE " + qualified(t.Schema, t.Name)
	if f.mariadb {
		q = "SET STATEMENT " + zoneSetting + " FOR " + q
	}
	return q
}

// stripAutoIncrement removes the AUTO_INCREMENT=n table option: on the
// first line that starts with ")" (the end of the column list; column
// definitions are indented, and line breaks inside string literals are
// printed as \n), and only there.
func stripAutoIncrement(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, ")") {
			lines[i] = autoIncrementOption.ReplaceAllString(l, "")
			break
		}
	}
	return strings.Join(lines, "\n")
}
