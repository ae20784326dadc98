// Package verifier decides, before anything reaches a database, what an
// agent's SQL may do. It is pure: no I/O, no database driver, no MCP.
//
// Each dialect lives in its own subpackage (verifier/postgres,
// verifier/mysql, verifier/sqlite) with the same file set and exposes
//
//	func Verify(in verifier.Input) (*verifier.Verdict, error)
//
// The verifier fails closed: whatever it does not positively recognise is
// refused with a *Refusal carrying a stable Code and a static message. A
// refusal never copies text from the input or from the parser.
//
// An accepted read is described by a Verdict whose NormalizedSQL is
// regenerated from the verified tree; that text, never the agent's, is what
// an engine runs. Feeding NormalizedSQL back to Verify yields the same
// Verdict.
package verifier

import (
	"errors"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Dialect names the SQL grammar the input is parsed with.
type Dialect string

// The dialects dbeast verifies.
const (
	Postgres Dialect = "postgres"
	MySQL    Dialect = "mysql"
	SQLite   Dialect = "sqlite"
)

// Mode says which use the SQL is verified for.
type Mode string

const (
	// ModeRead is query_sql and everything covered by read and table grants:
	// one plain SELECT over proven tables. The zero Mode means ModeRead.
	ModeRead Mode = "read"
	// ModeTableWrite is a single-table INSERT/UPDATE/DELETE allowed by
	// standing read_write table access.
	ModeTableWrite Mode = "table_write"
	// ModeFull is request_sql: exactly one statement, text kept as sent.
	ModeFull Mode = "full"
)

// Op is the operation kind of an accepted statement.
type Op string

// Operation kinds.
const (
	OpRead   Op = "read"
	OpInsert Op = "insert"
	OpUpdate Op = "update"
	OpDelete Op = "delete"
	// OpFull is any statement accepted in ModeFull; its effect is unknown.
	OpFull Op = "full"
)

// Limits that hold for every dialect.
const (
	MaxSQLBytes = 64 << 10 // SQL text
	MaxTables   = 16       // distinct physical tables in one query (TableSet)
	MaxAliases  = 32       // distinct relation names: CTEs and FROM entries (AliasSet)
	MaxDepth    = 200      // nesting of expressions and subqueries
	// MaxExpressionGrowth bounds how many expression nodes substituting
	// derived-table and CTE columns into the places that reference them may
	// add to a query (the servers' flatteners and SQLite's prepare copy an
	// output column's expression into every reference). Text alone cannot
	// reach it: 64 KiB holds fewer nodes; nested derived tables that
	// repeat a column can (s||s||s||s over ten levels is 4^10 nodes).
	MaxExpressionGrowth = 1 << 16
)

// Input is one verification request. The zero Mode is ModeRead.
type Input struct {
	Dialect Dialect
	SQL     string
	Mode    Mode
	// Database is, for MySQL, the source's configured database: the only one
	// a read may name. Other dialects ignore it.
	Database string
	// Flavor is, for MySQL, the server family the engine detected:
	// FlavorMySQL or FlavorMariaDB. They resolve names differently (a CTE
	// body inside a nested WITH does not see outer CTEs on MariaDB); the
	// zero value accepts only what both read the same way. Other dialects
	// ignore it.
	Flavor Flavor
}

// Flavor is a MySQL-protocol server family.
type Flavor string

// The MySQL flavors; the zero Flavor means unknown.
const (
	FlavorMySQL   Flavor = "mysql"
	FlavorMariaDB Flavor = "mariadb"
)

// Table is a physical table (or view) as schema and name, exactly as the
// server spells them after identifier folding.
type Table struct {
	Schema string `json:"schema"`
	Name   string `json:"name"`
}

// String returns schema.name, unquoted; it is a map key and display form,
// never SQL.
func (t Table) String() string { return t.Schema + "." + t.Name }

// Less orders tables by schema then name.
func (t Table) Less(u Table) bool {
	if t.Schema != u.Schema {
		return t.Schema < u.Schema
	}
	return t.Name < u.Name
}

// Verdict describes an accepted statement.
type Verdict struct {
	Dialect Dialect `json:"dialect"`
	Mode    Mode    `json:"mode"`
	Op      Op      `json:"op"`
	// NormalizedSQL is what runs: regenerated from the verified tree with
	// comments dropped and unambiguous quoting. In ModeFull it is the
	// original text, unchanged.
	NormalizedSQL string `json:"normalized_sql"`
	// Tables is the sorted, duplicate-free set of physical tables read or
	// written. Empty in ModeFull (full SQL is not analysed for access).
	Tables []Table `json:"tables"`
	// Columns maps Table.String() to the sorted column names referenced
	// through that table. Each is an obligation: the engine must find it
	// among the table's proven columns, because PostgreSQL reads alias.name
	// as the call name(alias) when no such column exists.
	Columns map[string][]string `json:"columns"`
	// References lists each physical table reference by the alias the
	// server's plan shows for it (the table's name when it has none), with
	// how many times the server plans it (a CTE's references once per use
	// of the CTE), sorted by alias then table. Only the MySQL dialect
	// fills it: MariaDB's EXPLAIN names a table only by its alias in the
	// query blocks its note leaves out, and the engine's relation guard
	// matches those rows against these references by count, not against
	// table names. Nil for other dialects and in ModeFull.
	References []Reference `json:"references,omitempty"`
	// ColumnTypes are obligations on the types of columns, sorted: each
	// says the query is safe only if the column has one of the listed
	// types (PostgreSQL: a cast of a column to a date/time type, which
	// would parse time zone names if the column were text,
	// verifier/postgres/coltypes.go). The verifier cannot see types; the
	// engine discharges each from the column types it proves inside the
	// reading transaction and refuses the read when a column's type is
	// not listed. Nil when there are none.
	// Only the PostgreSQL dialect fills it.
	ColumnTypes []ColumnType `json:"column_types,omitempty"`
	// Functions is the sorted set of lower-case function names called.
	// Every one is in Functions(Dialect); engines prove each resolves to the
	// built-in.
	Functions []string `json:"functions"`
	// Target is the written table in ModeTableWrite, nil otherwise.
	Target *Table `json:"target,omitempty"`
	// ZoneNames reports whether the query may make the server load time
	// zone data it keeps for the life of the connection (PostgreSQL: a
	// zone name in a constant, verifier/postgres/cost.go). An engine that
	// pools connections retires the connection after such a read.
	ZoneNames bool `json:"zone_names,omitempty"`
}

// Reference is one table reference of a statement: the table, the alias
// it is read under, and how many times the statement's plan reads it.
type Reference struct {
	Table Table  `json:"table"`
	Alias string `json:"alias"`
	Uses  int    `json:"uses"`
}

// ColumnType is one obligation on a column's type: the column Column
// has one of Types in every one of Tables that has a column of that name,
// and at least one does. Tables (sorted) are the physical tables an
// unqualified name may come from, whichever the server picks; one table
// for a qualified name. Types are named as the dialect's catalog names
// built-in types (PostgreSQL: pg_type.typname, such as timestamptz).
type ColumnType struct {
	Tables []Table  `json:"tables"`
	Column string   `json:"column"`
	Types  []string `json:"types"`
}

// TableNames returns the tables as schema.name strings, sorted.
func (v *Verdict) TableNames() []string {
	out := make([]string, len(v.Tables))
	for i, t := range v.Tables {
		out[i] = t.String()
	}
	return out
}

// Code is a stable refusal code.
type Code string

// Refusal codes shared by every dialect. A dialect may refuse with any of
// them; the set is closed so callers can switch on it.
const (
	CodeInputTooLarge        Code = "input_too_large"
	CodeInvalidEncoding      Code = "invalid_encoding" // NUL byte or invalid UTF-8
	CodeParseError           Code = "parse_error"
	CodeEmptyStatement       Code = "empty_statement"
	CodeMultipleStatements   Code = "multiple_statements"
	CodeStatementNotAllowed  Code = "statement_not_allowed"
	CodeConstructNotAllowed  Code = "construct_not_allowed" // a node the allowlist does not know
	CodeUnqualifiedTable     Code = "unqualified_table"
	CodeSystemObject         Code = "system_object"
	CodeOtherDatabase        Code = "other_database"
	CodeFunctionNotAllowed   Code = "function_not_allowed"
	CodeOperatorNotAllowed   Code = "operator_not_allowed"
	CodeCastNotAllowed       Code = "cast_not_allowed"
	CodeWindowNotAllowed     Code = "window_not_allowed"
	CodeRecursiveCTE         Code = "recursive_cte"
	CodeDataModifyingCTE     Code = "data_modifying_cte"
	CodeLockingClause        Code = "locking_clause"
	CodeSelectInto           Code = "select_into"
	CodeCollationNotAllowed  Code = "collation_not_allowed"
	CodeParameterNotAllowed  Code = "parameter_not_allowed"
	CodeVariableNotAllowed   Code = "variable_not_allowed"
	CodeTableFunction        Code = "table_function"
	CodeTableSample          Code = "tablesample_not_allowed"
	CodeInheritanceMarker    Code = "inheritance_marker"
	CodeExecutableComment    Code = "executable_comment"
	CodeOptimizerHint        Code = "optimizer_hint"
	CodeIndexHint            Code = "index_hint"
	CodeModifierNotAllowed   Code = "modifier_not_allowed"
	CodeTooManyTables        Code = "too_many_tables"
	CodeTooManyAliases       Code = "too_many_aliases"
	CodeTooDeep              Code = "too_deep"
	CodeWholeRowReference    Code = "whole_row_reference"
	CodeColumnNameNotAllowed Code = "column_name_not_allowed" // alias.fn on a CTE/subquery
	CodeWriteShapeNotAllowed Code = "write_shape_not_allowed"
	CodeLiteralNotAllowed    Code = "literal_not_allowed"
	CodeCommentNotAllowed    Code = "comment_not_allowed"
	CodeDuplicateAlias       Code = "duplicate_alias"
	CodeExpressionTooLarge   Code = "expression_too_large"
	CodeUnknownColumn        Code = "unknown_column"
)

// messages holds the static text for each code. A refusal's message is
// always one of these: never input or parser text.
var messages = map[Code]string{
	CodeInputTooLarge:        "SQL text is larger than " + strconv.Itoa(MaxSQLBytes>>10) + " KiB",
	CodeInvalidEncoding:      "SQL text contains a NUL byte or invalid UTF-8",
	CodeParseError:           "SQL text could not be parsed",
	CodeEmptyStatement:       "SQL text contains no statement",
	CodeMultipleStatements:   "exactly one statement is allowed",
	CodeStatementNotAllowed:  "only a plain SELECT is allowed here",
	CodeConstructNotAllowed:  "the query uses a construct the verifier does not support",
	CodeUnqualifiedTable:     "physical tables must be written as schema.table",
	CodeSystemObject:         "system schemas, catalogs and system columns are not allowed",
	CodeOtherDatabase:        "only the source's configured database may be named",
	CodeFunctionNotAllowed:   "the function is not on the list of allowed functions",
	CodeOperatorNotAllowed:   "the operator is not allowed",
	CodeCastNotAllowed:       "casts are not allowed",
	CodeWindowNotAllowed:     "window functions are not allowed",
	CodeRecursiveCTE:         "recursive CTEs are not allowed",
	CodeDataModifyingCTE:     "data-modifying CTEs are not allowed",
	CodeLockingClause:        "locking clauses are not allowed",
	CodeSelectInto:           "SELECT INTO is not allowed",
	CodeCollationNotAllowed:  "COLLATE is not allowed",
	CodeParameterNotAllowed:  "bound parameters are not allowed",
	CodeVariableNotAllowed:   "variables are not allowed",
	CodeTableFunction:        "table functions are not allowed in FROM",
	CodeTableSample:          "TABLESAMPLE is not allowed",
	CodeInheritanceMarker:    "ONLY and * inheritance markers are not allowed",
	CodeExecutableComment:    "executable comments are not allowed",
	CodeOptimizerHint:        "optimizer hints are not allowed",
	CodeIndexHint:            "index hints are not allowed",
	CodeModifierNotAllowed:   "this SELECT modifier is not allowed",
	CodeTooManyTables:        "a query may reference at most 16 distinct physical tables",
	CodeTooManyAliases:       "a query may use at most " + strconv.Itoa(MaxAliases) + " distinct aliases (CTE and FROM names)",
	CodeTooDeep:              "the query is nested too deeply",
	CodeWholeRowReference:    "whole-row references are not allowed",
	CodeColumnNameNotAllowed: "this qualified column name must be given another alias",
	CodeWriteShapeNotAllowed: "only a single-table INSERT VALUES, or UPDATE or DELETE with WHERE, on a qualified target is allowed",
	CodeLiteralNotAllowed:    "this literal form is not allowed",
	CodeCommentNotAllowed:    "this comment form is not allowed",
	CodeDuplicateAlias:       "an alias is used twice in one scope",
	CodeExpressionTooLarge:   "the query's expressions would grow too large after substitution",
	CodeUnknownColumn:        "a column name matches no column of the tables and subqueries in scope",
}

// Codes returns every refusal code, sorted.
func Codes() []Code {
	out := make([]Code, 0, len(messages))
	for c := range messages {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Refusal is the error returned for refused input. Its Message is static.
// Two optional details make a refusal actionable without ever copying the
// input: Function names a refused function only from our own vocabulary
// (KnownFunctions, lower case), and Offset is a byte offset into the SQL
// text computed by the parser.
type Refusal struct {
	Code    Code   `json:"code"`
	Message string `json:"reason"`
	// Function is the refused function's canonical lower-case name when it
	// is in KnownFunctions; empty otherwise (a name the input made up is
	// never repeated).
	Function string `json:"function,omitempty"`
	// Offset is the byte offset in the SQL text, from 0, near the refused
	// construct: on a parse error the start of the token the parser could
	// not take (PostgreSQL, SQLite) or its end (MySQL, whose parser reports
	// only that). Every dialect's Verify sets it (Annotate); nil only on a
	// refusal that has not passed through one.
	Offset *int `json:"offset,omitempty"`
	// Construct names what was refused, from a fixed vocabulary
	// (refusal.go): a function from KnownFunctions, a cast target type, an
	// operator, or the clause the code stands for.
	Construct string `json:"construct,omitempty"`
	// Hint is the dialect's safe spelling of the construct where one
	// exists (refusal.go's hints); static text.
	Hint string `json:"hint,omitempty"`
}

// Error returns the code and the static message only: details are for the
// agent-facing boundary, which decides how to show them.
func (r *Refusal) Error() string { return "verifier: " + string(r.Code) + ": " + r.Message }

// Refuse returns the refusal for code with its static message. An unknown
// code panics: codes are a closed set and a typo is a programming error.
func Refuse(code Code) *Refusal {
	msg, ok := messages[code]
	if !ok {
		panic("verifier: unknown refusal code " + string(code))
	}
	return &Refusal{Code: code, Message: msg, Construct: codeConstructs[code]}
}

// RefuseFunction returns the function_not_allowed refusal, naming name
// only when it is in KnownFunctions. name is the dialect's canonical
// form (lower case where the engine folds case); a name that differs only
// in case, such as PostgreSQL's quoted "LOWER", is not named.
func RefuseFunction(name string) *Refusal {
	r := Refuse(CodeFunctionNotAllowed)
	if KnownFunctions[name] {
		r.Function, r.Construct = name, name
	}
	return r
}

// RefuseAt returns the refusal for code at byte offset off of the SQL
// text (negative: unknown).
func RefuseAt(code Code, off int) *Refusal {
	r := Refuse(code)
	if off >= 0 {
		r.Offset = &off
	}
	return r
}

// KnownFunctions is the vocabulary a refusal may name a function from:
// the allowed functions and the built-ins agents most often try that the
// contract refuses (time, randomness, sleeping, session and server
// information, file and extension access). A fixed list, so a refusal
// never repeats a name the input invented.
var KnownFunctions = func() map[string]bool {
	m := map[string]bool{}
	for f := range AllowedFunctions {
		m[f] = true
	}
	for _, f := range strings.Fields(`now random rand uuid gen_random_uuid current_date current_time
		current_timestamp localtime localtimestamp sysdate curdate curtime utc_timestamp date datetime
		julianday strftime unixepoch date_trunc extract to_char to_date to_timestamp age
		sleep pg_sleep benchmark load_extension load_file pg_read_file pg_read_binary_file pg_ls_dir
		lo_import lo_export readfile writefile set_config current_setting version user current_user
		session_user system_user database schema current_database current_schema connection_id
		last_insert_id last_insert_rowid changes total_changes sqlite_version pg_backend_pid
		nextval currval setval concat concat_ws substr substring replace trim ltrim rtrim instr
		printf format group_concat string_agg array_agg json_agg json_extract json_object
		jsonb_build_object cast convert ifnull iif if nvl greatest least hex unhex md5 sha1 sha2
		randomblob zeroblob typeof quote char ascii floor ceil ceiling mod power sqrt exp ln log
		sign trunc total`) {
		m[f] = true
	}
	return m
}()

// AsRefusal reports whether err is a refusal and returns it.
func AsRefusal(err error) (*Refusal, bool) {
	var r *Refusal
	ok := errors.As(err, &r)
	return r, ok
}

// ContractFunctions are the contract's first-release list, which every
// dialect shares as far as its server has the function (SQLite has no
// char_length).
var ContractFunctions = setOf(`count sum avg min max abs lower upper length
	char_length octet_length round coalesce nullif`)

// PostgresFunctions are the names PostgreSQL's read path may list in a
// Verdict: the names of PostgresAllowlist. The engine proves each against
// pg_proc and its plan guard refuses any other call.
var PostgresFunctions = PostgresAllowlist.Names()

// MySQLFunctions are the names the MySQL/MariaDB read path may list: the
// names of MySQLAllowlist.
var MySQLFunctions = MySQLAllowlist.Names()

// SQLiteFunctions are the names the SQLite read path may list: the names
// of SQLiteAllowlist.
var SQLiteFunctions = SQLiteAllowlist.Names()

// Functions returns dialect d's set (nil for an unknown dialect). Every
// engine checks a verdict's names against its own dialect's set.
func Functions(d Dialect) map[string]bool {
	switch d {
	case Postgres:
		return PostgresFunctions
	case MySQL:
		return MySQLFunctions
	case SQLite:
		return SQLiteFunctions
	}
	return nil
}

// AllowedFunctions is the union of the dialects' sets: a name some
// dialect's read path may list. It is a vocabulary (for KnownFunctions
// and what the broker shows); decisions use Functions(d).
var AllowedFunctions = union(PostgresFunctions, MySQLFunctions, SQLiteFunctions)

func setOf(names string) map[string]bool {
	m := map[string]bool{}
	for _, f := range strings.Fields(names) {
		m[f] = true
	}
	return m
}

func union(sets ...map[string]bool) map[string]bool {
	m := map[string]bool{}
	for _, s := range sets {
		for f := range s {
			m[f] = true
		}
	}
	return m
}

// WholeRowFunctions are functions that accept a whole row; a qualified
// reference alias.name to a CTE or subquery output named like one of them
// is refused, since PostgreSQL may read it as name(alias).
var WholeRowFunctions = map[string]bool{
	"row_to_json": true, "to_json": true, "to_jsonb": true, "count": true,
	"json_build_array": true, "jsonb_build_array": true, "json_agg": true,
	"jsonb_agg": true, "array_agg": true, "string_agg": true, "hstore": true,
	"row_to_jsonb": true, "to_char": true, "textin": true, "record_out": true,
	"min": true, "max": true, "num_nonnulls": true, "num_nulls": true,
	"pg_column_size": true, "format": true, "concat": true, "concat_ws": true,
	"xmlagg": true, "to_tsvector": true, "json_populate_record": true,
	"text": true, "name": true, "length": true, "lower": true, "upper": true,
	"octet_length": true, "char_length": true, "coalesce": true, "nullif": true,
	"sum": true, "avg": true, "abs": true, "round": true,
}

// CheckText applies the checks every dialect runs before parsing: size,
// NUL bytes (C parsers stop there) and UTF-8 validity.
func CheckText(sql string) error {
	if len(sql) > MaxSQLBytes {
		return Refuse(CodeInputTooLarge)
	}
	if strings.IndexByte(sql, 0) >= 0 || !utf8.ValidString(sql) {
		return Refuse(CodeInvalidEncoding)
	}
	if strings.TrimSpace(sql) == "" {
		return Refuse(CodeEmptyStatement)
	}
	return nil
}

// NormalizeMode maps the zero Mode to ModeRead and rejects unknown modes.
func NormalizeMode(m Mode) (Mode, error) {
	switch m {
	case "":
		return ModeRead, nil
	case ModeRead, ModeTableWrite, ModeFull:
		return m, nil
	}
	return "", Refuse(CodeStatementNotAllowed)
}

// Builder accumulates the sets of a Verdict during a walk; dialects use it
// so every Verdict is sorted and duplicate-free the same way.
type Builder struct {
	tables   map[Table]bool
	columns  map[Table]map[string]bool
	funcs    map[string]bool
	colTypes map[string]ColumnType // by table, column and types
}

// AddColumnType records that column col must have one of types (sorted
// by the caller) in each of tables that has it. With one table the
// column is also an ordinary column obligation.
func (b *Builder) AddColumnType(tables []Table, col string, types []string) {
	ts := append([]Table(nil), tables...)
	sort.Slice(ts, func(i, j int) bool { return ts[i].Less(ts[j]) })
	ts = slices.Compact(ts)
	var key strings.Builder
	for _, t := range ts {
		b.AddTable(t)
		key.WriteString(t.Schema + "\x00" + t.Name + "\x00")
	}
	if len(ts) == 1 {
		b.AddColumn(ts[0], col)
	}
	key.WriteString("\x01" + col + "\x01" + strings.Join(types, "\x00"))
	if b.colTypes == nil {
		b.colTypes = map[string]ColumnType{}
	}
	b.colTypes[key.String()] = ColumnType{Tables: ts, Column: col, Types: append([]string(nil), types...)}
}

// AddTable records a physical table reference.
func (b *Builder) AddTable(t Table) {
	if b.tables == nil {
		b.tables = map[Table]bool{}
	}
	b.tables[t] = true
}

// AddColumn records that column col is referenced through table t.
func (b *Builder) AddColumn(t Table, col string) {
	b.AddTable(t)
	if b.columns == nil {
		b.columns = map[Table]map[string]bool{}
	}
	if b.columns[t] == nil {
		b.columns[t] = map[string]bool{}
	}
	b.columns[t][col] = true
}

// AddFunction records a called function by its lower-case name.
func (b *Builder) AddFunction(name string) {
	if b.funcs == nil {
		b.funcs = map[string]bool{}
	}
	b.funcs[strings.ToLower(name)] = true
}

// Fill sets Tables, Columns and Functions of v from what was recorded.
func (b *Builder) Fill(v *Verdict) {
	v.Tables = make([]Table, 0, len(b.tables))
	for t := range b.tables {
		v.Tables = append(v.Tables, t)
	}
	sort.Slice(v.Tables, func(i, j int) bool { return v.Tables[i].Less(v.Tables[j]) })
	v.Columns = map[string][]string{}
	for t, cols := range b.columns {
		list := make([]string, 0, len(cols))
		for c := range cols {
			list = append(list, c)
		}
		sort.Strings(list)
		v.Columns[t.String()] = list
	}
	v.ColumnTypes = nil
	if len(b.colTypes) > 0 {
		keys := make([]string, 0, len(b.colTypes))
		for k := range b.colTypes {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			v.ColumnTypes = append(v.ColumnTypes, b.colTypes[k])
		}
	}
	v.Functions = make([]string, 0, len(b.funcs))
	for f := range b.funcs {
		v.Functions = append(v.Functions, f)
	}
	sort.Strings(v.Functions)
}

// TableSet counts the distinct physical tables of a statement against
// MaxTables. The contract bounds tables, not references: the same table
// read in many subqueries is proven once (references are bounded by
// MaxReferences, aliases.go). The zero value is ready.
type TableSet struct{ m map[Table]bool }

// Add records t, a table as the dialect identifies it (folded where the
// server folds names), and reports whether the set still holds at most
// MaxTables.
func (s *TableSet) Add(t Table) bool {
	if s.m == nil {
		s.m = map[Table]bool{}
	}
	s.m[t] = true
	return len(s.m) <= MaxTables
}
