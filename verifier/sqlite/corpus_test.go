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

func caseInput(c corpus.Case) verifier.Input {
	return verifier.Input{Dialect: verifier.SQLite, SQL: c.SQL, Mode: verifier.Mode(c.Mode)}
}

// TestCorpus runs every case of corpus/sqlite (see corpustest.Run).
func TestCorpus(t *testing.T) {
	corpustest.Run(t, corpustest.Config{Dialect: verifier.SQLite, Verify: Verify, MinCases: 200, Update: *update, CorpusDir: "../../corpus/sqlite"})
}
