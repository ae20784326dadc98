package sqlite

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
)

// querier is what the proof needs: a transaction, so that everything it
// reads and the read that follows see one snapshot of the schema.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// The proof's statements. They use no functions and read only what
// phaseProof allows; table names are passed as bound arguments, never
// spliced.
const (
	sqlSchemaVersion = `PRAGMA main.schema_version`
	sqlDataVersion   = `PRAGMA main.data_version`
	sqlSchema        = `SELECT type, name, rootpage, sql FROM main.sqlite_schema WHERE type IN ('table', 'view', 'trigger')`
	sqlTableList     = `SELECT schema, name, type, wr FROM pragma_table_list`
	sqlTableXinfo    = `SELECT name, type, "notnull", hidden FROM pragma_table_xinfo(?1, 'main')`
	sqlForeignKeys   = `SELECT "table" FROM pragma_foreign_key_list(?1, 'main')`
)

// shadowSuffixes are the shadow-table suffixes of the virtual table
// modules SQLite ships (fts3/4, fts5, rtree/geopoly). A table named
// <vtab><suffix> for an existing virtual table <vtab> is refused even when
// table_list does not mark it as shadow (older files, other modules).
var shadowSuffixes = []string{
	"_content", "_data", "_idx", "_docsize", "_config", "_segments",
	"_segdir", "_stat", "_node", "_parent", "_rowid",
}

// tableProof is one proven table with what the authorizer and the column
// obligations need.
type tableProof struct {
	proof engines.Proof
	name  string          // the name as stored in sqlite_schema
	cols  map[string]bool // lower-case column names
	rowid bool            // false for WITHOUT ROWID tables
}

// schemaEntry is one row of sqlite_schema.
type schemaEntry struct {
	typ, name, sql string
	rootpage       int64
}

// schemaVersion reads PRAGMA schema_version, which SQLite bumps on every
// schema change in the file.
func schemaVersion(ctx context.Context, q querier) (int64, error) {
	return pragmaInt(ctx, q, sqlSchemaVersion)
}

// pragmaInt reads the one integer a read-only PRAGMA returns.
func pragmaInt(ctx context.Context, q querier, pragma string) (int64, error) {
	rows, err := q.QueryContext(ctx, pragma)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var v int64
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return 0, err
		}
		return 0, engines.NewError(engines.CodeFailed, ReasonSchemaProbe, nil)
	}
	if err := rows.Scan(&v); err != nil {
		return 0, err
	}
	return v, rows.Close()
}

// readVersions reads schema_version and data_version in q's transaction.
func readVersions(ctx context.Context, q querier) (versions, error) {
	sv, err := pragmaInt(ctx, q, sqlSchemaVersion)
	if err != nil {
		return versions{}, err
	}
	dv, err := pragmaInt(ctx, q, sqlDataVersion)
	if err != nil {
		return versions{}, err
	}
	return versions{schema: sv, data: dv}, nil
}

func ineligible(r engines.Reason) error {
	return engines.NewError(engines.CodeIneligible, r, nil)
}

