package mysql

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
)

// errKeyDoesNotExist is ER_KEY_DOES_NOT_EXITS (1176): an index hint on a
// view (lockAndIdentify).
const errKeyDoesNotExist = 1176

// The combined proof reads, in one statement and one round trip, every
// catalog row proveOne reads with five: the TABLES row, the partition
// count, the columns, MariaDB's CHECK clauses and the InnoDB dictionary
// row, for every table of the operation. Each part is one SELECT of a
// UNION ALL whose rows are tagged with the table's index and the part's
// kind and carry the values as utf8mb4 text, exactly as the separate
// queries return them, so the identity is the same hash of the same
// values. Names are sent as hex literals with a character set introducer
// (lit): the statement has no placeholders, so it goes through the text
// protocol without a prepare and close, and the literals read the same
// whatever the session's sql_mode.

// lit is a utf8mb4 string literal of s that no sql_mode reads differently.
func lit(s string) string {
	if s == "" {
		return "_utf8mb4 ''"
	}
	return "_utf8mb4 X'" + hex.EncodeToString([]byte(s)) + "'"
}

// txt converts a catalog value to utf8mb4 text (empty for NULL).
func txt(expr string) string { return "COALESCE(CONVERT(" + expr + " USING utf8mb4), '')" }

// proofSQL is the combined proof statement of tables. Its rows are
// (table index, kind, order, v1 … v8), and one row (-1, 'D', 0,
// DATABASE()).
func (f flavor) proofSQL(tables []verifier.Table) string {
	var parts []string
	row := func(i int, kind, order string, vals []string, from string) {
		for len(vals) < 8 {
			vals = append(vals, "''")
		}
		for j, v := range vals {
			if v != "''" {
				vals[j] = txt(v)
			}
		}
		parts = append(parts, fmt.Sprintf("SELECT %d, '%s', %s, %s FROM %s", i, kind, order, strings.Join(vals, ", "), from))
	}
	gen := "''"
	if f.mariadb {
		gen = "IS_GENERATED"
	}
	for i, t := range tables {
		where := " WHERE TABLE_SCHEMA = " + lit(t.Schema) + " AND TABLE_NAME = " + lit(t.Name)
		row(i, "T", "0", []string{"TABLE_NAME", "TABLE_TYPE", "ENGINE", "CREATE_OPTIONS"},
			"information_schema.TABLES"+where)
		row(i, "P", "0", []string{"COUNT(*)"},
			"information_schema.PARTITIONS"+where+" AND PARTITION_NAME IS NOT NULL")
		row(i, "C", "ORDINAL_POSITION", []string{"COLUMN_NAME", "ORDINAL_POSITION", "COLUMN_TYPE", "IS_NULLABLE",
			"CHARACTER_SET_NAME", "COLLATION_NAME", "EXTRA", gen}, "information_schema.COLUMNS"+where)
		if f.mariadb {
			row(i, "J", "0", []string{"CHECK_CLAUSE"}, "information_schema.CHECK_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = "+
				lit(t.Schema)+" AND TABLE_NAME = "+lit(t.Name))
		}
		if iname, ok := innodbName(t.Schema, t.Name); ok {
			row(i, "I", "0", []string{"TABLE_ID", "N_COLS", "SPACE", "FLAG", "NAME"}, f.identityTable()+" WHERE NAME = "+lit(iname))
		}
	}
	// The session's default database, which none of the engine's own
	// operations sets: a pooled connection that has one is not returned
	// to the pool (see Engine.tainted).
	row(-1, "D", "0", []string{"DATABASE()"}, "DUAL")
	return strings.Join(parts, " UNION ALL ") + " ORDER BY 1, 2, 3"
}

// catalogRows is what the combined statement returned for one table.
type catalogRows struct {
	table      []string // TABLE_NAME, TABLE_TYPE, ENGINE, CREATE_OPTIONS
	partitions string
	columns    [][]string // name, ordinal, type, nullable, charset, collation, extra, IS_GENERATED (MariaDB)
	checks     []string
	identity   []string // TABLE_ID, N_COLS, SPACE, FLAG
}

