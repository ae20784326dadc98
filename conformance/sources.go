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
	qs := gen.Sample(e.Dialect(), e.Schema(), seed, n)
	out := make([]Case, len(qs))
	for i, q := range qs {
		out[i] = Case{Source: FromGenerated, Name: fmt.Sprintf("gen/%d/%d", seed, i), SQL: q}
	}
	return out
}