// prove checks that t is a plain physical table of main and returns its
// proof. sv is the schema version read in the same transaction; it is part
// of the identity. Refusals are CodeIneligible with a specific reason.
func prove(ctx context.Context, q querier, t verifier.Table, sv int64) (*tableProof, error) {
	if !eqFold(t.Schema, "main") {
		return nil, ineligible(ReasonNotMain)
	}
	if hasPrefixFold(t.Name, "sqlite_") {
		return nil, ineligible(ReasonInternal)
	}
	entries, err := readSchema(ctx, q)
	if err != nil {
		return nil, err
	}
	var self *schemaEntry
	virtual := map[string]bool{}
	for i := range entries {
		en := &entries[i]
		if en.typ == "table" && isVirtualSQL(en.sql) {
			virtual[fold(en.name)] = true
		}
		if (en.typ == "table" || en.typ == "view") && eqFold(en.name, t.Name) {
			self = en
		}
	}
	switch {
	case self == nil:
		return nil, ineligible(engines.ReasonNotFound)
	case hasPrefixFold(self.name, "sqlite_"):
		return nil, ineligible(ReasonInternal)
	case self.typ == "view":
		return nil, ineligible(ReasonView)
	case isVirtualSQL(self.sql):
		return nil, ineligible(ReasonVirtual)
	case isShadowName(self.name, virtual):
		return nil, ineligible(ReasonShadow)
	}
	typ, wr, err := tableListEntry(ctx, q, self.name)
	if err != nil {
		return nil, err
	}
	switch typ {
	case "table":
	case "shadow":
		return nil, ineligible(ReasonShadow)
	case "virtual":
		return nil, ineligible(ReasonVirtual)
	case "view":
		return nil, ineligible(ReasonView)
	default:
		return nil, ineligible(engines.ReasonNotFound)
	}
	tp := &tableProof{
		name:  self.name,
		cols:  map[string]bool{},
		rowid: !wr,
		proof: engines.Proof{
			Table:    verifier.Table{Schema: "main", Name: self.name},
			Kind:     "table",
			Identity: identity(sv, self),
		},
	}
	if err := readColumns(ctx, q, tp); err != nil {
		return nil, err
	}
	return tp, nil
}

func readSchema(ctx context.Context, q querier) ([]schemaEntry, error) {
	rows, err := q.QueryContext(ctx, sqlSchema)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []schemaEntry
	for rows.Next() {
		var en schemaEntry
		var root sql.NullInt64
		var text sql.NullString
		if err := rows.Scan(&en.typ, &en.name, &root, &text); err != nil {
			return nil, err
		}
		en.rootpage, en.sql = root.Int64, text.String
		out = append(out, en)
	}
	return out, rows.Err()
}

// tableListEntry returns the table_list type of name in main ("table",
// "view", "virtual", "shadow") and whether it is WITHOUT ROWID. SQLite
// 3.37+ marks shadow tables there itself.
func tableListEntry(ctx context.Context, q querier, name string) (typ string, withoutRowid bool, err error) {
	rows, err := q.QueryContext(ctx, sqlTableList)
	if err != nil {
		return "", false, err
	}
	defer rows.Close()
	for rows.Next() {
		var schema, n, ty string
		var wr int64
		if err := rows.Scan(&schema, &n, &ty, &wr); err != nil {
			return "", false, err
		}
		if schema == "main" && n == name {
			typ, withoutRowid = ty, wr != 0
		}
	}
	return typ, withoutRowid, rows.Err()
}

// readColumns fills the proof's columns from table_xinfo and refuses
// generated columns (hidden 2 = virtual, 3 = stored) and more than 64
// columns.
func readColumns(ctx context.Context, q querier, tp *tableProof) error {
	rows, err := q.QueryContext(ctx, sqlTableXinfo, tp.name)
	if err != nil {
		return err
	}
	defer rows.Close()
	var cols []engines.Column
	generated := false
	for rows.Next() {
		var name string
		var typ sql.NullString
		var notnull, hidden int64
		if err := rows.Scan(&name, &typ, &notnull, &hidden); err != nil {
			return err
		}
		if hidden == 2 || hidden == 3 {
			generated = true
		}
		cols = append(cols, engines.Column{Name: name, Type: typ.String, Nullable: notnull == 0})
	}
	if err := rows.Err(); err != nil {
		return err
	}
	switch {
	case len(cols) == 0:
		return ineligible(ReasonSchemaProbe)
	case generated:
		return ineligible(ReasonGenerated)
	case len(cols) > engines.MaxColumns:
		return ineligible(engines.ReasonTooManyColumns)
	}
	tp.proof.Columns = cols
	for _, c := range cols {
		tp.cols[fold(c.Name)] = true
	}
	return nil
}

