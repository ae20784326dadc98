package postgres

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
)

// The function guard is the engine's own check that a read calls only the
// functions its verdict listed (and, for views, the built-in functions
// their proven definitions call), so a verifier disagreement over name
// resolution — PostgreSQL reading alias.name as the call name(alias) — does
// not become a call of an unlisted function. It is independent of the
// verifier: after the statement is prepared, and before it runs, the
// server's own plan for the prepared statement is printed with
// EXPLAIN (VERBOSE, FORMAT JSON) EXECUTE, which plans but never executes.
// Without parameters the prepared statement uses one generic plan, which
// EXPLAIN caches and the execution reuses, so the plan checked is the plan
// run (a plan invalidated in between would be rebuilt from the same
// analysed query; relations are locked, so that needs a catalog change the
// re-proof and the kept row description would already have caught).
//
// Every string in the plan is scanned, except the few fields that hold
// raw names (planFieldNames). Quoted literals are skipped; double-quoted
// identifiers are kept as names (a quoted name followed by "(" is a call,
// as for "left"(x)). Every name followed by "(" must be an allowed call
// (see callAllowed); anything else, including a schema-qualified call, an
// unterminated literal or a plan that is not the expected JSON, refuses.
//
// What it cannot see: calls the planner evaluated away while planning
// (constant folding runs only IMMUTABLE functions, estimation also STABLE
// ones; never VOLATILE), and operators, which the plan prints as symbols
// (the proof of views checks their operators; the verifier checks the
// query's).

// ReasonUnlistedFunction refuses a read whose plan calls a function the
// verdict does not list.
const ReasonUnlistedFunction engines.Reason = "the statement calls a function the verified query does not list"

// planFieldNames are plan fields whose strings are names, not
// expressions: the server prints them unquoted, so a name like "f(" would
// look like a call.
var planFieldNames = map[string]bool{
	"Node Type": true, "Parent Relationship": true, "Relation Name": true, "Schema": true,
	"Alias": true, "CTE Name": true, "Index Name": true, "Join Type": true, "Strategy": true,
	"Partial Mode": true, "Scan Direction": true, "Operation": true, "Command": true,
	"Setop Strategy": true,
}

// syntaxCalls are the SQL-syntax forms the server prints like calls,
// mapped to the verdict function that stands for them: the function the
// syntax calls (EXTRACT calls extract, SUBSTRING substring, POSITION
// position), or the expression node's own name (COALESCE, NULLIF,
// GREATEST, LEAST, which call none). They are the Syntax of the
// verifier's table (verifier.PostgresAllowlist), which the verifier's
// walk reads too; TRIM, whose function depends on the word after the
// parenthesis, is decided by trimCall.
var syntaxCalls = func() map[string]string {
	m := map[string]string{}
	for _, f := range verifier.PostgresAllowlist {
		if f.Syntax != "" && f.Syntax != "TRIM" {
			m[f.Syntax] = f.Name
		}
	}
	return m
}()

// constructors print like calls but call no function: ROW(a, b),
// ARRAY(SubPlan n), whose subplan is a plan node checked on its own, and
// GROUPING(a, b), computed from the grouping set being emitted.
var constructors = map[string]bool{"ROW": true, "ARRAY": true, "GROUPING": true}

// spacedWords are the keywords the server prints before a parenthesis
// with a space between (a call never has one): boolean connectives,
// quantified comparisons, CASE arms, a window's OVER, an aggregate's
// DISTINCT, ORDER BY, FILTER (WHERE …) and WITHIN GROUP, and the inner
// keywords of EXTRACT, SUBSTRING, POSITION and TRIM.
var spacedWords = map[string]bool{
	"AND": true, "OR": true, "NOT": true, "ANY": true, "ALL": true,
	"WHEN": true, "THEN": true, "ELSE": true, "OVER": true,
	"DISTINCT": true, "BY": true, "FILTER": true, "WHERE": true, "GROUP": true,
	"FROM": true, "FOR": true, "IN": true, "SIMILAR": true, "ESCAPE": true,
	"BOTH": true, "LEADING": true, "TRAILING": true,
}

// trimCall returns the function TRIM(…) calls, from the word after the
// parenthesis, or "".
func trimCall(rest string) string {
	switch {
	case strings.HasPrefix(rest, "BOTH "):
		return "btrim"
	case strings.HasPrefix(rest, "LEADING "):
		return "ltrim"
	case strings.HasPrefix(rest, "TRAILING "):
		return "rtrim"
	}
	return ""
}

// typmodWords are type names format_type prints with a type modifier in
// parentheses after "::" (numeric(10,2), character varying(5),
// timestamp(3) without time zone, interval day to second(3)).
var typmodWords = map[string]bool{
	"bit": true, "varying": true, "character": true, "numeric": true,
	"time": true, "timestamp": true, "interval": true, "second": true,
}