// proveCombined proves tables with one statement.
func (e *Engine) proveCombined(ctx context.Context, tables []verifier.Table) ([]*engines.Proof, error) {
	rows, err := e.conn.QueryContext(ctx, e.fl.proofSQL(tables))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	got := make([]catalogRows, len(tables))
	for rows.Next() {
		var (
			idx         int
			kind, order string
			v           [8]string
		)
		if err := rows.Scan(&idx, &kind, &order, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]); err != nil {
			return nil, err
		}
		if idx == -1 && kind == "D" {
			if v[0] != "" {
				e.tainted, e.defaultDB = true, true
			}
			continue
		}
		if idx < 0 || idx >= len(tables) {
			return nil, engines.NewError(engines.CodeFailed, engines.ReasonExecution, nil)
		}
		c := &got[idx]
		switch kind {
		case "T":
			if c.table != nil {
				// Two TABLES rows for one name: refuse rather than pick.
				return nil, engines.NewError(engines.CodeIneligible, engines.ReasonNotFound, nil)
			}
			c.table = append([]string(nil), v[:4]...)
		case "P":
			c.partitions = v[0]
		case "C":
			c.columns = append(c.columns, append([]string(nil), v[:]...))
		case "J":
			c.checks = append(c.checks, v[0])
		case "I":
			if iname, _ := innodbName(tables[idx].Schema, tables[idx].Name); v[4] != iname {
				// NAME compares without case: a table whose name
				// differs only in case is another table.
				continue
			}
			if c.identity != nil {
				return nil, engines.NewError(engines.CodeIneligible, ReasonIdentityMissing, nil)
			}
			c.identity = append([]string(nil), v[:4]...)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]*engines.Proof, len(tables))
	for i, t := range tables {
		p, err := e.fl.proofFrom(t, &got[i])
		if err != nil {
			return nil, err
		}
		out[i] = p
	}
	return out, nil
}

// proofFrom applies proveOne's checks, in proveOne's order, to the rows
// of one table and computes the same identity.
func (f flavor) proofFrom(t verifier.Table, c *catalogRows) (*engines.Proof, error) {
	h := sha256.New()
	fmt.Fprintf(h, "dbeast-mysql-identity-v1\x00%s\x00%s\x00", t.Schema, t.Name)
	if c.table == nil || c.table[0] != t.Name {
		return nil, engines.NewError(engines.CodeIneligible, engines.ReasonNotFound, nil)
	}
	tableType, engine, createOptions := c.table[1], c.table[2], c.table[3]
	switch {
	case tableType == "VIEW" || tableType == "SYSTEM VIEW":
		return nil, engines.NewError(engines.CodeIneligible, ReasonView, nil)
	case tableType != "BASE TABLE":
		return nil, engines.NewError(engines.CodeIneligible, ReasonTableKind, nil)
	case !strings.EqualFold(engine, "InnoDB"):
		return nil, engines.NewError(engines.CodeIneligible, ReasonEngine, nil)
	case strings.Contains(strings.ToLower(createOptions), "partitioned"):
		return nil, engines.NewError(engines.CodeIneligible, ReasonPartitioned, nil)
	}
	if n, err := strconv.Atoi(c.partitions); err != nil || n > 0 {
		return nil, engines.NewError(engines.CodeIneligible, ReasonPartitioned, nil)
	}
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00", tableType, engine, createOptions)

	var cols []engines.Column
	generated := false
	for _, r := range c.columns {
		name, ordinal, colType, nullable, charset, collation, extra, isGen := r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]
		if f.isGenerated(extra, isGen) {
			generated = true
		}
		fmt.Fprintf(h, "col\x00%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00", ordinal, name, colType, nullable, charset, collation, extra)
		cols = append(cols, engines.Column{Name: name, Type: colType, Nullable: nullable == "YES"})
	}
	switch {
	case len(cols) == 0:
		return nil, engines.NewError(engines.CodeIneligible, engines.ReasonNotFound, nil)
	case generated:
		return nil, engines.NewError(engines.CodeIneligible, ReasonGeneratedColumn, nil)
	case len(cols) > engines.MaxColumns:
		return nil, engines.NewError(engines.CodeIneligible, engines.ReasonTooManyColumns, nil)
	}
	if f.mariadb {
		jsonCols := map[string]bool{}
		for _, clause := range c.checks {
			if col, ok := jsonCheckColumn(clause); ok {
				jsonCols[col] = true
			}
		}
		for i := range cols {
			if jsonCols[cols[i].Name] && strings.EqualFold(cols[i].Type, "longtext") {
				cols[i].Type = "json"
				fmt.Fprintf(h, "json\x00%s\x00", cols[i].Name)
			}
		}
	}

	if _, ok := innodbName(t.Schema, t.Name); !ok || c.identity == nil {
		return nil, engines.NewError(engines.CodeIneligible, ReasonIdentityMissing, nil)
	}
	fmt.Fprintf(h, "innodb\x00%s\x00%s\x00%s\x00%s\x00", c.identity[0], c.identity[1], c.identity[2], c.identity[3])
	return &engines.Proof{
		Table:    t,
		Kind:     "table",
		Columns:  cols,
		Identity: hex.EncodeToString(h.Sum(nil)),
	}, nil
}
