package requests

import (
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
)

// What an approval gives away, as the console's request view shows it: the
// columns a read names per table, whether a column looks like personal
// data, the document a read takes text from, and, after the request ran,
// what it returned. All of it is for the person's eyes; none of it grants
// or refuses anything.

// PersonalColumnWords is the one, fixed list of words that flag a column
// as personal data on an approval card: a column whose lower-cased name
// contains one of them ("email", "customer_name", "date_of_birth") is
// flagged. It is a hint for the person reading the card, never a policy:
// a flag allows or refuses nothing, and a column it misses is read all
// the same. docs/console-api.md lists the same words.
var PersonalColumnWords = []string{"email", "phone", "name", "address", "birth", "ssn", "token", "secret", "password"}

// LooksPersonal reports whether a column's name contains one of
// PersonalColumnWords, ignoring case.
func LooksPersonal(column string) bool {
	c := strings.ToLower(column)
	for _, w := range PersonalColumnWords {
		if strings.Contains(c, w) {
			return true
		}
	}
	return false
}

// ColumnRead is one column a statement names through a table.
type ColumnRead struct {
	Name string `json:"name"`
	// Personal reports whether the name looks like personal data
	// (LooksPersonal).
	Personal bool `json:"personal"`
}

// TableColumns is the columns a statement names through one table, from
// the verifier's verdict. Table is quoted as in RequestInfo.Tables.
type TableColumns struct {
	Table   string       `json:"table"`
	Columns []ColumnRead `json:"columns"`
}

// columnsOf lists, per table of a verified read, the columns its verdict
// records, and reports whether that list may be short of what the
// statement reads: a * (or a product, or count(*): the check is on the
// character, so it errs towards saying so) reads columns not named, and
// with more than one table an unqualified column is tied to none of them.
// Tables are quoted by d's engine (engines.QuoteIdent).
func columnsOf(d engines.Driver, v *verifier.Verdict) ([]TableColumns, bool) {
	if v == nil || len(v.Tables) == 0 {
		return nil, false
	}
	out := make([]TableColumns, 0, len(v.Tables))
	for _, t := range v.Tables {
		cols := slices.Clone(v.Columns[t.String()])
		slices.Sort(cols)
		tc := TableColumns{Table: engines.QuoteIdent(d, t.Schema) + "." + engines.QuoteIdent(d, t.Name), Columns: []ColumnRead{}}
		for _, c := range slices.Compact(cols) {
			tc.Columns = append(tc.Columns, ColumnRead{Name: c, Personal: LooksPersonal(c)})
		}
		out = append(out, tc)
	}
	return out, len(v.Tables) > 1 || strings.Contains(v.NormalizedSQL, "*")
}

// DocumentView is the document a read_open_file request takes text from:
// the file's base name (never its directory), the snapshot's size, the
// range asked for and the first lines of that range, which the console
// shows as text.
type DocumentView struct {
	FileName string `json:"file_name"`
	Bytes    int    `json:"bytes"`
	Offset   int    `json:"offset"`
	Length   int    `json:"length"`
	Preview  string `json:"preview"`
	// PreviewCut reports whether the range goes on after Preview.
	PreviewCut bool `json:"preview_cut"`
}

// Preview bounds: the first previewLines lines of the range, at most
// previewBytes bytes.
const (
	previewLines = 5
	previewBytes = 600
)

func documentView(d *document, r *docRead) *DocumentView {
	if d == nil || r == nil {
		return nil
	}
	text := r.text
	cut := false
	if len(text) > previewBytes {
		text, cut = text[:previewBytes], true
		for len(text) > 0 && !utf8.Valid(text) {
			text = text[:len(text)-1]
		}
	}
	lines := strings.SplitAfterN(string(text), "\n", previewLines+1)
	if len(lines) > previewLines {
		lines, cut = lines[:previewLines], true
	}
	return &DocumentView{
		FileName: filepath.Base(d.path), Bytes: r.total, Offset: r.offset, Length: len(r.text),
		Preview: strings.TrimSuffix(strings.Join(lines, ""), "\n"), PreviewCut: cut,
	}
}

// RequestOutcome is what a completed request returned, in counts only:
// never a value.
type RequestOutcome struct {
	// Rows is the rows handed back (after the limits); nil for a result
	// without rows (a document range, a write).
	Rows *int `json:"rows,omitempty"`
	// Truncated reports whether a limit cut the result.
	Truncated bool `json:"truncated"`
	// AffectedRows is a write's count of changed rows, when known.
	AffectedRows *int64 `json:"affected_rows,omitempty"`
	// Bytes is, for a document read, the bytes handed back.
	Bytes *int `json:"bytes,omitempty"`
}

// outcomeOf counts a completed request's result. It is taken when the
// request completes, so it outlives the result (dropped once delivered).
func outcomeOf(res any) *RequestOutcome {
	switch v := res.(type) {
	case *engines.Result:
		n := len(v.Rows)
		o := &RequestOutcome{Truncated: v.Truncated, AffectedRows: v.AffectedRows}
		if v.AffectedRows == nil {
			o.Rows = &n
		}
		return o
	case *docResult:
		n := v.Length
		return &RequestOutcome{Truncated: !v.EOF, Bytes: &n}
	case *tablesOut:
		n := len(v.Tables)
		return &RequestOutcome{Rows: &n, Truncated: v.Truncated}
	}
	return &RequestOutcome{}
}
