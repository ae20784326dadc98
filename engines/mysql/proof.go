package mysql

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
)

// checkSchema refuses tables outside the configured database before
// anything is sent. Database names are compared exactly: on a server that
// folds names, a differently spelt name is refused, never widened.
func (e *Engine) checkSchema(t verifier.Table) error {
	switch {
	case isSystemDatabase(t.Schema):
		return engines.NewError(engines.CodeIneligible, ReasonSystemDatabase, nil)
	case t.Schema != e.cfg.DBName:
		return engines.NewError(engines.CodeIneligible, ReasonOtherDatabase, nil)
	case t.Name == "" || strings.IndexByte(t.Name, 0) >= 0:
		return engines.NewError(engines.CodeIneligible, engines.ReasonNotFound, nil)
	}
	return nil
}

// proveOne checks one table's eligibility and computes its identity with
// one prepared statement per catalog view. It is the fallback of proveAll
// when the combined statement fails (an account without PROCESS), so that
// the refusals keep their order (a view is refused as a view before the
// missing PROCESS privilege is named). It reads only information_schema,
// so it works inside the read-only transaction.
func (e *Engine) proveOne(ctx context.Context, t verifier.Table) (*engines.Proof, error) {
	if err := e.checkSchema(t); err != nil {
		return nil, err
	}
	h := sha256.New()
	fmt.Fprintf(h, "dbeast-mysql-identity-v1\x00%s\x00%s\x00", t.Schema, t.Name)

	// Kind, engine and partitioning.
	var name, tableType, engine, createOptions string
	err := e.conn.QueryRowContext(ctx,
		"SELECT TABLE_NAME, TABLE_TYPE, COALESCE(ENGINE, ''), COALESCE(CREATE_OPTIONS, '') "+
			"FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?",
		t.Schema, t.Name).Scan(&name, &tableType, &engine, &createOptions)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && name != t.Name) {
		return nil, engines.NewError(engines.CodeIneligible, engines.ReasonNotFound, err)
	}
	if err != nil {
		return nil, err
	}
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
	var partitions int
	if err := e.conn.QueryRowContext(ctx,
		"SELECT COUNT(*) FROM information_schema.PARTITIONS "+
			"WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND PARTITION_NAME IS NOT NULL",
		t.Schema, t.Name).Scan(&partitions); err != nil {
		return nil, err
	}
	if partitions > 0 {
		return nil, engines.NewError(engines.CodeIneligible, ReasonPartitioned, nil)
	}
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00", tableType, engine, createOptions)

	// Columns.
	cols, err := e.columns(ctx, t, h)
	if err != nil {
		return nil, err
	}

	// Persistent InnoDB identity (needs PROCESS).
	iname, ok := innodbName(t.Schema, t.Name)
	if !ok {
		return nil, engines.NewError(engines.CodeIneligible, ReasonIdentityMissing, nil)
	}
	var tableID, nCols, space, flag string
	err = e.conn.QueryRowContext(ctx, e.fl.identitySQL(), iname).Scan(&tableID, &nCols, &space, &flag)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, engines.NewError(engines.CodeIneligible, ReasonIdentityMissing, err)
	case mysqlNumber(err) == errSpecificAccess:
		return nil, engines.NewError(engines.CodeDenied, ReasonNoProcess, err)
	case err != nil:
		return nil, err
	}
	fmt.Fprintf(h, "innodb\x00%s\x00%s\x00%s\x00%s\x00", tableID, nCols, space, flag)

	return &engines.Proof{
		Table:    t,
		Kind:     "table",
		Columns:  cols,
		Identity: hex.EncodeToString(h.Sum(nil)),
	}, nil
}

// columns reads the column definitions, refuses generated columns and
// wide tables, and feeds every definition into the identity hash.
func (e *Engine) columns(ctx context.Context, t verifier.Table, h interface{ Write([]byte) (int, error) }) ([]engines.Column, error) {
	rows, err := e.conn.QueryContext(ctx, e.fl.columnsSQL(), t.Schema, t.Name)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var cols []engines.Column
	generated := false
	for rows.Next() {
		var name, ordinal, colType, nullable, charset, collation, extra, isGen string
		if err := rows.Scan(&name, &ordinal, &colType, &nullable, &charset, &collation, &extra, &isGen); err != nil {
			return nil, err
		}
		if e.fl.isGenerated(extra, isGen) {
			generated = true
		}
		fmt.Fprintf(h, "col\x00%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00", ordinal, name, colType, nullable, charset, collation, extra)
		cols = append(cols, engines.Column{Name: name, Type: colType, Nullable: nullable == "YES"})
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	switch {
	case len(cols) == 0:
		return nil, engines.NewError(engines.CodeIneligible, engines.ReasonNotFound, nil)
	case generated:
		return nil, engines.NewError(engines.CodeIneligible, ReasonGeneratedColumn, nil)
	case len(cols) > engines.MaxColumns:
		return nil, engines.NewError(engines.CodeIneligible, engines.ReasonTooManyColumns, nil)
	}
	if q := e.fl.jsonChecksSQL(); q != "" {
		jsonCols, err := e.jsonColumns(ctx, q, t)
		if err != nil {
			return nil, err
		}
		for i := range cols {
			if jsonCols[cols[i].Name] && strings.EqualFold(cols[i].Type, "longtext") {
				cols[i].Type = "json"
				fmt.Fprintf(h, "json\x00%s\x00", cols[i].Name)
			}
		}
	}
	return cols, nil
}

// jsonColumns returns the columns constrained by json_valid(`col`)
// (MariaDB's JSON).
func (e *Engine) jsonColumns(ctx context.Context, q string, t verifier.Table) (map[string]bool, error) {
	rows, err := e.conn.QueryContext(ctx, q, t.Schema, t.Name)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var clause string
		if err := rows.Scan(&clause); err != nil {
			return nil, err
		}
		if col, ok := jsonCheckColumn(clause); ok {
			out[col] = true
		}
	}
	return out, rows.Err()
}

