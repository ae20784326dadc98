package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
)

// firstUserOID is FirstNormalObjectId: every object with a smaller OID was
// created by initdb, not by an extension or a user.
const firstUserOID = 16384

// Fixed OIDs of the system catalogs that pg_depend rows name.
const (
	oidPgClass      = 1259
	oidPgProc       = 1255
	oidPgOperator   = 2617
	oidPgConstraint = 2606
	oidPgAm         = 2601
)

// Proof limits.
const (
	maxViewDepth      = 8  // views nested in views, the top-level relation being level 1
	maxProofRelations = 64 // distinct relations one read may prove
)

// Relation kinds as Proof.Kind and TableEntry.Kind spell them.
const (
	kindTable   = "table"
	kindView    = "view"
	kindMatView = "materialized_view"
)

// relQuery reads one relation's header. The WHERE clause is appended.
const relQuery = `SELECT c.oid, c.relkind, c.relpersistence, (c.relrowsecurity OR c.relforcerowsecurity),
 c.relhassubclass, c.relispartition,
 EXISTS (SELECT 1 FROM pg_catalog.pg_inherits i WHERE i.inhrelid = c.oid OR i.inhparent = c.oid),
 c.relfilenode, c.relam, n.nspname, c.relname,
 pg_catalog.has_table_privilege(c.oid, 'UPDATE, DELETE, TRUNCATE'),
 pg_catalog.has_table_privilege(c.oid, 'SELECT')
FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace `

const relByName = relQuery + `WHERE n.nspname = $1 AND c.relname = $2`
const relByOID = relQuery + `WHERE c.oid = $1::pg_catalog.oid`

// colQuery reads the columns with their types' shape. Arrays are matched
// by category so the element type can be checked too.
const colQuery = `SELECT a.attname, a.atttypid, a.atttypmod, pg_catalog.format_type(a.atttypid, a.atttypmod),
 a.attnotnull, a.attgenerated <> '', t.typtype, COALESCE(e.oid, 0), COALESCE(e.typtype, ''), a.attcollation
FROM pg_catalog.pg_attribute a
JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
LEFT JOIN pg_catalog.pg_type e ON t.typcategory = 'A' AND e.oid = t.typelem
WHERE a.attrelid = $1::pg_catalog.oid AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY a.attnum`

// depQuery lists what the relation's indexes (their expressions, partial
// predicates, operator classes, collations, access methods) and CHECK
// constraints depend on, leaving out the relation itself and its own
// constraints. Each branch starts from the relation's own indexes or
// constraints and finds their rows through pg_depend's depender index, so
// its cost does not grow with the database's other objects.
const depQuery = `SELECT d.classid, d.objid, d.refclassid, d.refobjid, d.refobjsubid
FROM pg_catalog.pg_index x
JOIN pg_catalog.pg_depend d ON d.classid = 1259 AND d.objid = x.indexrelid
WHERE x.indrelid = $1::pg_catalog.oid
  AND NOT (d.refclassid = 1259 AND d.refobjid = $1::pg_catalog.oid)
  AND NOT (d.refclassid = 2606 AND d.refobjid IN (SELECT k.oid FROM pg_catalog.pg_constraint k WHERE k.conrelid = $1::pg_catalog.oid))
UNION ALL
SELECT d.classid, d.objid, d.refclassid, d.refobjid, d.refobjsubid
FROM pg_catalog.pg_constraint c
JOIN pg_catalog.pg_depend d ON d.classid = 2606 AND d.objid = c.oid
WHERE c.conrelid = $1::pg_catalog.oid AND c.contype = 'c'
  AND NOT (d.refclassid = 1259 AND d.refobjid = $1::pg_catalog.oid)
  AND NOT (d.refclassid = 2606 AND d.refobjid IN (SELECT k.oid FROM pg_catalog.pg_constraint k WHERE k.conrelid = $1::pg_catalog.oid))
UNION ALL
SELECT 1259, x.indexrelid, 2601, c.relam, 0
FROM pg_catalog.pg_index x JOIN pg_catalog.pg_class c ON c.oid = x.indexrelid
WHERE x.indrelid = $1::pg_catalog.oid
ORDER BY 1, 2, 3, 4, 5`

// ruleQuery reads a view's SELECT rule tree.
const ruleQuery = `SELECT r.oid, r.ev_action::pg_catalog.text FROM pg_catalog.pg_rewrite r
WHERE r.ev_class = $1::pg_catalog.oid AND r.rulename = '_RETURN'`

// ruleOf selects the OID of a view's SELECT rule.
const ruleOf = `(SELECT r.oid FROM pg_catalog.pg_rewrite r WHERE r.ev_class = $1::pg_catalog.oid AND r.rulename = '_RETURN')`

