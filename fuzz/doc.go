// Package fuzz holds dbeast's cross-dialect fuzz targets and the shapes
// they grow from. The dialect packages fuzz their own verifier with the
// corpus as seeds (verifier/*/fuzz_test.go); what lives here runs the
// same generated input through every dialect at once.
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
