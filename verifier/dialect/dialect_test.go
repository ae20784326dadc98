package dialect

import (
	"testing"

	"github.com/dbeast/dbeast/verifier"
)

func TestVerifyDispatch(t *testing.T) {
	tests := []struct {
		in       verifier.Input
		accept   bool
		wantCode verifier.Code
	}{
		{verifier.Input{Dialect: verifier.Postgres, SQL: "SELECT id FROM public.t"}, true, ""},
		{verifier.Input{Dialect: verifier.MySQL, SQL: "SELECT id FROM shop.t", Database: "shop"}, true, ""},
		{verifier.Input{Dialect: verifier.SQLite, SQL: "SELECT id FROM main.t"}, true, ""},
		{verifier.Input{Dialect: "oracle", SQL: "SELECT 1 FROM dual"}, false, verifier.CodeParseError},
		// A number too long for TiDB's decimal type once made its parser
		// panic; through the dispatcher it is a refusal either way.
		{verifier.Input{Dialect: verifier.MySQL, SQL: "SELECT 9999999999999999999999999999999999999999999999999999999999999999999999999999999999999", Database: "shop"}, false, verifier.CodeParseError},
	}
	for _, tt := range tests {
		v, err := Verify(tt.in)
		if tt.accept {
			if err != nil || v == nil || len(v.Tables) != 1 {
				t.Errorf("%s %q: %v, %v; want accept with one table", tt.in.Dialect, tt.in.SQL, v, err)
			}
			continue
		}
		r, ok := verifier.AsRefusal(err)
		if !ok || r.Code != tt.wantCode {
			t.Errorf("%s %q: %v; want refusal %s", tt.in.Dialect, tt.in.SQL, err, tt.wantCode)
		}
	}
}
