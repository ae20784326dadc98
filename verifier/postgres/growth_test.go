package postgres

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/verifier"
)

// nested returns the issue-13 blow-up: levels nested derived tables, each
// selecting its column repeated reps times; through renames, a CTE chain
// or a UNION ALL arm when shape says so.
func nested(levels, reps int, shape string) string {
	q := "SELECT name AS s FROM public.t"
	rep := func(ref string) string {
		parts := make([]string, reps)
		for i := range parts {
			parts[i] = ref
		}
		return strings.Join(parts, " || ")
	}
	switch shape {
	case "cte":
		var ctes []string
		ctes = append(ctes, "c0 AS ("+q+")")
		for i := 1; i <= levels; i++ {
			ctes = append(ctes, fmt.Sprintf("c%d AS (SELECT %s AS s FROM c%d)", i, rep("s"), i-1))
		}
		return "WITH " + strings.Join(ctes, ", ") + fmt.Sprintf(" SELECT s FROM c%d", levels)
	case "renamed":
		for i := 1; i <= levels; i++ {
			q = fmt.Sprintf("SELECT %s FROM (%s) AS x%d(s)", rep(fmt.Sprintf("x%d.s", i)), q, i)
		}
		return q
	case "union":
		for i := 1; i <= levels; i++ {
			q = fmt.Sprintf("SELECT %s AS s FROM (SELECT 'a' AS s UNION ALL %s) AS x%d", rep("s"), q, i)
		}
		return q
	}
	for i := 1; i <= levels; i++ {
		q = fmt.Sprintf("SELECT %s AS s FROM (%s) AS x%d", rep("s"), q, i)
	}
	return q
}

// TestExpressionGrowth pins the bound of issue 13 on the shapes that
// substitute an output expression into each reference: nested derived
// tables with unqualified and qualified references, renamed columns, CTE
// chains and UNION ALL arms. A few levels of ordinary reuse pass; the
// 450-byte, ten-level query is refused before any server sees it.
func TestExpressionGrowth(t *testing.T) {
	for _, shape := range []string{"plain", "cte", "renamed", "union"} {
		for _, c := range []struct {
			levels, reps int
			ok           bool
		}{{3, 4, true}, {10, 2, true}, {10, 4, false}, {8, 4, false}, {20, 3, false}} {
			q := nested(c.levels, c.reps, shape)
			_, err := Verify(verifier.Input{SQL: q})
			switch {
			case c.ok && err != nil:
				t.Errorf("%s %d×%d: refused: %v", shape, c.levels, c.reps, err)
			case !c.ok:
				r, ok := verifier.AsRefusal(err)
				if !ok || r.Code != verifier.CodeExpressionTooLarge {
					t.Errorf("%s %d×%d (%d bytes): got %v, want expression_too_large", shape, c.levels, c.reps, len(q), err)
				}
			}
		}
	}
}