// ruleDepQuery lists what the rule depends on, with the volatility of
// functions and of operators' functions.
const ruleDepQuery = `SELECT d.refclassid, d.refobjid, d.refobjsubid, COALESCE(p.provolatile::pg_catalog.text, op.provolatile::pg_catalog.text, '')
FROM pg_catalog.pg_depend d
LEFT JOIN pg_catalog.pg_proc p ON d.refclassid = 1255 AND p.oid = d.refobjid
LEFT JOIN pg_catalog.pg_operator o ON d.refclassid = 2617 AND o.oid = d.refobjid
LEFT JOIN pg_catalog.pg_proc op ON op.oid = o.oprcode
WHERE d.classid = 2618 AND d.objid = ` + ruleOf + `
ORDER BY 1, 2, 3`

// callQuery returns the volatility of functions and operators found in a
// rule tree, as a second net under pg_depend.
const callQuery = `SELECT p.oid, p.provolatile FROM pg_catalog.pg_proc p WHERE p.oid = ANY($1::pg_catalog.oid[])
UNION ALL
SELECT o.oid, p.provolatile FROM pg_catalog.pg_operator o JOIN pg_catalog.pg_proc p ON p.oid = o.oprcode
WHERE o.oid = ANY($2::pg_catalog.oid[])`

// Node fields of a stored rule tree that name functions, operators and
// relations.
var (
	reFuncField = regexp.MustCompile(`:(?:funcid|aggfnoid|winfnoid|opfuncid) (\d+)`)
	reOpField   = regexp.MustCompile(`:opno (\d+)`)
	reRelField  = regexp.MustCompile(`:relid (\d+)`)
)

// relProof is what the proof learned about one relation.
type relProof struct {
	oid     uint32
	table   verifier.Table
	relkind byte
	canLock bool // UPDATE, DELETE or TRUNCATE: needed for SHARE UPDATE EXCLUSIVE
	canRead bool
	columns []engines.Column
	// types are the columns' type OIDs by name (coltypes.go).
	types    map[string]uint32
	identity string
}

// kind is the Proof.Kind of the relation.
func (r *relProof) kind() string {
	switch r.relkind {
	case 'v':
		return kindView
	case 'm':
		return kindMatView
	}
	return kindTable
}

// proof converts to the engine interface's form.
func (r *relProof) proof() engines.Proof {
	return engines.Proof{Table: r.table, Kind: r.kind(), Columns: r.columns, Identity: r.identity}
}

// prover proves a set of relations and every relation their views read,
// remembering each once.
type prover struct {
	e    *Engine
	seen map[uint32]*relProof
	// viewFuncs are the functions the proven views' rule trees call.
	viewFuncs map[uint32]bool
}

func newProver(e *Engine) *prover {
	return &prover{e: e, seen: map[uint32]*relProof{}, viewFuncs: map[uint32]bool{}}
}

// ineligible is a proof refusal.
func ineligible(r engines.Reason) *engines.Error {
	return engines.NewError(engines.CodeIneligible, r, nil)
}

// proveTable proves a relation named by schema and name.
func (p *prover) proveTable(ctx context.Context, t verifier.Table) (*relProof, error) {
	rows, err := p.e.query(ctx, relByName, t.Schema, t.Name)
	if err != nil {
		return nil, mapErr(ctx, err)
	}
	if len(rows) != 1 {
		return nil, ineligible(engines.ReasonNotFound)
	}
	return p.prove(ctx, rows[0], 1, true)
}

// proveOID proves a relation a view reads.
func (p *prover) proveOID(ctx context.Context, oid uint32, level int) (*relProof, error) {
	if r, ok := p.seen[oid]; ok {
		return r, nil
	}
	rows, err := p.e.query(ctx, relByOID, strconv.FormatUint(uint64(oid), 10))
	if err != nil {
		return nil, mapErr(ctx, err)
	}
	if len(rows) != 1 {
		return nil, ineligible(ReasonViewDefinition)
	}
	return p.prove(ctx, rows[0], level, false)
}