// lockProbe takes LOCK TABLES … READ on the tables; the START TRANSACTION
// that follows it releases them. The
// contract makes the LOCK TABLES privilege a requirement of the read path;
// this is where its absence becomes ReasonNoLockPrivilege.
//
// The lock is not held for the read itself: under LOCK TABLES a statement
// may name a locked table only under the exact alias it was locked with
// (ER_TABLE_NOT_LOCKED, 1100, for `FROM t AS x`, self-joins and subqueries
// on the same table), and the engine cannot know the verified query's
// aliases. The read is stabilised instead by the metadata locks of its
// transaction (see lockAndIdentify).
func (e *Engine) lockProbe(ctx context.Context, tables []verifier.Table) error {
	parts := make([]string, len(tables))
	for i, t := range tables {
		parts[i] = qualified(t.Schema, t.Name) + " READ"
	}
	if err := e.exec(ctx, "LOCK TABLES "+strings.Join(parts, ", ")); err != nil {
		switch mysqlNumber(err) {
		case errDBAccessDenied, errTableAccessDenied, errSpecificAccess:
			return engines.NewError(engines.CodeDenied, ReasonNoLockPrivilege, err)
		case errNoSuchTable:
			// Only with a cached proof (else the proof found it first):
			// the table was dropped since.
			return engines.NewError(engines.CodeIneligible, engines.ReasonNotFound, err)
		}
		return err
	}
	return nil
}

// proveAll proves each table, in order: one statement for all of them
// (proofSQL), or, when that statement fails with an error that the
// table-by-table proof would report more precisely, proveOne per table.
func (e *Engine) proveAll(ctx context.Context, tables []verifier.Table) ([]*engines.Proof, error) {
	for _, t := range tables {
		if err := e.checkSchema(t); err != nil {
			return nil, err
		}
	}
	out, err := e.proveCombined(ctx, tables)
	if err == nil || mysqlNumber(err) != errSpecificAccess {
		return out, err
	}
	out = make([]*engines.Proof, len(tables))
	for i, t := range tables {
		p, err := e.proveOne(ctx, t)
		if err != nil {
			return nil, err
		}
		out[i] = p
	}
	return out, nil
}

// stableProofs runs proof → (reads) LOCK TABLES privilege check → START
// TRANSACTION → metadata locks → re-proof, and refuses when the identity
// moved in between. The transaction stays open; the caller ends it.
//
// With a cached proof for every table (revalidate.go), the proof before
// the transaction is skipped, and the re-proof is the cached proofs when
// every table's fingerprint, taken after the metadata locks, is unchanged;
// otherwise the full proof runs there and is cached. What the proof
// before the transaction adds is only that nothing runs on an ineligible
// object: with a cached proof, what can reach a table that changed kind
// since is LOCK TABLES … READ (no user code runs) and the metadata-lock
// statement, whose USE INDEX () makes the server refuse a view when it
// opens it, before any of its code could run.
//
// For reads, the session is read-only before the transaction starts, so
// no statement of the verdict ever runs in a session that could write: on
// MariaDB from the operation's first statement, on MySQL only after the
// LOCK TABLES check (lockInReadOnly). START TRANSACTION itself releases
// the table locks (UNLOCK TABLES is implied).
func (e *Engine) stableProofs(ctx context.Context, tables []verifier.Table, read bool) ([]*engines.Proof, error) {
	cached := make([]*cachedEntry, len(tables))
	var first []*engines.Proof
	for i, t := range tables {
		if cached[i] = e.pool.cachedProof(t); cached[i] == nil {
			var err error
			if first, err = e.proveAll(ctx, tables); err != nil {
				e.forget(tables)
				return nil, err
			}
			cached = nil
			break
		}
	}
	begin := "START TRANSACTION READ WRITE"
	if read {
		if len(tables) > 0 {
			if e.fl.lockInReadOnly() {
				// What follows LOCK TABLES does not depend on its
				// answer: sent ahead (pipeline.go).
				next := []string{"START TRANSACTION READ ONLY"}
				q, _ := e.lockSQL(tables)
				next = append(next, q)
				for _, t := range tables {
					next = append(next, e.fl.showCreateSQL(t))
				}
				e.sendAhead(true, next...)
			}
			if err := e.lockProbe(ctx, tables); err != nil {
				e.forget(tables)
				return nil, err
			}
		}
		if !e.fl.lockInReadOnly() {
			if err := e.exec(ctx, e.fl.readOnlySQL()); err != nil {
				return nil, err
			}
		}
		begin = "START TRANSACTION READ ONLY"
	}
	if err := e.exec(ctx, begin); err != nil {
		return nil, err
	}
	ids, err := e.lockAndIdentify(ctx, tables)
	if err != nil {
		e.forget(tables)
		return nil, err
	}
	fps, err := e.fingerprints(ctx, tables, ids)
	if err != nil {
		return nil, err
	}
	if cached != nil {
		hit := true
		for i := range tables {
			if fps[i] == "" || fps[i] != cached[i].fp {
				hit = false
				break
			}
		}
		if hit {
			out := make([]*engines.Proof, len(tables))
			for i := range cached {
				p := *cached[i].proof
				p.Columns = append([]engines.Column(nil), p.Columns...)
				out[i] = &p
			}
			return out, nil
		}
	}
	second, err := e.proveAll(ctx, tables)
	if err != nil {
		e.forget(tables)
		return nil, err
	}
	for i := range first {
		if first[i].Identity != second[i].Identity {
			e.forget(tables)
			return nil, engines.NewError(engines.CodeIdentityChanged, ReasonUnstable, nil)
		}
	}
	for i, p := range second {
		if fps[i] != "" {
			e.pool.storeProof(p, fps[i])
		} else {
			e.pool.forgetProof(p.Table)
		}
	}
	return second, nil
}

