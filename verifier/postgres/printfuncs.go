package postgres

import (
	"strconv"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// Printing of the analytics forms: casts, SQL-syntax calls, aggregates'
// clauses, window specifications, GREATEST/LEAST, GROUPING and the
// datetime keywords. As for the rest of the printer, a mistake here can
// only refuse a query: normalize proves the text parses to the same tree.

// funcCall prints a call in its own syntax: EXTRACT, SUBSTRING, POSITION
// and TRIM for the SQL-syntax forms, else name(args) with DISTINCT, ORDER
// BY, WITHIN GROUP, FILTER and OVER.
func (p *printer) funcCall(f *pg_query.FuncCall) {
	if f.FuncVariadic {
		p.fail()
		return
	}
	switch f.Funcformat {
	case pg_query.CoercionForm_COERCE_SQL_SYNTAX:
		p.sqlSyntaxCall(f)
		return
	case pg_query.CoercionForm_COERCE_EXPLICIT_CALL:
	default:
		p.fail()
		return
	}
	for i, n := range f.Funcname {
		if i > 0 {
			p.s(".")
		}
		s := n.GetString_()
		if s == nil {
			p.fail()
			return
		}
		p.ident(s.Sval)
	}
	p.s("(")
	switch {
	case f.AggStar:
		p.s("*")
	default:
		if f.AggDistinct {
			p.s("DISTINCT ")
		}
		p.list(f.Args, p.expr)
		if len(f.AggOrder) > 0 && !f.AggWithinGroup {
			p.s(" ORDER BY ")
			p.list(f.AggOrder, p.sortBy)
		}
	}
	p.s(")")
	if f.AggWithinGroup {
		p.s(" WITHIN GROUP (ORDER BY ")
		p.list(f.AggOrder, p.sortBy)
		p.s(")")
	}
	if f.AggFilter != nil {
		p.s(" FILTER (WHERE ")
		p.expr(f.AggFilter)
		p.s(")")
	}
	if d := f.Over; d != nil {
		p.s(" OVER ")
		if d.Name != "" {
			p.ident(d.Name)
		} else {
			p.windowSpec(d)
		}
	}
}

// extractFields are EXTRACT fields printed bare; any other is printed as
// a string constant, which the grammar reads the same.
var extractFields = map[string]bool{
	"year": true, "month": true, "day": true, "hour": true, "minute": true, "second": true,
	"epoch": true, "dow": true, "doy": true, "quarter": true, "week": true, "decade": true,
	"century": true, "millennium": true, "isodow": true, "isoyear": true,
	"microseconds": true, "milliseconds": true, "julian": true,
}

// sqlSyntaxCall prints the SQL-syntax forms the walker allows.
func (p *printer) sqlSyntaxCall(f *pg_query.FuncCall) {
	if len(f.Funcname) != 2 || f.Over != nil || f.AggFilter != nil || len(f.AggOrder) > 0 || f.AggStar || f.AggDistinct {
		p.fail()
		return
	}
	a := f.Args
	switch f.Funcname[1].GetString_().GetSval() {
	case "extract":
		if len(a) != 2 || a[0].GetAConst().GetSval() == nil {
			p.fail()
			return
		}
		p.s("EXTRACT(")
		if fld := a[0].GetAConst().GetSval().GetSval(); extractFields[fld] {
			p.s(fld)
		} else {
			p.str(fld)
		}
		p.s(" FROM ")
		p.expr(a[1])
		p.s(")")
	case "substring":
		if len(a) < 2 || len(a) > 3 {
			p.fail()
			return
		}
		p.s("SUBSTRING(")
		p.expr(a[0])
		p.s(" FROM ")
		p.expr(a[1])
		if len(a) == 3 {
			p.s(" FOR ")
			p.expr(a[2])
		}
		p.s(")")
	case "position":
		if len(a) != 2 {
			p.fail()
			return
		}
		p.s("POSITION(")
		p.parenOperand(a[1])
		p.s(" IN ")
		p.parenOperand(a[0])
		p.s(")")
	case "btrim", "ltrim", "rtrim":
		if len(a) < 1 || len(a) > 2 {
			p.fail()
			return
		}
		switch f.Funcname[1].GetString_().GetSval() {
		case "btrim":
			p.s("TRIM(BOTH ")
		case "ltrim":
			p.s("TRIM(LEADING ")
		default:
			p.s("TRIM(TRAILING ")
		}
		if len(a) == 2 {
			p.expr(a[1])
			p.s(" ")
		}
		p.s("FROM ")
		p.expr(a[0])
		p.s(")")
	default:
		p.fail()
	}
}

// parenOperand prints n in parentheses unless it is a name, a constant or
// a call (POSITION's operands are restricted expressions).
func (p *printer) parenOperand(n *pg_query.Node) {
	if n != nil {
		switch n.Node.(type) {
		case *pg_query.Node_ColumnRef, *pg_query.Node_FuncCall:
			p.expr(n)
			return
		case *pg_query.Node_AConst:
			if !negativeConst(n.GetAConst()) {
				p.expr(n)
				return
			}
		}
	}
	p.s("(")
	p.expr(n)
	p.s(")")
}

// negativeConst reports whether a numeric constant prints with a sign.
func negativeConst(c *pg_query.A_Const) bool {
	switch v := c.Val.(type) {
	case *pg_query.A_Const_Ival:
		return v.Ival.GetIval() < 0
	case *pg_query.A_Const_Fval:
		f := v.Fval.GetFval()
		return f != "" && f[0] == '-'
	}
	return false
}

// windowSpec prints a parenthesized window specification.
func (p *printer) windowSpec(d *pg_query.WindowDef) {
	p.s("(")
	sep := ""
	if d.Refname != "" {
		p.ident(d.Refname)
		sep = " "
	}
	if len(d.PartitionClause) > 0 {
		p.s(sep + "PARTITION BY ")
		p.list(d.PartitionClause, p.expr)
		sep = " "
	}
	if len(d.OrderClause) > 0 {
		p.s(sep + "ORDER BY ")
		p.list(d.OrderClause, p.sortBy)
		sep = " "
	}
	o := d.FrameOptions
	switch {
	case o&frameNonDefault == 0:
		if o != frameDefaults {
			p.fail()
		}
	default:
		p.s(sep)
		switch {
		case o&frameRange != 0:
			p.s("RANGE ")
		case o&frameRows != 0:
			p.s("ROWS ")
		case o&frameGroups != 0:
			p.s("GROUPS ")
		default:
			p.fail()
		}
		if o&frameBetween != 0 {
			p.s("BETWEEN ")
			p.frameBound(startBound(o), d.StartOffset)
			p.s(" AND ")
			p.frameBound(endBound(o), d.EndOffset)
		} else {
			p.frameBound(startBound(o), d.StartOffset)
		}
		switch {
		case o&frameExcludeCurrentRow != 0:
			p.s(" EXCLUDE CURRENT ROW")
		case o&frameExcludeGroup != 0:
			p.s(" EXCLUDE GROUP")
		case o&frameExcludeTies != 0:
			p.s(" EXCLUDE TIES")
		}
	}
	p.s(")")
}

// frameBound prints one bound; sql is from startBound/endBound, with a
// leading space for the offset forms.
func (p *printer) frameBound(sql string, offset *pg_query.Node) {
	switch {
	case sql == "":
		p.fail()
	case sql[0] == ' ':
		if offset == nil {
			p.fail()
			return
		}
		p.operand(offset)
		p.s(sql)
	default:
		p.s(sql)
	}
}

// windowClause prints WINDOW name AS (…), ….
func (p *printer) windowClause(defs []*pg_query.Node) {
	if len(defs) == 0 {
		return
	}
	p.s(" WINDOW ")
	p.list(defs, func(n *pg_query.Node) {
		d := n.GetWindowDef()
		if d == nil || d.Name == "" {
			p.fail()
			return
		}
		p.ident(d.Name)
		p.s(" AS ")
		p.windowSpec(d)
	})
}

// typeCast prints arg::type.
func (p *printer) typeCast(tc *pg_query.TypeCast) {
	p.parenOperand(tc.Arg)
	p.s("::")
	p.typeName(tc.TypeName)
}

// keywordTypes are pg_catalog types the grammar spells with keywords.
var keywordTypes = map[string]string{
	"int2": "smallint", "int4": "integer", "int8": "bigint", "float4": "real",
	"float8": "double precision", "bool": "boolean", "numeric": "numeric",
	"varchar": "varchar", "bpchar": "char", "time": "time", "timetz": "time",
	"timestamp": "timestamp", "timestamptz": "timestamp", "interval": "interval",
}

// typeName prints a cast target the walker allowed.
func (p *printer) typeName(tn *pg_query.TypeName) {
	if tn == nil || len(tn.ArrayBounds) > 0 {
		p.fail()
		return
	}
	var mods []int64
	for _, m := range tn.Typmods {
		v, ok := intConst(m)
		if !ok {
			p.fail()
			return
		}
		mods = append(mods, v)
	}
	if len(tn.Names) == 1 {
		if len(mods) > 0 {
			p.fail()
			return
		}
		p.ident(tn.Names[0].GetString_().GetSval())
		return
	}
	name := tn.Names[len(tn.Names)-1].GetString_().GetSval()
	kw, ok := keywordTypes[name]
	if len(tn.Names) != 2 || !ok || name == "bpchar" && len(mods) == 0 {
		// pg_catalog.bpchar without a length comes from N'…' only.
		// pg_catalog.date and the like: the generic, qualified spelling.
		for i, n := range tn.Names {
			if i > 0 {
				p.s(".")
			}
			p.ident(n.GetString_().GetSval())
		}
		if len(mods) > 0 {
			p.fail()
		}
		return
	}
	p.s(kw)
	switch name {
	case "interval":
		p.intervalMods(mods)
		return
	}
	if len(mods) > 0 {
		p.s("(")
		for i, m := range mods {
			if i > 0 {
				p.s(", ")
			}
			p.s(strconv.FormatInt(m, 10))
		}
		p.s(")")
	}
	switch name {
	case "timetz", "timestamptz":
		p.s(" with time zone")
	}
}

// intervalMods prints interval's fields and precision.
func (p *printer) intervalMods(mods []int64) {
	switch len(mods) {
	case 0:
	case 1:
		f, ok := intervalFields[int32(mods[0])]
		if !ok {
			p.fail()
			return
		}
		p.s(" " + f)
	case 2:
		prec := "(" + strconv.FormatInt(mods[1], 10) + ")"
		if mods[0] == intervalFullRange {
			p.s(prec)
			return
		}
		f, ok := intervalFields[int32(mods[0])]
		if !ok {
			p.fail()
			return
		}
		p.s(" " + f + prec)
	default:
		p.fail()
	}
}

// minMax prints GREATEST(…) or LEAST(…).
func (p *printer) minMax(m *pg_query.MinMaxExpr) {
	switch m.Op {
	case pg_query.MinMaxOp_IS_GREATEST:
		p.s("GREATEST(")
	case pg_query.MinMaxOp_IS_LEAST:
		p.s("LEAST(")
	default:
		p.fail()
		return
	}
	p.list(m.Args, p.expr)
	p.s(")")
}

// sqlValue prints CURRENT_DATE and its kin.
func (p *printer) sqlValue(s *pg_query.SQLValueFunction) {
	kw, ok := sqlValueFuncs[s.Op]
	if !ok || s.Typmod != -1 {
		p.fail()
		return
	}
	p.s(kw)
}
