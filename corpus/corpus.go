// Package corpus loads the verifier case files shared by the unit tests,
// the fuzz seeds and the conformance harness.
//
// Each dialect has a folder (postgres/, mysql/, sqlite/) of *.txt files.
// A file is a sequence of cases:
//
//	# Prose saying what the case pins (one or more comment lines).
//	accept [mode=read|table_write|full] [db=NAME] [quoted] [schema.table ...]
//	SELECT id FROM public.orders
//	----
//	SELECT id FROM public.orders
//
//	reject CODE [mode=...] [db=NAME] [quoted]
//	SELECT * FROM public.orders FOR UPDATE
//	----
//
// The SQL runs from the line after the directive to the line "----",
// exactly (newlines inside are kept, the last one is dropped). With the
// option quoted, the SQL is a single Go-quoted string literal, so cases can
// hold NUL bytes, control characters and invalid UTF-8. For accept, the
// tables listed are the exact expected Verdict.Tables (schema.name); the
// lines after "----" up to a blank line, if any, are the expected
// NormalizedSQL. Blank lines and comments separate cases.
package corpus

import (
	"bufio"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

//go:embed all:postgres all:mysql all:sqlite
var files embed.FS

// Case is one corpus entry.
type Case struct {
	File string // file name within the dialect folder
	Line int    // line of the directive
	Doc  string // the prose comment before the directive
	// Accept is true for accept cases; Code is the expected refusal code
	// otherwise.
	Accept bool
	Code   string
	Mode   string // "" means read
	DB     string // MySQL configured database; "" means the dialect default
	SQL    string
	Tables []string // expected tables for accept cases, schema.name, sorted
	// Normalized is the expected normalized SQL; empty means unchecked.
	Normalized string
}

// Name identifies the case in test output.
func (c Case) Name() string { return fmt.Sprintf("%s:%d", c.File, c.Line) }

// Load returns every case of a dialect ("postgres", "mysql", "sqlite").
func Load(dialect string) ([]Case, error) {
	entries, err := fs.ReadDir(files, dialect)
	if err != nil {
		return nil, fmt.Errorf("corpus: %s: %w", dialect, err)
	}
	var all []Case
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".txt") {
			continue
		}
		data, err := files.ReadFile(path.Join(dialect, e.Name()))
		if err != nil {
			return nil, err
		}
		cs, err := Parse(e.Name(), string(data))
		if err != nil {
			return nil, err
		}
		all = append(all, cs...)
	}
	return all, nil
}

// Parse reads the cases of one file.
func Parse(name, text string) ([]Case, error) {
	var (
		out  []Case
		doc  []string
		sc   = bufio.NewScanner(strings.NewReader(text))
		line = 0
	)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	next := func() (string, bool) {
		if !sc.Scan() {
			return "", false
		}
		line++
		return sc.Text(), true
	}
	for {
		l, ok := next()
		if !ok {
			break
		}
		trimmed := strings.TrimSpace(l)
		switch {
		case trimmed == "":
			doc = nil
			continue
		case strings.HasPrefix(trimmed, "#"):
			doc = append(doc, strings.TrimSpace(strings.TrimPrefix(trimmed, "#")))
			continue
		}
		c := Case{File: name, Line: line, Doc: strings.Join(doc, " ")}
		doc = nil
		fields := strings.Fields(trimmed)
		quoted := false
		switch fields[0] {
		case "accept":
			c.Accept = true
		case "reject":
			if len(fields) < 2 || strings.Contains(fields[1], "=") {
				return nil, fmt.Errorf("%s:%d: reject needs a code", name, line)
			}
			c.Code = fields[1]
			fields = fields[1:]
		default:
			return nil, fmt.Errorf("%s:%d: want accept or reject, got %q", name, line, fields[0])
		}
		for _, f := range fields[1:] {
			switch {
			case strings.HasPrefix(f, "mode="):
				c.Mode = strings.TrimPrefix(f, "mode=")
			case strings.HasPrefix(f, "db="):
				c.DB = strings.TrimPrefix(f, "db=")
			case f == "quoted":
				quoted = true
			case c.Accept && strings.Contains(f, "."):
				c.Tables = append(c.Tables, strings.TrimSuffix(f, ","))
			default:
				return nil, fmt.Errorf("%s:%d: unknown option %q", name, line, f)
			}
		}
		sort.Strings(c.Tables)
		var sqlLines []string
		closed := false
		for {
			l, ok := next()
			if !ok {
				break
			}
			if l == "----" {
				closed = true
				break
			}
			sqlLines = append(sqlLines, l)
		}
		if !closed {
			return nil, fmt.Errorf("%s:%d: case not closed by ----", name, c.Line)
		}
		c.SQL = strings.Join(sqlLines, "\n")
		if quoted {
			s, err := strconv.Unquote(strings.TrimSpace(c.SQL))
			if err != nil {
				return nil, fmt.Errorf("%s:%d: quoted SQL: %w", name, c.Line, err)
			}
			c.SQL = s
		}
		var norm []string
		for {
			l, ok := next()
			if !ok || strings.TrimSpace(l) == "" {
				break
			}
			norm = append(norm, l)
		}
		c.Normalized = strings.Join(norm, "\n")
		if c.Normalized != "" && !c.Accept {
			return nil, fmt.Errorf("%s:%d: reject case has expected output", name, c.Line)
		}
		out = append(out, c)
	}
	return out, sc.Err()
}
