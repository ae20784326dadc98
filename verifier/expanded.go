package verifier

import "strconv"

// The written-reference bound (MaxReferences) counts what the text
// writes, but a CTE reference the planner inlines is a copy of the CTE's
// whole body: PostgreSQL inlines NOT MATERIALIZED CTEs (and, by default,
// any CTE referenced once), MariaDB and MySQL merge CTEs into the query
// as derived tables, and SQLite may flatten them. A chain of k CTEs, each
// a cross join of two references to the one before, is 3k+4 written
// references and 2^k scans: on MariaDB 10.11, k=16 (under 800 bytes)
// ignored max_statement_time and KILL and grew mariadbd to 18.6 GB before
// the kernel killed it; PostgreSQL 15 reached 906 MB at k=12.
//
// So each statement's expanded references are bounded too: every
// reference to a CTE is charged the expanded references of the CTE's
// body (what walking the body counted, references to earlier CTEs
// included at their own cost) on top of the reference itself. This is the
// count as if every CTE were inlined, whatever the dialect or a
// MATERIALIZED marker would do, so it is an upper bound on every server.
// The bodies are counted once more where they are defined. Servers copy
// more than CTEs: PostgreSQL rewrites BETWEEN and IN lists into
// comparisons that repeat an operand, and PostgreSQL and SQLite substitute
// a derived table's column, subqueries and all, into every reference.
// Each dialect charges those copies too (verifier/postgres/copies.go,
// verifier/sqlite/copies.go). Every dialect
// refuses recursive CTEs (recursive_cte); were one accepted, its
// self-reference would count one, its body not being known yet.
//
// The bound's value is measured (docs/safe-sql.md, "CTE expansion"). The
// largest TPC-DS/TPC-H query, Q14, makes 447 expanded references (the
// tests keep every one at most half the bound). At the bound, EXPLAIN on
// PostgreSQL 15 took under 0.25 s and 83 MB of backend memory, on MariaDB
// 10.11 0.01 s; the cost about doubles per chain level, and a two-way chain
// of 1,024 scans (9,200 expanded references) took 1.2 s and 218 MB
// (PostgreSQL), 0.25 s and about 100 MB (MariaDB). A lower bound would
// refuse TPC-DS sooner without saving the servers much.

// MaxExpandedReferences bounds the relation references of one statement
// counted as if every CTE reference were replaced by the CTE's body.
const MaxExpandedReferences = 1024

// CodeTooManyExpandedReferences refuses a statement whose CTE references,
// each counted as a copy of the CTE's body, make more than
// MaxExpandedReferences relation references.
const CodeTooManyExpandedReferences Code = "too_many_expanded_references"

func init() {
	messages[CodeTooManyExpandedReferences] = "a query may make at most " + strconv.Itoa(MaxExpandedReferences) +
		" table, subquery and CTE references when each CTE reference is counted as a copy of the CTE"
	codeConstructs[CodeTooManyExpandedReferences] = "CTE references"
}

// Refs returns the expanded references counted so far. A dialect's walk
// takes it before and after walking a CTE's body: the difference is what
// each reference to that CTE is charged (Expand).
func (s *AliasSet) Refs() int { return s.expanded }

// Expand charges n more expanded references (a CTE's body, for one
// reference to it, or the copies a server makes of an operand or a
// column's subqueries) and returns the refusal once MaxExpandedReferences
// is passed. A walk stops at the first refusal, so every charge is at
// most the bound times the copies one operand can have (its text's
// items, under 64 Ki), far from overflow.
func (s *AliasSet) Expand(n int) error {
	s.expanded += n
	if s.expanded > MaxExpandedReferences {
		return Refuse(CodeTooManyExpandedReferences)
	}
	return nil
}