// reTypmodContext matches the text that must precede a typmod word: the
// cast operator and, for multi-word types, the words before it.
var reTypmodContext = regexp.MustCompile(`::(?:character |bit |interval (?:(?:day|hour|minute) to )?)?$`)

// reTypmodArgs matches a type modifier list after "(": numeric's scale
// may be negative (numeric(5,-2) rounds to hundreds).
var reTypmodArgs = regexp.MustCompile(`^\d+(?:,-?\d+)?\)`)

// explainPrefix prints the plan of a prepared statement; it plans it and
// never executes it (no ANALYZE).
const explainPrefix = "EXPLAIN (VERBOSE, FORMAT JSON) EXECUTE "

// checkPlanFunctions prints the prepared statement's plan and refuses it
// when it calls a function outside allowed or casts to a type outside
// pg_catalog or to a reg* type. A cast between built-in types that a
// user-defined function implements prints like the built-in one; the
// catalog guard (catalogguard.go), run before this plans the statement,
// refuses every read while such a cast exists.
func (e *Engine) checkPlanFunctions(ctx context.Context, stmt string, allowed map[string]bool) error {
	rows, err := e.query(ctx, explainPrefix+stmt)
	if err != nil {
		return mapErr(ctx, err)
	}
	if len(rows) != 1 || len(rows[0]) != 1 {
		return engines.NewError(engines.CodeFailed, engines.ReasonExecution, nil)
	}
	return checkPlanJSON(rows[0][0], allowed)
}

// checkPlanJSON walks an EXPLAIN JSON plan and checks every expression.
func checkPlanJSON(plan []byte, allowed map[string]bool) error {
	var root any
	if err := json.Unmarshal(plan, &root); err != nil {
		return engines.NewError(engines.CodeDenied, ReasonUnlistedFunction, err)
	}
	if _, ok := root.([]any); !ok {
		return engines.NewError(engines.CodeDenied, ReasonUnlistedFunction, nil)
	}
	if !walkPlan(root, "", allowed) {
		return engines.NewError(engines.CodeDenied, ReasonUnlistedFunction, nil)
	}
	return nil
}

// walkPlan checks every string under n; field is the key n was found under.
func walkPlan(n any, field string, allowed map[string]bool) bool {
	switch v := n.(type) {
	case map[string]any:
		for k, x := range v {
			if !walkPlan(x, k, allowed) {
				return false
			}
		}
	case []any:
		for _, x := range v {
			if !walkPlan(x, field, allowed) {
				return false
			}
		}
	case string:
		if field == "Window" {
			v = windowDefinition(v)
		}
		return planFieldNames[field] || exprCallsAllowed(v, allowed)
	}
	return true
}

// windowDefinition strips the name from a WindowAgg's "Window" field,
// which PostgreSQL 18 prints as "w1 AS (PARTITION BY … ORDER BY …)": the
// name and AS are no call, the definition's expressions are checked as
// any other. Text of another shape is returned whole (and checked whole).
func windowDefinition(v string) string {
	name, def, ok := strings.Cut(v, " AS ")
	if !ok || name == "" || !strings.HasPrefix(def, "(") {
		return v
	}
	for i := 0; i < len(name); i++ {
		if !isIdentCont(name[i]) {
			return v
		}
	}
	return def
}

// exprCallsAllowed scans one printed expression and reports whether every
// name followed by "(" is an allowed call and every cast a built-in
// type's. It fails closed on text it cannot lex.
func exprCallsAllowed(s string, allowed map[string]bool) bool {
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ':' && i+1 < len(s) && s[i+1] == ':':
			if _, ok := castTarget(s[i+2:]); !ok {
				return false
			}
			i += 2
		case c == '\'':
			end, ok := skipLiteral(s, i+1, false)
			if !ok {
				return false
			}
			i = end
		case c == '"':
			qualified := i > 0 && s[i-1] == '.'
			name, end, ok := quotedName(s, i+1)
			if !ok {
				return false
			}
			i = end
			if i < len(s) && s[i] == '(' && (qualified || !allowed[name]) {
				return false
			}
		case isIdentStart(c):
			start := i
			for i < len(s) && (isIdentCont(s[i]) || (s[i] == '.' && i+1 < len(s) && isIdentStart(s[i+1]))) {
				i++
			}
			word := s[start:i]
			if (word == "E" || word == "e") && i < len(s) && s[i] == '\'' {
				end, ok := skipLiteral(s, i+1, true)
				if !ok {
					return false
				}
				i = end
				continue
			}
			j := i
			for j < len(s) && (s[j] == ' ' || s[j] == '\n' || s[j] == '\t') {
				j++
			}
			if j >= len(s) || s[j] != '(' {
				continue
			}
			if start > 0 && s[start-1] == '.' {
				word = "." + word // qualified by a quoted name
			}
			if !callAllowed(s, start, word, j > i, allowed) {
				return false
			}
		case c >= '0' && c <= '9':
			// A number, including exponents and any letters glued to it.
			for i < len(s) && (isIdentCont(s[i]) || s[i] == '.') {
				i++
			}
		default:
			i++
		}
	}
	return true
}

