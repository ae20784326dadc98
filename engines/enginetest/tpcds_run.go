package enginetest

import (
	"sort"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/corpus"
	"github.com/dbeast/dbeast/engines"
)

// TPCDSQueries is the number of TPC-DS queries the corpus holds.
const TPCDSQueries = 99

// TPCDSRun runs the 99 TPC-DS queries of one dialect's corpus (issue 31)
// on the loaded dataset, as TPCHRun runs TPC-H: every query the corpus
// accepts goes through the path under test and its rows are compared, as
// sorted multisets of text cells with the column names, with the
// server's own answer to the same text; the queries the corpus refuses
// are counted by refusal code and logged, since the corpus test pins the
// code. Every field is required.
type TPCDSRun struct {
	// Dialect names the corpus: "postgres", "mysql" or "sqlite".
	Dialect string
	// Through says in the log what the rows went through.
	Through string
	// Schema replaces the corpus's "tpcds." qualifier.
	Schema string
	// LooseExprNames accepts another spelling of an unaliased
	// expression's column name, as TPCHRun's does (MySQL names it by its
	// text, which normalization respells).
	LooseExprNames bool
	// Read runs the text through the path under test, failing t when it
	// does not complete.
	Read func(t *testing.T, sql string) *engines.Result
	// Direct is the server's own answer: column names and RowLines.
	Direct func(t *testing.T, sql string) ([]string, []string)
	// MinNonEmpty is the least number of accepted queries that must
	// select rows, so a dataset that stops matching the queries'
	// parameters fails.
	MinNonEmpty int
	// MaxRows, when set, is the path's row limit (the broker's 500): a
	// query whose server answer is longer must come back truncated, and
	// its rows are not compared. Zero means every answer must fit.
	MaxRows int
}

// Run runs each accepted query as a subtest named after its case.
func (r TPCDSRun) Run(t *testing.T) {
	t.Helper()
	cases, err := corpus.Load(r.Dialect)
	if err != nil {
		t.Fatal(err)
	}
	total, accepted, passed, nonEmpty := 0, 0, 0, 0
	refused := map[string][]string{}
	var tooLong []string
	for _, c := range cases {
		if c.File != "tpcds.txt" {
			continue
		}
		total++
		name := strings.TrimSuffix(strings.SplitN(c.Doc, ":", 2)[0], ".")
		if !c.Accept {
			refused[c.Code] = append(refused[c.Code], name)
			continue
		}
		accepted++
		text := strings.ReplaceAll(c.SQL, "tpcds.", r.Schema+".")
		long := false
		ok := t.Run(name, func(t *testing.T) {
			wantCols, wantRows := r.Direct(t, text)
			res := r.Read(t, text)
			if r.MaxRows > 0 && len(wantRows) > r.MaxRows {
				long = true
				if !res.Truncated || len(res.Rows) != r.MaxRows {
					t.Fatalf("the server's %d rows came back as %d, truncated %v", len(wantRows), len(res.Rows), res.Truncated)
				}
				return
			}
			if res.Truncated {
				t.Fatalf("result truncated at %d rows", len(res.Rows))
			}
			compareAnswer(t, res, wantCols, wantRows, r.LooseExprNames)
			if len(wantRows) > 0 {
				nonEmpty++
			}
		})
		if long {
			tooLong = append(tooLong, name)
		}
		if ok {
			passed++
		}
	}
	if total != TPCDSQueries {
		t.Errorf("corpus holds %d TPC-DS queries, want %d", total, TPCDSQueries)
	}
	codes := make([]string, 0, len(refused))
	for c := range refused {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	for _, c := range codes {
		t.Logf("TPC-DS on %s: refused with %s: %s", r.Dialect, c, strings.Join(refused[c], ", "))
	}
	if len(tooLong) > 0 {
		t.Logf("TPC-DS on %s: answers longer than %d rows, truncated and not compared: %s", r.Dialect, r.MaxRows, strings.Join(tooLong, ", "))
	}
	t.Logf("TPC-DS on %s: %d of %d queries verified, %d of them pass through %s (%d with rows)",
		r.Dialect, accepted, total, passed, r.Through, nonEmpty)
	if passed != accepted {
		t.Errorf("%d of %d verified TPC-DS queries differ from the server's answer", accepted-passed, accepted)
	}
	if nonEmpty < r.MinNonEmpty {
		t.Errorf("only %d queries select rows on the generated data; want at least %d", nonEmpty, r.MinNonEmpty)
	}
}
