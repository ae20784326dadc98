// Package fuzz holds the go test -fuzz targets of the verifier, one per
// dialect (FuzzPostgres, FuzzMySQL, FuzzSQLite), seeded from the case
// corpus. Each target runs the verifier on the input; an accepted input's
// normalized SQL must re-verify to the same verdict, and, where a live
// engine is available (SQLite always; PostgreSQL and MySQL when
// DBEAST_TEST_POSTGRES_DSN / DBEAST_TEST_MYSQL_DSN is set), the
// conformance harness's differential check runs on it and must report no
// disagreement.
//
//	go test ./fuzz -run '^$' -fuzz FuzzSQLite -fuzztime 20s
package fuzz
