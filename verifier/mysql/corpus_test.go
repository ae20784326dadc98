package mysql

import (
	"flag"
	"testing"

	"github.com/dbeast/dbeast/corpus"
	"github.com/dbeast/dbeast/corpus/corpustest"
	"github.com/dbeast/dbeast/verifier"
)

var update = flag.Bool("update", false, "write missing expected normalized SQL into corpus/mysql")

// corpusDB is the configured database of cases without db=.
const corpusDB = "shop"

// corpusCfg is this dialect's corpus run.
func corpusCfg() corpustest.Config {
	return corpustest.Config{Dialect: verifier.MySQL, Verify: Verify, DefaultDB: corpusDB, MinCases: 200, Update: *update, CorpusDir: "../../corpus/mysql"}
}

// corpusInput turns a case into a verifier input.
func corpusInput(c corpus.Case) verifier.Input { return corpusCfg().Input(c) }

// TestCorpus runs every case of corpus/mysql (see corpustest.Run).
func TestCorpus(t *testing.T) { corpustest.Run(t, corpusCfg()) }
