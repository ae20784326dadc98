package conformance

import (
	"testing"

	"github.com/dbeast/dbeast/verifier"
)

// TestUntriedCodes: reads refused for a size bound are never sent to a
// server, since running them is the cost the bound prevents (a CTE chain
// past the expanded-reference bound grew MariaDB 10.11 to 18.6 GB; a
// 2,000-CTE chain planned on PostgreSQL 15 past statement_timeout).
func TestUntriedCodes(t *testing.T) {
	for _, c := range []verifier.Code{
		verifier.CodeExpressionTooLarge, verifier.CodeTooDeep, verifier.CodeInputTooLarge,
		verifier.CodeTooManyAliases, verifier.CodeTooManyReferences, verifier.CodeTooManyExpandedReferences,
	} {
		if !untried[c] {
			t.Errorf("reads refused with %s are tried on the server", c)
		}
	}
}
