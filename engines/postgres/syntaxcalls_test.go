package postgres

import (
	"maps"
	"slices"
	"testing"

	"github.com/dbeast/dbeast/verifier"
)

// TestSyntaxFunctionsFollowAllowlist: the plan guard accepts exactly the
// SQL-syntax forms of the verifier's table (verifier.PostgresAllowlist's
// Syntax), each only when the verdict lists the row's function, and
// TRIM's three forms call exactly the table's TRIM rows. A syntax name
// added to or dropped from one side alone fails here.
func TestSyntaxFunctionsFollowAllowlist(t *testing.T) {
	trims := map[string]bool{}
	forms := map[string]bool{}
	for _, f := range verifier.PostgresAllowlist {
		if f.Syntax == "" {
			continue
		}
		forms[f.Syntax] = true
		if f.Syntax == "TRIM" {
			trims[f.Name] = true
			continue
		}
		expr := f.Syntax + "(a, b)"
		if !exprCallsAllowed(expr, map[string]bool{f.Name: true}) {
			t.Errorf("%s is refused although the verdict lists %s", expr, f.Name)
		}
		if exprCallsAllowed(expr, map[string]bool{}) {
			t.Errorf("%s is allowed although the verdict lists no %s", expr, f.Name)
		}
	}
	for form := range syntaxCalls {
		if !forms[form] {
			t.Errorf("the plan guard accepts %s, which the verifier's table lacks", form)
		}
	}
	got := map[string]bool{}
	for _, word := range []string{"BOTH ", "LEADING ", "TRAILING "} {
		fn := trimCall(word + "' ' FROM a)")
		got[fn] = true
		if !exprCallsAllowed("TRIM("+word+"' ' FROM a)", map[string]bool{fn: true}) {
			t.Errorf("TRIM(%s…) is refused although the verdict lists %s", word, fn)
		}
	}
	if !maps.Equal(got, trims) {
		t.Errorf("TRIM calls %v, the verifier's table has %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(trims)))
	}
}
