package mysql

import (
	"testing"

	"github.com/dbeast/dbeast/verifier"
)

// TestBuiltinFunctionsMatchVerifier pins the engine's second line to the
// verifier's first: every name verifier/mysql may list is on the engine's
// list of native built-ins (else the read is refused after a correct
// verdict), and the engine lists nothing the verifier's set does not (a
// name there would be a second line wider than the first).
func TestBuiltinFunctionsMatchVerifier(t *testing.T) {
	for f := range verifier.MySQLFunctions {
		if !builtinFunctions[f] {
			t.Errorf("verifier.MySQLFunctions has %q, which builtinFunctions lacks", f)
		}
	}
	for f := range builtinFunctions {
		if !verifier.MySQLFunctions[f] {
			t.Errorf("builtinFunctions has %q, which verifier.MySQLFunctions lacks", f)
		}
	}
	for _, f := range []string{"sleep", "rand", "uuid", "sysdate", "trunc", "string_agg"} {
		v := &verifier.Verdict{Functions: []string{f}}
		if checkFunctions(v) == nil {
			t.Errorf("checkFunctions accepted %q", f)
		}
	}
}
