package sqlite

import (
	"flag"
	"testing"

	"github.com/dbeast/dbeast/corpus"
	"github.com/dbeast/dbeast/corpus/corpustest"
	"github.com/dbeast/dbeast/verifier"
)

var update = flag.Bool("update", false, "write missing expected normalized SQL into corpus/sqlite")

func loadCorpus(t testing.TB) []corpus.Case {
	t.Helper()
	cs, err := corpus.Load("sqlite")
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// corpusCfg is this dialect's corpus run.
func corpusCfg() corpustest.Config {
	return corpustest.Config{Dialect: verifier.SQLite, Verify: Verify, MinCases: 200, Update: *update, CorpusDir: "../../corpus/sqlite"}
}

// TestCorpus runs every case of corpus/sqlite (see corpustest.Run).
func TestCorpus(t *testing.T) { corpustest.Run(t, corpusCfg()) }
