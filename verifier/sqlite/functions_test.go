package sqlite

import (
	"regexp"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/corpus"

	"github.com/google/go-cmp/cmp"
)

// fnMarker is how a corpus case's prose pins the verdict's exact function
// list: "fn[a, b]" (sorted names, "fn[]" for none).
var fnMarker = regexp.MustCompile(`\bfn\[([a-z_, ]*)\]`)

// TestCorpusFunctions checks, for every accepted corpus case whose prose
// carries fn[…], that the verdict lists exactly those functions, and none
// for casts. The engine's authorizer allows only the verdict's functions,
// so a missing name is a refused read and an extra one a wider verdict.
func TestCorpusFunctions(t *testing.T) {
	cases, err := corpus.Load("sqlite")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range cases {
		m := fnMarker.FindAllStringSubmatch(c.Doc, -1)
		if !c.Accept || len(m) == 0 {
			continue
		}
		n++
		want := []string{}
		for _, f := range strings.Split(m[len(m)-1][1], ",") {
			if f = strings.TrimSpace(f); f != "" {
				want = append(want, f)
			}
		}
		v, err := Verify(corpusCfg().Input(c))
		if err != nil {
			t.Errorf("%s: refused: %v", c.Name(), err)
			continue
		}
		if diff := cmp.Diff(want, v.Functions); diff != "" {
			t.Errorf("%s: functions (-want +got):\n%s", c.Name(), diff)
		}
	}
	if n < 15 {
		t.Errorf("only %d cases pin their functions; want at least 15", n)
	}
}
