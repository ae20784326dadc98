package postgres

import (
	"testing"

	"github.com/dbeast/dbeast/corpus/corpustest"
)

// FuzzVerify is the shared verifier fuzz target (corpustest.Fuzz) over
// this dialect's corpus.
func FuzzVerify(f *testing.F) { corpustest.Fuzz(f, corpusCfg()) }