// forget drops the tables' cached proofs.
func (e *Engine) forget(tables []verifier.Table) {
	for _, t := range tables {
		e.pool.forgetProof(t)
	}
}

// checkColumns checks the verifier's column obligations: every column
// referenced through a table must be one of its proven columns. MySQL
// column names are case-insensitive, so they are compared with case
// folding; a folding difference can only refuse more, never reach another
// column (the server resolves the name itself).
func checkColumns(v *verifier.Verdict, proofs []*engines.Proof) error {
	byTable := map[string]*engines.Proof{}
	for _, p := range proofs {
		byTable[p.Table.String()] = p
	}
	for key, cols := range v.Columns {
		p, ok := byTable[key]
		if !ok {
			return engines.NewError(engines.CodeIneligible, engines.ReasonColumnMissing, nil)
		}
		for _, c := range cols {
			found := false
			for _, pc := range p.Columns {
				if strings.EqualFold(pc.Name, c) {
					found = true
					break
				}
			}
			if !found {
				return engines.NewError(engines.CodeIneligible, engines.ReasonColumnMissing, nil)
			}
		}
	}
	return nil
}

// builtinFunctions are the allowed functions MySQL and MariaDB both provide
// as native built-ins. A native function name cannot be taken by a loadable
// (UDF) function, and a stored function of the same name is only called
// when qualified with its database, which the verifier never produces; so
// an unqualified call to one of these always reaches the built-in.
var builtinFunctions = map[string]bool{
	"count": true, "sum": true, "avg": true, "min": true, "max": true,
	"abs": true, "lower": true, "upper": true, "length": true,
	"char_length": true, "octet_length": true, "round": true,
	"coalesce": true, "nullif": true,
	// The analytics of verifier/mysql/funcs.go (issue 16).
	"greatest": true, "least": true, "floor": true, "ceil": true, "ceiling": true,
	"truncate": true, "power": true, "pow": true, "sqrt": true, "sign": true,
	"substring": true, "substr": true, "trim": true, "ltrim": true, "rtrim": true,
	"concat": true, "concat_ws": true, "replace": true, "left": true, "right": true,
	"instr": true, "locate": true, "position": true, "lpad": true, "rpad": true,
	"json_extract": true, "json_unquote": true,
	"year": true, "quarter": true, "month": true, "day": true, "dayofmonth": true,
	"dayofweek": true, "dayofyear": true, "hour": true, "minute": true, "second": true,
	"extract": true, "date": true, "date_format": true, "date_add": true, "date_sub": true,
	"datediff": true, "last_day": true,
	"timestampdiff": true, "yearweek": true, "dayname": true, "monthname": true,
	"unix_timestamp": true, "str_to_date": true, "substring_index": true,
	"if": true, "ifnull": true,
	"curdate": true, "current_date": true, "now": true, "current_timestamp": true,
	"group_concat": true, "stddev_pop": true, "stddev_samp": true, "var_pop": true, "var_samp": true,
	"row_number": true, "rank": true, "dense_rank": true, "ntile": true, "percent_rank": true,
	"cume_dist": true, "lag": true, "lead": true, "first_value": true, "last_value": true,
	"nth_value": true,
}

// checkFunctions refuses any function not on both MySQL's verifier set
// (verifier.MySQLFunctions) and this engine's list of native built-ins.
func checkFunctions(v *verifier.Verdict) error {
	for _, f := range v.Functions {
		if !verifier.MySQLFunctions[f] || !builtinFunctions[f] {
			return engines.NewError(engines.CodeIneligible, engines.ReasonFunction, nil)
		}
	}
	return nil
}