// prove checks one relation from its header row and, for a view, the
// relations its rule reads.
func (p *prover) prove(ctx context.Context, row [][]byte, level int, top bool) (*relProof, error) {
	oid, err := parseOID(row[0])
	if err != nil {
		return nil, ineligible(engines.ReasonNotFound)
	}
	if r, ok := p.seen[oid]; ok {
		return r, nil
	}
	if len(p.seen) >= maxProofRelations {
		return nil, ineligible(ReasonTooManyRelations)
	}
	r := &relProof{
		oid:     oid,
		table:   verifier.Table{Schema: string(row[9]), Name: string(row[10])},
		relkind: firstByte(row[1]),
		canLock: isTrue(row[11]),
		canRead: isTrue(row[12]),
	}
	id := sha256.New()
	writeRow(id, "rel", row)

	ns := r.table.Schema
	if oid < firstUserOID || ns == "pg_catalog" || ns == "information_schema" || strings.HasPrefix(ns, "pg_toast") {
		return nil, ineligible(ReasonSystemRelation)
	}
	switch r.relkind {
	case 'r', 'm', 'v':
	case 'p':
		return nil, ineligible(ReasonPartitioning)
	default:
		return nil, ineligible(ReasonTableKind)
	}
	if r.relkind == 'v' && level > maxViewDepth {
		return nil, ineligible(ReasonViewTooDeep)
	}
	if firstByte(row[2]) != 'p' {
		return nil, ineligible(ReasonPersistence)
	}
	if isTrue(row[5]) {
		return nil, ineligible(ReasonPartitioning)
	}
	if isTrue(row[4]) || isTrue(row[6]) {
		return nil, ineligible(ReasonInheritance)
	}
	if isTrue(row[3]) {
		return nil, ineligible(ReasonRLS)
	}
	if r.relkind != 'v' && string(row[8]) != "2" { // heap
		return nil, ineligible(ReasonAccessMethod)
	}

	// One round trip for the rest of this relation's catalog rows.
	oidText := string(row[0])
	queries := []string{colQuery, depQuery}
	if r.relkind == 'v' {
		queries = []string{colQuery, ruleQuery, ruleDepQuery}
	}
	res, err := p.e.batch(ctx, oidText, queries...)
	if err != nil {
		return nil, mapErr(ctx, err)
	}
	cols := res[0]
	if top && len(cols) > engines.MaxColumns {
		return nil, ineligible(engines.ReasonTooManyColumns)
	}
	for _, c := range cols {
		writeRow(id, "col", c)
		if isTrue(c[5]) {
			return nil, ineligible(ReasonGeneratedColumn)
		}
		if !builtinColumnType(c) {
			return nil, ineligible(ReasonColumnType)
		}
		if coll, err := parseOID(c[9]); err != nil || coll >= firstUserOID {
			return nil, ineligible(ReasonColumnCollation)
		}
		r.columns = append(r.columns, engines.Column{Name: string(c[0]), Type: string(c[3]), Nullable: !isTrue(c[4])})
		if typ, err := parseOID(c[1]); err == nil {
			if r.types == nil {
				r.types = map[string]uint32{}
			}
			r.types[string(c[0])] = typ
		}
	}

	if r.relkind == 'v' {
		if err := p.proveView(ctx, r, res[1], res[2], level, id); err != nil {
			return nil, err
		}
	} else {
		for _, d := range res[1] {
			writeRow(id, "dep", d)
			ref, err := parseOID(d[3])
			if err != nil || ref >= firstUserOID {
				if string(d[0]) == strconv.Itoa(oidPgConstraint) {
					return nil, ineligible(ReasonCheckDependency)
				}
				return nil, ineligible(ReasonIndexDependency)
			}
		}
	}
	r.identity = hex.EncodeToString(id.Sum(nil))
	p.seen[oid] = r
	return r, nil
}

// proveView checks a view's rule tree and proves every relation it reads,
// one level deeper.
func (p *prover) proveView(ctx context.Context, r *relProof, rules, deps [][][]byte, level int, id hashWriter) error {
	if len(rules) != 1 {
		return ineligible(ReasonViewDefinition)
	}
	writeRow(id, "rule", rules[0])
	tree := string(rules[0][1])
	rels := map[uint32]bool{}
	for _, d := range deps {
		writeRow(id, "vdep", d)
		class, err1 := parseOID(d[0])
		ref, err2 := parseOID(d[1])
		if err1 != nil || err2 != nil {
			return ineligible(ReasonViewDefinition)
		}
		switch class {
		case oidPgClass:
			if ref != r.oid {
				rels[ref] = true
			}
			continue
		case oidPgProc, oidPgOperator:
			if class == oidPgProc {
				p.viewFuncs[ref] = true
			}
			if v := string(d[3]); v != "i" && v != "s" {
				return ineligible(ReasonViewDefinition)
			}
		}
		if ref >= firstUserOID {
			return ineligible(ReasonViewDefinition)
		}
	}
	// Second net: every function, operator and relation named in the tree.
	funcs, ops := map[uint32]bool{}, map[uint32]bool{}
	for _, m := range reFuncField.FindAllStringSubmatch(tree, -1) {
		if o, err := strconv.ParseUint(m[1], 10, 32); err == nil && o != 0 {
			funcs[uint32(o)] = true
		}
	}
	for _, m := range reOpField.FindAllStringSubmatch(tree, -1) {
		if o, err := strconv.ParseUint(m[1], 10, 32); err == nil && o != 0 {
			ops[uint32(o)] = true
		}
	}
	for _, m := range reRelField.FindAllStringSubmatch(tree, -1) {
		if o, err := strconv.ParseUint(m[1], 10, 32); err == nil && o != 0 && uint32(o) != r.oid {
			rels[uint32(o)] = true
		}
	}
	for o := range funcs {
		p.viewFuncs[o] = true
		if o >= firstUserOID {
			return ineligible(ReasonViewDefinition)
		}
	}
	for o := range ops {
		if o >= firstUserOID {
			return ineligible(ReasonViewDefinition)
		}
	}
	if len(funcs)+len(ops) > 0 {
		rows, err := p.e.query(ctx, callQuery, oidArray(funcs), oidArray(ops))
		if err != nil {
			return mapErr(ctx, err)
		}
		if len(rows) != len(funcs)+len(ops) {
			return ineligible(ReasonViewDefinition)
		}
		for _, row := range rows {
			if v := string(row[1]); v != "i" && v != "s" {
				return ineligible(ReasonViewDefinition)
			}
		}
	}
	for _, o := range sortedOIDs(rels) {
		child, err := p.proveOID(ctx, o, level+1)
		if err != nil {
			return err
		}
		id.Write([]byte("child:" + child.identity + "\n"))
	}
	return nil
}

