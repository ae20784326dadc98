package mysql

import (
	"github.com/dbeast/dbeast/verifier"
	"github.com/pingcap/tidb/pkg/parser/ast"
	pmysql "github.com/pingcap/tidb/pkg/parser/mysql"
)

// writeStmt checks a table write: one INSERT … VALUES (or INSERT … SET),
// UPDATE … SET or DELETE on one table of the configured database, with no
// joins, no multi-table forms, no ON DUPLICATE KEY UPDATE, no REPLACE, no
// INSERT … SELECT, no subqueries, no ORDER BY, no CTE, no hints or
// modifiers. UPDATE and DELETE may end in a plain LIMIT.
func (w *walker) writeStmt(stmt ast.StmtNode) (verifier.Op, *verifier.Table, error) {
	w.noSubq = true
	switch n := stmt.(type) {
	case *ast.InsertStmt:
		if n.IsReplace || len(n.OnDuplicate) > 0 || n.Select != nil || len(n.PartitionNames) > 0 {
			return "", nil, verifier.Refuse(verifier.CodeWriteShapeNotAllowed)
		}
		if n.IgnoreErr || n.Priority != pmysql.NoPriority {
			return "", nil, verifier.Refuse(verifier.CodeModifierNotAllowed)
		}
		if len(n.TableHints) > 0 {
			return "", nil, verifier.Refuse(verifier.CodeOptimizerHint)
		}
		t, sc, err := w.writeTarget(n.Table)
		if err != nil {
			return "", nil, err
		}
		if len(n.Lists) == 0 {
			return "", nil, verifier.Refuse(verifier.CodeWriteShapeNotAllowed)
		}
		for _, col := range n.Columns {
			if err := w.targetColumn(col, t, sc); err != nil {
				return "", nil, err
			}
		}
		for _, row := range n.Lists {
			if n.Setlist && len(row) != len(n.Columns) {
				return "", nil, verifier.Refuse(verifier.CodeWriteShapeNotAllowed)
			}
			for i := range row {
				if row[i], err = w.value(row[i], sc); err != nil {
					return "", nil, err
				}
			}
		}
		return verifier.OpInsert, t, nil
	case *ast.UpdateStmt:
		if n.MultipleTable || n.With != nil || n.Order != nil {
			return "", nil, verifier.Refuse(verifier.CodeWriteShapeNotAllowed)
		}
		if n.IgnoreErr || n.Priority != pmysql.NoPriority {
			return "", nil, verifier.Refuse(verifier.CodeModifierNotAllowed)
		}
		if len(n.TableHints) > 0 {
			return "", nil, verifier.Refuse(verifier.CodeOptimizerHint)
		}
		t, sc, err := w.writeTarget(n.TableRefs)
		if err != nil {
			return "", nil, err
		}
		if len(n.List) == 0 {
			return "", nil, verifier.Refuse(verifier.CodeWriteShapeNotAllowed)
		}
		for _, a := range n.List {
			if err := w.targetColumn(a.Column, t, sc); err != nil {
				return "", nil, err
			}
			if a.Expr, err = w.value(a.Expr, sc); err != nil {
				return "", nil, err
			}
		}
		// A standing write names its rows: every row of the table is a
		// full SQL statement, which the person approves.
		if n.Where == nil {
			return "", nil, verifier.Refuse(verifier.CodeWriteShapeNotAllowed)
		}
		if n.Where, err = w.expr(n.Where, nil, sc); err != nil {
			return "", nil, err
		}
		return verifier.OpUpdate, t, w.limit(n.Limit)
	case *ast.DeleteStmt:
		if n.IsMultiTable || n.Tables != nil || n.With != nil || n.Order != nil {
			return "", nil, verifier.Refuse(verifier.CodeWriteShapeNotAllowed)
		}
		if n.IgnoreErr || n.Quick || n.Priority != pmysql.NoPriority {
			return "", nil, verifier.Refuse(verifier.CodeModifierNotAllowed)
		}
		if len(n.TableHints) > 0 {
			return "", nil, verifier.Refuse(verifier.CodeOptimizerHint)
		}
		t, sc, err := w.writeTarget(n.TableRefs)
		if err != nil {
			return "", nil, err
		}
		if n.Where == nil {
			return "", nil, verifier.Refuse(verifier.CodeWriteShapeNotAllowed)
		}
		if n.Where, err = w.expr(n.Where, nil, sc); err != nil {
			return "", nil, err
		}
		return verifier.OpDelete, t, w.limit(n.Limit)
	}
	return "", nil, verifier.Refuse(verifier.CodeWriteShapeNotAllowed)
}

// writeTarget resolves the single qualified target table of a write.
func (w *walker) writeTarget(refs *ast.TableRefsClause) (*verifier.Table, *scope, error) {
	if refs == nil || refs.TableRefs == nil || refs.TableRefs.Right != nil {
		return nil, nil, verifier.Refuse(verifier.CodeWriteShapeNotAllowed)
	}
	ts, ok := refs.TableRefs.Left.(*ast.TableSource)
	if !ok {
		return nil, nil, verifier.Refuse(verifier.CodeWriteShapeNotAllowed)
	}
	tn, ok := ts.Source.(*ast.TableName)
	if !ok || ts.Lateral || len(ts.ColumnNames) > 0 {
		return nil, nil, verifier.Refuse(verifier.CodeWriteShapeNotAllowed)
	}
	if tn.Schema.O == "" {
		return nil, nil, verifier.Refuse(verifier.CodeUnqualifiedTable)
	}
	t, _, err := w.tableName(tn, nil)
	if err != nil {
		return nil, nil, err
	}
	name := tn.Name.O
	if ts.AsName.O != "" {
		if err := checkName(ts.AsName.O); err != nil {
			return nil, nil, err
		}
		name = ts.AsName.O
	}
	return t, &scope{sources: []source{{name: name, table: t}}}, nil
}

// targetColumn checks an assigned or listed column: unqualified or
// qualified by the target's name, and records it.
func (w *walker) targetColumn(col *ast.ColumnName, t *verifier.Table, sc *scope) error {
	if col == nil || col.Schema.O != "" {
		return verifier.Refuse(verifier.CodeWriteShapeNotAllowed)
	}
	if col.Table.O != "" && col.Table.O != sc.sources[0].name {
		return verifier.Refuse(verifier.CodeWriteShapeNotAllowed)
	}
	if err := checkName(col.Name.O); err != nil {
		return err
	}
	w.b.AddColumn(*t, col.Name.O)
	return nil
}

// value checks an inserted or assigned value: DEFAULT or an allowed
// expression.
func (w *walker) value(e ast.ExprNode, sc *scope) (ast.ExprNode, error) {
	if d, ok := e.(*ast.DefaultExpr); ok {
		if d.Name != nil {
			return nil, verifier.Refuse(verifier.CodeConstructNotAllowed)
		}
		return d, nil
	}
	return w.expr(e, nil, sc)
}
