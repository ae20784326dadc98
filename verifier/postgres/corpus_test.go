package postgres

import (
	"flag"
	"testing"

	"github.com/dbeast/dbeast/corpus"
	"github.com/dbeast/dbeast/corpus/corpustest"
	"github.com/dbeast/dbeast/verifier"
)

var update = flag.Bool("update", false, "write missing expected normalized SQL into corpus/postgres")

// corpusCfg is this dialect's corpus run.
func corpusCfg() corpustest.Config {
	return corpustest.Config{Dialect: verifier.Postgres, Verify: Verify, MinCases: 250, Update: *update, CorpusDir: "../../corpus/postgres"}
}

// corpusInput turns a case into a verifier input.
func corpusInput(c corpus.Case) verifier.Input { return corpusCfg().Input(c) }

// checkIdempotent verifies v.NormalizedSQL again and wants the same verdict.
func checkIdempotent(t *testing.T, in verifier.Input, v *verifier.Verdict) {
	t.Helper()
	corpustest.CheckIdempotent(t, Verify, in, v)
}

// TestCorpus runs every case of corpus/postgres (see corpustest.Run).
func TestCorpus(t *testing.T) { corpustest.Run(t, corpusCfg()) }
