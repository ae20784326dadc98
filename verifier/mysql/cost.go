package mysql

import (
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/dbeast/dbeast/verifier"
)

// MySQL's and MariaDB's cost model (verifier/cost.go). The servers keep no
// per-connection zone cache (named zones need the mysql.time_zone tables,
// and CONVERT_TZ is not allowed), so only the typed literals DATE '…',
// TIME '…' and TIMESTAMP '…' count as date/time strings, distinct and
// case folded, against the shared bound. GROUP_CONCAT is the only growth
// aggregate the read path allows (JSON_ARRAYAGG and JSON_OBJECTAGG are
// not on the list), each cut at group_concat_max_len per group but
// unbounded in number. WITH ROLLUP is the only grouping-set form: a GROUP
// BY of n items with it makes n+1 sets, without it one.
//
// The hooks: expr (typed literals), aggregate (GROUP_CONCAT) and
// selectStmt (GROUP BY).

// costLiteral counts a typed date/time literal's string.
func (w *walker) costLiteral(n *ast.FuncCallExpr) error {
	if len(n.Args) != 1 {
		return nil
	}
	s, ok := stringConst(n.Args[0])
	if !ok {
		return nil
	}
	return w.costs.DateTimeString(s)
}

// costGroupBy counts one query block's grouping sets.
func (w *walker) costGroupBy(g *ast.GroupByClause) error {
	if g == nil || len(g.Items) == 0 {
		return nil
	}
	n := int64(1)
	if g.Rollup {
		n = verifier.SetsSum(int64(len(g.Items)), 1)
	}
	return w.costs.GroupingSets(n)
}
