// Package conformance is the differential harness that checks the
// verifier against live servers: for every case it verifies the SQL, then
// asks the server independently what the statement touches, and records a
// Disagreement whenever the two differ in a way that could widen access.
//
// It is shaped like cockroachdb's cmpconn: an Engine is a named connection
// to one server (PostgreSQL, MySQL/MariaDB or SQLite) with a scratch
// fixture; the Runner feeds it cases from the corpus and from the
// generators in conformance/gen, writes a JSON artifact with each side's
// SQL and observations for every disagreement, shrinks failing generated
// cases to a minimal SQL by delta debugging on tokens, and writes them as
// corpus-format regression cases under testdata/regressions/.
//
// Servers come from DSNs, or from the testcontainers version matrix of
// package conformance/containers (run by cmd/dbeast-matrix, never linked
// into the dbeast binary).
//
// The verifier is a function value (VerifyFunc) so tests can plant a bug
// and check that the harness catches and shrinks it.
//
// Refused queries are tried on the server too, as an unprivileged role
// inside a rolled-back read-only transaction; those that run harmlessly
// count as over-refusals, a measure of the verifier's strictness and never
// a failure.
package conformance
