package postgres

import (
	"github.com/dbeast/dbeast/verifier"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// checkWrite checks a table_write statement: one INSERT … VALUES (or
// DEFAULT VALUES), UPDATE … SET … WHERE or DELETE … WHERE on one
// schema-qualified table, with no other relation, no subquery, no CTE, no
// RETURNING, no ON CONFLICT and only allowed functions. Expressions are
// checked by the read walker with write set, which refuses subqueries.
func (w *walker) checkWrite(stmt *pg_query.Node) (verifier.Op, *verifier.Table, error) {
	w.write = true
	switch v := stmt.Node.(type) {
	case *pg_query.Node_InsertStmt:
		t, err := w.insert(v.InsertStmt)
		return verifier.OpInsert, t, err
	case *pg_query.Node_UpdateStmt:
		t, err := w.update(v.UpdateStmt)
		return verifier.OpUpdate, t, err
	case *pg_query.Node_DeleteStmt:
		t, err := w.delete(v.DeleteStmt)
		return verifier.OpDelete, t, err
	}
	return "", nil, refuse(verifier.CodeWriteShapeNotAllowed)
}

// target checks the written table and returns it with a scope holding it.
func (w *walker) target(rv *pg_query.RangeVar, aliasOK bool) (*verifier.Table, *scope, error) {
	if rv == nil {
		return nil, nil, refuse(verifier.CodeWriteShapeNotAllowed)
	}
	switch {
	case rv.Catalogname != "":
		return nil, nil, refuse(verifier.CodeOtherDatabase)
	case rv.Schemaname == "":
		return nil, nil, refuse(verifier.CodeUnqualifiedTable)
	case isSystemSchema(rv.Schemaname):
		return nil, nil, refuse(verifier.CodeSystemObject)
	case !rv.Inh:
		return nil, nil, refuse(verifier.CodeInheritanceMarker)
	case rv.Relpersistence != "p":
		return nil, nil, refuse(verifier.CodeWriteShapeNotAllowed)
	case rv.Alias != nil && (!aliasOK || len(rv.Alias.Colnames) > 0):
		return nil, nil, refuse(verifier.CodeWriteShapeNotAllowed)
	}
	if err := w.starAfterName(rv.Location, nameParts(rv)); err != nil {
		return nil, nil, err
	}
	t := verifier.Table{Schema: rv.Schemaname, Name: rv.Relname}
	w.b.AddTable(t)
	name := rv.Relname
	if rv.Alias != nil {
		name = rv.Alias.Aliasname
	}
	return &t, &scope{items: []*rangeItem{{name: name, table: &t}}}, nil
}

// column records an assigned column of the target.
func (w *walker) column(t *verifier.Table, rt *pg_query.ResTarget) error {
	if rt == nil || rt.Name == "" || len(rt.Indirection) > 0 {
		return refuse(verifier.CodeWriteShapeNotAllowed)
	}
	if systemColumns[rt.Name] {
		return refuse(verifier.CodeSystemObject)
	}
	w.b.AddColumn(*t, rt.Name)
	return nil
}

// value walks an assigned value; DEFAULT is allowed here and only here.
func (w *walker) value(n *pg_query.Node, sc *scope) error {
	if n.GetSetToDefault() != nil {
		return nil
	}
	return w.expr(n, sc, nil, exprCtx{})
}

func (w *walker) insert(s *pg_query.InsertStmt) (*verifier.Table, error) {
	if s.WithClause != nil || s.OnConflictClause != nil || len(s.ReturningList) > 0 {
		return nil, refuse(verifier.CodeWriteShapeNotAllowed)
	}
	if s.Override != pg_query.OverridingKind_OVERRIDING_NOT_SET {
		return nil, refuse(verifier.CodeWriteShapeNotAllowed)
	}
	t, _, err := w.target(s.Relation, false)
	if err != nil {
		return nil, err
	}
	for _, c := range s.Cols {
		if err := w.column(t, c.GetResTarget()); err != nil {
			return nil, err
		}
	}
	if s.SelectStmt == nil {
		return t, nil // DEFAULT VALUES
	}
	sel := s.SelectStmt.GetSelectStmt()
	if sel == nil || len(sel.ValuesLists) == 0 || len(sel.TargetList) > 0 || len(sel.FromClause) > 0 ||
		sel.WhereClause != nil || len(sel.GroupClause) > 0 || sel.HavingClause != nil ||
		len(sel.SortClause) > 0 || sel.LimitCount != nil || sel.LimitOffset != nil ||
		len(sel.LockingClause) > 0 || sel.WithClause != nil || sel.IntoClause != nil ||
		len(sel.DistinctClause) > 0 || len(sel.WindowClause) > 0 || sel.Op != pg_query.SetOperation_SETOP_NONE {
		return nil, refuse(verifier.CodeWriteShapeNotAllowed)
	}
	// VALUES rows see no table: a column reference there is an error in
	// PostgreSQL, and the empty scope keeps it unattributed.
	empty := &scope{}
	for _, row := range sel.ValuesLists {
		l := row.GetList()
		if l == nil {
			return nil, refuse(verifier.CodeWriteShapeNotAllowed)
		}
		for _, e := range l.Items {
			if err := w.value(e, empty); err != nil {
				return nil, err
			}
		}
	}
	return t, nil
}

func (w *walker) update(s *pg_query.UpdateStmt) (*verifier.Table, error) {
	if s.WithClause != nil || len(s.FromClause) > 0 || len(s.ReturningList) > 0 || s.WhereClause == nil {
		return nil, refuse(verifier.CodeWriteShapeNotAllowed)
	}
	t, sc, err := w.target(s.Relation, true)
	if err != nil {
		return nil, err
	}
	if len(s.TargetList) == 0 {
		return nil, refuse(verifier.CodeWriteShapeNotAllowed)
	}
	for _, n := range s.TargetList {
		rt := n.GetResTarget()
		if err := w.column(t, rt); err != nil {
			return nil, err
		}
		if rt.Val == nil || rt.Val.GetMultiAssignRef() != nil {
			return nil, refuse(verifier.CodeWriteShapeNotAllowed)
		}
		if err := w.value(rt.Val, sc); err != nil {
			return nil, err
		}
	}
	if err := w.expr(s.WhereClause, sc, nil, exprCtx{}); err != nil {
		return nil, err
	}
	return t, nil
}

func (w *walker) delete(s *pg_query.DeleteStmt) (*verifier.Table, error) {
	if s.WithClause != nil || len(s.UsingClause) > 0 || len(s.ReturningList) > 0 || s.WhereClause == nil {
		return nil, refuse(verifier.CodeWriteShapeNotAllowed)
	}
	t, sc, err := w.target(s.Relation, true)
	if err != nil {
		return nil, err
	}
	if err := w.expr(s.WhereClause, sc, nil, exprCtx{}); err != nil {
		return nil, err
	}
	return t, nil
}