// identity fingerprints the schema version, the root page, the name and
// the CREATE statement. Any schema change in the file bumps the version,
// so a pin is void after any DDL, not only on this table: stricter than
// needed, never weaker.
func identity(sv int64, en *schemaEntry) string {
	h := sha256.New()
	for _, part := range []string{strconv.FormatInt(sv, 10), strconv.FormatInt(en.rootpage, 10), en.name, en.sql} {
		h.Write([]byte(strconv.Itoa(len(part))))
		h.Write([]byte{':'})
		h.Write([]byte(part))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// checkColumns enforces the verdict's column obligations for one table:
// each name must be a real column (ASCII case-insensitive, as SQLite
// matches). rowid, _rowid_ and oid are accepted only for a table with a
// rowid, where SQLite resolves them to it (a real column of that name was
// already accepted above).
func checkColumns(tp *tableProof, names []string) error {
	for _, n := range names {
		lc := fold(n)
		if tp.cols[lc] || (tp.rowid && isRowidName(lc)) {
			continue
		}
		return ineligible(engines.ReasonColumnMissing)
	}
	return nil
}

// checkFunctions requires every function to be on SQLite's verifier set
// (verifier.SQLiteFunctions) and off blockedFunctions.
func checkFunctions(funcs []string) error {
	for _, f := range funcs {
		if !verifier.SQLiteFunctions[fold(f)] || blockedFunctions[fold(f)] {
			return ineligible(engines.ReasonFunction)
		}
	}
	return nil
}

// isVirtualSQL reports whether a CREATE statement is CREATE VIRTUAL TABLE.
func isVirtualSQL(s string) bool {
	f := strings.Fields(s)
	return len(f) >= 3 && eqFold(f[0], "create") && eqFold(f[1], "virtual")
}

// isShadowName reports whether name is <vtab><suffix> for a virtual table
// of main.
func isShadowName(name string, virtual map[string]bool) bool {
	ln := fold(name)
	for _, suf := range shadowSuffixes {
		if base, ok := strings.CutSuffix(ln, suf); ok && virtual[base] {
			return true
		}
	}
	return false
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && eqFold(s[:len(prefix)], prefix)
}

// fold lower-cases ASCII letters only, as SQLite does when it compares
// identifiers; other letters stay distinct, as they are to SQLite.
func fold(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// eqFold reports whether a and b are equal under fold.
func eqFold(a, b string) bool { return len(a) == len(b) && fold(a) == fold(b) }

// fkDependents returns, lower-case, the tables whose foreign keys
// reference target, directly or through other such tables (dependents:
// an ON DELETE/UPDATE action started by a write to target can read and
// change them), and the tables any of target and its dependents reference
// (parents: SQLite reads them to check a written row's keys). SQLite
// authorizes both with no trigger name, so the write policy has to know
// them in advance.
func fkDependents(ctx context.Context, q querier, target string) (dependents, parents map[string]bool, err error) {
	entries, err := readSchema(ctx, q)
	if err != nil {
		return nil, nil, err
	}
	refs := map[string][]string{}     // child -> parent tables
	children := map[string][]string{} // parent -> child tables
	for _, en := range entries {
		if en.typ != "table" || hasPrefixFold(en.name, "sqlite_") || isVirtualSQL(en.sql) {
			continue
		}
		rows, err := q.QueryContext(ctx, sqlForeignKeys, en.name)
		if err != nil {
			return nil, nil, err
		}
		for rows.Next() {
			var parent string
			if err := rows.Scan(&parent); err != nil {
				rows.Close()
				return nil, nil, err
			}
			children[fold(parent)] = append(children[fold(parent)], fold(en.name))
			refs[fold(en.name)] = append(refs[fold(en.name)], fold(parent))
		}
		if err := rows.Close(); err != nil {
			return nil, nil, err
		}
	}
	dependents, parents = map[string]bool{}, map[string]bool{}
	queue := []string{fold(target)}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, r := range refs[p] {
			parents[r] = true
		}
		for _, c := range children[p] {
			if !dependents[c] {
				dependents[c] = true
				queue = append(queue, c)
			}
		}
	}
	return dependents, parents, nil
}