// callAllowed decides one name followed by "(" (spaced: with blanks
// between). start is the name's offset in s.
func callAllowed(s string, start int, word string, spaced bool, allowed map[string]bool) bool {
	if spaced {
		return spacedWords[word]
	}
	if strings.Contains(word, ".") {
		return false // a qualified call: never printed for pg_catalog under our search_path
	}
	if fn, ok := syntaxCalls[word]; ok {
		return allowed[fn]
	}
	if constructors[word] {
		return true
	}
	if word == "TRIM" {
		fn := trimCall(s[start+len(word)+1:])
		return fn != "" && allowed[fn]
	}
	if typmodWords[word] && reTypmodContext.MatchString(s[:start]) && reTypmodArgs.MatchString(s[start+len(word)+1:]) {
		return true
	}
	return allowed[word]
}

// regTypes are the object identifier types: their input functions look
// names up in the catalogs.
var regTypes = map[string]bool{
	"regclass": true, "regcollation": true, "regconfig": true, "regdictionary": true,
	"regnamespace": true, "regoper": true, "regoperator": true, "regproc": true,
	"regprocedure": true, "regrole": true, "regtype": true,
}

// castTarget reads the type name after "::" and returns its first word.
// The server prints a type outside the search path (pg_catalog, pg_temp)
// qualified, so a qualified name is a user type (a domain, an enum, a
// composite or base type of an extension): refused, as are the reg* types.
// A type of the session's own temporary schema would print unqualified;
// the engine's sessions create none, and pg_catalog is searched first.
func castTarget(rest string) (string, bool) {
	if rest == "" {
		return "", false
	}
	if rest[0] == '"' {
		name, end, ok := quotedName(rest, 1)
		if !ok || (end < len(rest) && rest[end] == '.') {
			return "", false
		}
		return name, true
	}
	j := 0
	for j < len(rest) && isIdentCont(rest[j]) {
		j++
	}
	word := rest[:j]
	if j == 0 || !isIdentStart(rest[0]) || (j < len(rest) && rest[j] == '.') || regTypes[word] {
		return "", false
	}
	return word, true
}

// skipLiteral returns the offset after a quoted literal whose body starts
// at i: two single quotes stand for one quote; in an E'...' literal a
// backslash escapes the next byte.
func skipLiteral(s string, i int, escapes bool) (int, bool) {
	for i < len(s) {
		switch s[i] {
		case '\\':
			if escapes {
				i += 2
				continue
			}
		case '\'':
			if i+1 < len(s) && s[i+1] == '\'' {
				i += 2
				continue
			}
			return i + 1, true
		}
		i++
	}
	return 0, false
}

// quotedName returns a double-quoted identifier's name (with "" undone)
// and the offset after it; the body starts at i.
func quotedName(s string, i int) (string, int, bool) {
	var b strings.Builder
	for i < len(s) {
		if s[i] == '"' {
			if i+1 < len(s) && s[i+1] == '"' {
				b.WriteByte('"')
				i += 2
				continue
			}
			return b.String(), i + 1, true
		}
		b.WriteByte(s[i])
		i++
	}
	return "", 0, false
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80
}

func isIdentCont(c byte) bool {
	return isIdentStart(c) || (c >= '0' && c <= '9') || c == '$'
}

// viewFuncQuery returns the names of the functions $1 (called by proven
// views) whose every pg_catalog overload is built in and IMMUTABLE or
// STABLE: a printed unqualified name resolves among those overloads only.
const viewFuncQuery = `SELECT DISTINCT p.proname FROM pg_catalog.pg_proc p
WHERE p.oid = ANY($1::pg_catalog.oid[]) AND p.pronamespace = 11 AND p.oid < 16384
  AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_proc q WHERE q.pronamespace = 11 AND q.proname = p.proname
    AND (q.oid >= 16384 OR q.provolatile NOT IN ('i', 's')))`

// allowedCalls returns the names the plan may call: the verdict's
// functions (already proven by checkFunctions) and those the proven views
// call.
func (e *Engine) allowedCalls(ctx context.Context, verdictFuncs []string, viewFuncs map[uint32]bool) (map[string]bool, error) {
	out := make(map[string]bool, len(verdictFuncs))
	for _, f := range verdictFuncs {
		out[f] = true
		out[e.serverFunction(f)] = true
	}
	if len(viewFuncs) == 0 {
		return out, nil
	}
	rows, err := e.query(ctx, viewFuncQuery, oidArray(viewFuncs))
	if err != nil {
		return nil, mapErr(ctx, err)
	}
	for _, r := range rows {
		out[string(r[0])] = true
	}
	return out, nil
}