// builtinColumnType reports whether a column row's type is a built-in base
// type or an array of one.
func builtinColumnType(c [][]byte) bool {
	typ, err := parseOID(c[1])
	if err != nil || typ >= firstUserOID || firstByte(c[6]) != 'b' {
		return false
	}
	elem, err := parseOID(c[7])
	if err != nil {
		return false
	}
	if elem == 0 {
		return true
	}
	return elem < firstUserOID && firstByte(c[8]) == 'b'
}

// lockPlan is how a proven set of relations is locked before the reading
// snapshot is taken.
type lockPlan struct {
	tables   []string // quoted names locked IN SHARE UPDATE EXCLUSIVE MODE
	views    []string // quoted names locked IN ACCESS SHARE MODE (the definition)
	matviews []string // quoted names locked by a TABLESAMPLE SYSTEM (0) read
	// funcs are the functions the proven views call (see funcguard.go).
	funcs map[uint32]bool
	// oids are every relation the proof covered (nested ones included):
	// the only relations the read may lock (see relguard.go).
	oids map[uint32]bool
}

// plan returns the locks for everything proven so far, in OID order.
func (p *prover) plan() (lockPlan, error) {
	var lp lockPlan
	oids := make(map[uint32]bool, len(p.seen))
	for o := range p.seen {
		oids[o] = true
	}
	lp.oids = oids
	lp.funcs = p.viewFuncs
	for _, o := range sortedOIDs(oids) {
		r := p.seen[o]
		name := pgx.Identifier{r.table.Schema, r.table.Name}.Sanitize()
		switch r.relkind {
		case 'r':
			if !r.canLock {
				return lp, engines.NewError(engines.CodeDenied, ReasonLockPrivilege, nil)
			}
			lp.tables = append(lp.tables, name)
		case 'v':
			lp.views = append(lp.views, name)
		case 'm':
			lp.matviews = append(lp.matviews, name)
		}
	}
	return lp, nil
}

// hashWriter is the part of hash.Hash the identity uses.
type hashWriter interface{ Write([]byte) (int, error) }

// writeRow adds a catalog row to an identity, length-prefixing each field
// so no two different rows hash alike.
func writeRow(h hashWriter, tag string, row [][]byte) {
	h.Write([]byte(tag))
	for _, f := range row {
		if f == nil {
			h.Write([]byte("|-"))
			continue
		}
		h.Write([]byte("|" + strconv.Itoa(len(f)) + ":"))
		h.Write(f)
	}
	h.Write([]byte("\n"))
}

func parseOID(b []byte) (uint32, error) {
	n, err := strconv.ParseUint(string(b), 10, 32)
	return uint32(n), err
}

func firstByte(b []byte) byte {
	if len(b) == 0 {
		return 0
	}
	return b[0]
}

func isTrue(b []byte) bool { return string(b) == "t" }

func sortedOIDs(m map[uint32]bool) []uint32 {
	out := make([]uint32, 0, len(m))
	for o := range m {
		out = append(out, o)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// oidArray renders OIDs as a PostgreSQL array literal.
func oidArray(m map[uint32]bool) string {
	parts := make([]string, 0, len(m))
	for _, o := range sortedOIDs(m) {
		parts = append(parts, strconv.FormatUint(uint64(o), 10))
	}
	return "{" + strings.Join(parts, ",") + "}"
}
