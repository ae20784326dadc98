package postgres

import (
	"github.com/dbeast/dbeast/verifier"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// Casts and typed literals (CAST(x AS t), x::t, date '…', interval '3'
// month) are allowed to the built-in scalar types below and nothing else:
// never a reg* type (whose input functions look names up in the catalogs),
// an array, a domain, an enum or any other user type. The type name must
// be unqualified or in pg_catalog; with the engine's search_path of
// pg_catalog alone both resolve to the built-in type. Converting between
// built-in types runs a built-in cast function or the types' own input and
// output functions; the engine refuses a plan that casts to a type some
// user-defined cast (pg_cast) targets (see engines/postgres/funcguard.go).

// castKind says which type modifiers a cast target type takes.
type castKind uint8

const (
	castPlain     castKind = iota + 1 // no modifier
	castNumeric                       // numeric(p) or numeric(p, s)
	castLength                        // varchar(n), char(n): n bounded
	castPrecision                     // time, timestamp: (p), 0 to 6
	castInterval                      // interval fields and precision
)

// castTypes are the allowed cast target types by their internal name,
// as the grammar produces it (integer is pg_catalog.int4).
var castTypes = map[string]castKind{
	"int2": castPlain, "int4": castPlain, "int8": castPlain,
	"float4": castPlain, "float8": castPlain, "numeric": castNumeric,
	"bool": castPlain, "text": castPlain, "varchar": castLength, "bpchar": castLength,
	"date": castPlain, "time": castPrecision, "timetz": castPrecision,
	"timestamp": castPrecision, "timestamptz": castPrecision, "interval": castInterval,
	"uuid": castPlain, "json": castPlain, "jsonb": castPlain,
}

// intervalFields maps PostgreSQL's interval range masks (INTERVAL_MASK of
// the fields) to their SQL.
var intervalFields = map[int32]string{
	1 << 2: "year", 1 << 1: "month", 1 << 3: "day", 1 << 10: "hour", 1 << 11: "minute", 1 << 12: "second",
	1<<2 | 1<<1: "year to month", 1<<3 | 1<<10: "day to hour", 1<<3 | 1<<10 | 1<<11: "day to minute",
	1<<3 | 1<<10 | 1<<11 | 1<<12: "day to second", 1<<10 | 1<<11: "hour to minute",
	1<<10 | 1<<11 | 1<<12: "hour to second", 1<<11 | 1<<12: "minute to second",
}

// intervalFullRange is the mask of interval(p) without fields.
const intervalFullRange = 0x7fff

// castType returns the internal name of an allowed cast target, checking
// its qualification, modifiers and that it is no array, SETOF or %TYPE.
func castType(tn *pg_query.TypeName) (string, bool) {
	if tn == nil || tn.TypeOid != 0 || tn.Setof || tn.PctType || len(tn.ArrayBounds) > 0 || tn.Typemod != -1 {
		return "", false
	}
	var name string
	switch len(tn.Names) {
	case 1:
		name = tn.Names[0].GetString_().GetSval()
	case 2:
		if tn.Names[0].GetString_().GetSval() != "pg_catalog" {
			return "", false
		}
		name = tn.Names[1].GetString_().GetSval()
	default:
		return "", false
	}
	kind, ok := castTypes[name]
	if !ok {
		return "", false
	}
	mods := make([]int64, len(tn.Typmods))
	for i, m := range tn.Typmods {
		v, ok := intConst(m)
		if !ok {
			return "", false
		}
		mods[i] = v
	}
	switch kind {
	case castPlain:
		ok = len(mods) == 0
	case castNumeric:
		ok = len(mods) == 0 || (mods[0] >= 1 && mods[0] <= 1000 && (len(mods) == 1 || len(mods) == 2 && mods[1] >= -1000 && mods[1] <= 1000))
	case castLength:
		// char(n) pads every value to n characters: n is bounded.
		ok = len(mods) == 0 || len(mods) == 1 && mods[0] >= 1 && mods[0] <= maxPadLength
	case castPrecision:
		ok = len(mods) == 0 || len(mods) == 1 && mods[0] >= 0 && mods[0] <= 6
	case castInterval:
		ok = intervalMods(mods)
	default:
		ok = false
	}
	return name, ok
}

// intervalMods reports whether interval modifiers are fields, a precision
// or both as the grammar writes them.
func intervalMods(mods []int64) bool {
	switch len(mods) {
	case 0:
		return true
	case 1:
		_, ok := intervalFields[int32(mods[0])]
		return ok && mods[0] == int64(int32(mods[0]))
	case 2:
		if mods[1] < 0 || mods[1] > 6 {
			return false
		}
		// interval(p), second(p) and … to second(p).
		return mods[0] == intervalFullRange || mods[0] == 1<<12 || mods[0] == 1<<3|1<<10|1<<11|1<<12 ||
			mods[0] == 1<<10|1<<11|1<<12 || mods[0] == 1<<11|1<<12
	}
	return false
}

// typeCast walks a cast or typed literal to an allowed type.
func (w *walker) typeCast(tc *pg_query.TypeCast, sc *scope, env *cteEnv, ctx exprCtx) error {
	base, ok := castType(tc.TypeName)
	if !ok || w.write {
		// Writes keep the contract's rule: no casts.
		return verifier.RefuseCast(lastName(tc.TypeName))
	}
	if dateTimeTypes[base] && !dateTimeSource(tc.Arg) && !seriesColumn(tc.Arg, sc, ctx.outNames) {
		// A column is safe only if its type is a date/time one: an
		// obligation the engine discharges (coltypes.go).
		ts, col, ok := columnTables(tc.Arg, sc, ctx.outNames)
		if !ok {
			return verifier.RefuseCast(base)
		}
		w.b.AddColumnType(ts, col, dateTimeColumnTypes)
	}
	if dateTimeTypes[base] {
		if err := w.costDateTime(tc.Arg, false); err != nil {
			return err
		}
	}
	// char(n) pads every value to n characters: a growth function when n
	// is large (growth.go).
	grows := false
	if base == "bpchar" && len(tc.TypeName.Typmods) == 1 {
		n, _ := intConst(tc.TypeName.Typmods[0])
		grows = n > maxPlainChar
	}
	return w.growth(grows, func() error { return w.expr(tc.Arg, sc, env, ctx) })
}

// dateTimeTypes are the cast targets whose input function parses time
// zone names. PostgreSQL keeps every zone name it has parsed (about 24 KB
// each) for the life of the connection, so a cast of text from the data
// (one distinct zone per row) would grow the server without bound.
var dateTimeTypes = map[string]bool{
	"date": true, "time": true, "timetz": true, "timestamp": true, "timestamptz": true,
}

// typedDateTime reports whether n is known to be of a date/time or
// interval type: a dateTimeSource other than a bare constant (whose type
// the context decides).
func typedDateTime(n *pg_query.Node) bool {
	return n.GetAConst() == nil && dateTimeSource(n)
}

// dateTimeSource reports whether the operand of a cast to a date/time
// type is one the verifier knows parses no zone from the data: a
// constant, or an expression whose type is already a date/time type (a
// cast to one, CURRENT_DATE and its kin, now(), make_date, date_trunc)
// or an interval, or + or - with such an operand (PostgreSQL's + and -
// with a date, time, timestamp or interval operand give one of those or
// an integer, never text). A column is refused: the verifier cannot tell
// a timestamp column from a text one.
func dateTimeSource(n *pg_query.Node) bool {
	switch v := n.Node.(type) {
	case *pg_query.Node_AConst:
		return true
	case *pg_query.Node_TypeCast:
		base, ok := castType(v.TypeCast.TypeName)
		return ok && (dateTimeTypes[base] || base == "interval")
	case *pg_query.Node_SqlvalueFunction:
		return true
	case *pg_query.Node_AExpr:
		a := v.AExpr
		op, ok := opName(a.Name)
		return ok && a.Kind == pg_query.A_Expr_Kind_AEXPR_OP && (op == "+" || op == "-") && a.Lexpr != nil && a.Rexpr != nil &&
			(typedDateTime(a.Lexpr) || typedDateTime(a.Rexpr))
	case *pg_query.Node_FuncCall:
		fn := v.FuncCall.Funcname
		if len(fn) == 2 && fn[0].GetString_().GetSval() != "pg_catalog" || len(fn) > 2 {
			return false
		}
		switch fn[len(fn)-1].GetString_().GetSval() {
		case "now", "make_date", "date_trunc":
			return true
		}
	}
	return false
}

// lastName is a type name's last part, which a refusal names when it is
// in verifier's cast vocabulary (verifier.RefuseCast).
func lastName(tn *pg_query.TypeName) string {
	if tn == nil || len(tn.Names) == 0 {
		return ""
	}
	return tn.Names[len(tn.Names)-1].GetString_().GetSval()
}
