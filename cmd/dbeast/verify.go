package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/dbeast/dbeast/verifier"
	"github.com/dbeast/dbeast/verifier/dialect"
)

func init() {
	commands["verify"] = command{
		summary: "verify SQL as dbeast would before running it (prints a JSON verdict)",
		run:     runVerify,
	}
}

// verdictJSON is the command's output line: an accept with the verdict's
// fields (its column-type obligations included), or a reject with its code, static reason and the refusal's
// details: the construct (from the verifier's fixed vocabulary), the byte
// offset near it, the function's name when it is a known one, and the
// dialect's safe spelling where one exists (verifier/refusal.go).
type verdictJSON struct {
	Verdict       string              `json:"verdict"`
	Op            verifier.Op         `json:"op,omitempty"`
	NormalizedSQL string              `json:"normalized_sql,omitempty"`
	Tables        []string            `json:"tables,omitempty"`
	Columns       map[string][]string `json:"columns,omitempty"`
	Functions     []string            `json:"functions,omitempty"`
	// ColumnTypes are the accept's obligations on column types, which the
	// engine discharges inside the reading transaction: an accept that
	// lists them holds only if each column has one of the listed types.
	ColumnTypes []verifier.ColumnType `json:"column_types,omitempty"`
	Code        verifier.Code         `json:"code,omitempty"`
	Reason      string                `json:"reason,omitempty"`
	Construct   string                `json:"construct,omitempty"`
	Offset      *int                  `json:"offset,omitempty"`
	Function    string                `json:"function,omitempty"`
	Hint        string                `json:"hint,omitempty"`
}

func verdictOf(in verifier.Input) verdictJSON {
	v, err := dialect.Verify(in)
	if err != nil {
		r, ok := verifier.AsRefusal(err)
		if !ok {
			r = verifier.Refuse(verifier.CodeParseError)
		}
		return verdictJSON{Verdict: "reject", Code: r.Code, Reason: r.Message,
			Construct: r.Construct, Offset: r.Offset, Function: r.Function, Hint: r.Hint}
	}
	return verdictJSON{
		Verdict:       "accept",
		Op:            v.Op,
		NormalizedSQL: v.NormalizedSQL,
		Tables:        v.TableNames(),
		Columns:       v.Columns,
		Functions:     v.Functions,
		ColumnTypes:   v.ColumnTypes,
	}
}

func runVerify(args []string) int {
	return verifyMain(args, os.Stdin, os.Stdout, os.Stderr)
}

// verifyMain is runVerify with its streams, for tests.
func verifyMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dialectName := fs.String("dialect", "postgres", "SQL dialect: postgres, mysql or sqlite")
	mode := fs.String("mode", "read", "verification mode: read, table_write or full")
	sql := fs.String("sql", "", "the SQL text to verify")
	jsonl := fs.Bool("jsonl", false, `read one {"sql":…,"mode":…} object a line from stdin, write one verdict a line`)
	database := fs.String("database", "", "MySQL: the source's configured database (the only one a read may name)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	d := verifier.Dialect(*dialectName)
	switch d {
	case verifier.Postgres, verifier.MySQL, verifier.SQLite:
	default:
		fmt.Fprintf(stderr, "dbeast verify: unknown dialect %q (want postgres, mysql or sqlite)\n", *dialectName)
		return 2
	}
	m, err := verifier.NormalizeMode(verifier.Mode(*mode))
	if err != nil {
		fmt.Fprintf(stderr, "dbeast verify: unknown mode %q (want read, table_write or full)\n", *mode)
		return 2
	}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	if !*jsonl {
		if *sql == "" {
			fmt.Fprintln(stderr, "dbeast verify: give --sql TEXT or --jsonl")
			return 2
		}
		out := verdictOf(verifier.Input{Dialect: d, SQL: *sql, Mode: m, Database: *database})
		_ = enc.Encode(out)
		if out.Verdict != "accept" {
			return 1
		}
		return 0
	}
	sc := bufio.NewScanner(stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		var req struct {
			SQL      string `json:"sql"`
			Mode     string `json:"mode"`
			Database string `json:"database"`
		}
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			fmt.Fprintf(stderr, "dbeast verify: line %d is not a JSON object with sql\n", line)
			return 2
		}
		lm := m
		if req.Mode != "" {
			if lm, err = verifier.NormalizeMode(verifier.Mode(req.Mode)); err != nil {
				fmt.Fprintf(stderr, "dbeast verify: line %d: unknown mode\n", line)
				return 2
			}
		}
		db := *database
		if req.Database != "" {
			db = req.Database
		}
		if err := enc.Encode(verdictOf(verifier.Input{Dialect: d, SQL: req.SQL, Mode: lm, Database: db})); err != nil {
			return 1
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(stderr, "dbeast verify: reading stdin failed")
		return 2
	}
	return 0
}
