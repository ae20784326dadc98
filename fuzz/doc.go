// Package fuzz holds dbeast's fuzz targets that cross packages, and the
// shapes they grow from. The dialect packages fuzz their own verifier with
// the corpus as seeds (verifier/*/fuzz_test.go); what lives here runs the
// same generated input through every dialect at once (FuzzDeepInputs),
// through the differential harness against live servers (FuzzPostgres,
// FuzzMySQL, FuzzSQLite, seeded from the corpus and conformance/gen), and
// through a running `dbeast serve` process over MCP (FuzzServe: mutated
// tool calls, every one answered with a success or a contract error code,
// the process still up). make fuzz runs them all; make test runs their
// seeds.
//
// Shapes builds the deep and long SQL families the parsers are most
// likely to choke on: operator chains, nesting of every bracketing form,
// long lists and concatenations, each at any size up to the verifier's
// 64 KiB input limit. pg_query is C and recurses once per tree level
// when it serialises the tree, so a long enough left-associative chain
// overflows the C stack and kills the process; the verifier's lexical
// bound (verifier.CheckDepth) is what stops it, and FuzzDeepInputs and the
// broker-level test in cmd/dbeast (deep_test.go) check that it does for
// every family, dialect and size.
package fuzz
