package conformance

import (
	"fmt"
	"strings"

	"github.com/dbeast/dbeast/conformance/gen"
	"github.com/dbeast/dbeast/corpus"
	"github.com/dbeast/dbeast/verifier"
)

// mysqlCorpusDB is the database the MySQL corpus names (corpus cases
// without db=); the harness renames it to its scratch database.
const mysqlCorpusDB = "shop"

// CorpusCases returns the read-mode corpus cases of e's dialect, with the
// corpus's database renamed to e's scratch database for MySQL. Cases for
// another configured database (db=) and other modes are skipped: the
// harness checks reads on its own fixture.
func CorpusCases(e Engine) ([]Case, error) {
	cs, err := corpus.Load(string(e.Dialect()))
	if err != nil {
		return nil, fmt.Errorf("conformance: corpus: %w", err)
	}
	var out []Case
	for _, c := range cs {
		if c.Mode != "" && c.Mode != string(verifier.ModeRead) || c.DB != "" {
			continue
		}
		sql := c.SQL
		if e.Dialect() == verifier.MySQL {
			db := e.Database()
			sql = strings.ReplaceAll(sql, "`"+mysqlCorpusDB+"`.", "`"+db+"`.")
			sql = strings.ReplaceAll(sql, mysqlCorpusDB+".", db+".")
		}
		out = append(out, Case{Source: FromCorpus, Name: string(e.Dialect()) + "/" + c.Name(), SQL: sql})
	}
	return out, nil
}

// GeneratedCases returns n generated cases (allowed reads with hostile
// mutations mixed in) for e, reproducible from seed.
func GeneratedCases(e Engine, seed int64, n int) []Case {
	next := GeneratedSource(e, seed, n)
	out := make([]Case, 0, n)
	for c, ok := next(); ok; c, ok = next() {
		out = append(out, c)
	}
	return out
}

// CaseSource yields the cases of a run in order; false ends it. Sources are
// called from one goroutine.
type CaseSource func() (Case, bool)

// GeneratedSource yields the cases of GeneratedCases one at a time, so a
// long run neither waits for nor holds all of them.
func GeneratedSource(e Engine, seed int64, n int) CaseSource {
	next := gen.Sampler(e.Dialect(), e.Schema(), seed)
	i := 0
	return func() (Case, bool) {
		if i >= n {
			return Case{}, false
		}
		c := Case{Source: FromGenerated, Name: fmt.Sprintf("gen/%d/%d", seed, i), SQL: next()}
		i++
		return c, true
	}
}

// SliceSource yields cs in order.
func SliceSource(cs []Case) CaseSource {
	i := 0
	return func() (Case, bool) {
		if i >= len(cs) {
			return Case{}, false
		}
		i++
		return cs[i-1], true
	}
}

// Concat yields every case of each source in turn.
func Concat(srcs ...CaseSource) CaseSource {
	return func() (Case, bool) {
		for len(srcs) > 0 {
			if c, ok := srcs[0](); ok {
				return c, true
			}
			srcs = srcs[1:]
		}
		return Case{}, false
	}
}
