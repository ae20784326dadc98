package conformance

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// queryer is what *sql.Conn and *sql.Tx share.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// sortedRows runs q and returns its rows as sorted text lines with each
// value's Go type, so row order (free without ORDER BY) does not count and
// a type change does.
func sortedRows(ctx context.Context, db queryer, q string) ([]string, error) {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		out = append(out, rowLine(vals))
	}
	sort.Strings(out)
	return out, rows.Err()
}

func rowLine(vals []any) string {
	var sb strings.Builder
	for _, v := range vals {
		if b, ok := v.([]byte); ok {
			v = string(b)
		}
		fmt.Fprintf(&sb, "%T:%v|", v, v)
	}
	return sb.String()
}

func sortStrings(s []string) { sort.Strings(s) }

// compareRows adds a rows_differ problem when both sides ran and differ.
func compareRows(obs *Observation, norm, orig []string) {
	obs.NormalizedRows, obs.OriginalRows = len(norm), len(orig)
	if obs.NormalizedError != "" || obs.OriginalError != "" {
		return
	}
	if len(norm) != len(orig) {
		obs.Problems = append(obs.Problems, Problem{KindRowsDiffer, fmt.Sprintf("%d rows vs %d rows", len(norm), len(orig))})
		return
	}
	for i := range norm {
		if norm[i] != orig[i] {
			obs.Problems = append(obs.Problems, Problem{KindRowsDiffer, "normalized row " + norm[i] + " vs original row " + orig[i]})
			return
		}
	}
}

// startsAsRead reports whether sql's first word is SELECT or WITH (or it
// opens with a parenthesis): only such texts are tried on the server as
// possible over-refusals, since any other statement is rightly refused
// in read mode and some (KILL, SHUTDOWN, COPY … TO PROGRAM) must never
// run on a shared server.
func startsAsRead(sql string) bool {
	s := strings.TrimLeft(sql, " \t\r\n")
	if strings.HasPrefix(s, "(") {
		return true
	}
	w := s
	if i := strings.IndexFunc(s, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') }); i >= 0 {
		w = s[:i]
	}
	w = strings.ToUpper(w)
	return w == "SELECT" || w == "WITH"
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
