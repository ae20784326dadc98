package postgres

import (
	"math"
	"math/big"
	"regexp"
	"strconv"
	"time"

	"github.com/dbeast/dbeast/verifier"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// A calendar spine (issue 31): the one table function a read may call in
// FROM is generate_series over timestamps with constant bounds and a
// constant step,
//
//	FROM generate_series(timestamp '2024-01-01', timestamp '2024-12-31', interval '1 day') AS g(day)
//
// which reporting queries LEFT JOIN to so that days without rows appear.
// Everything that decides how many rows it makes is a constant the
// verifier reads, so the count is proven before the server sees the
// query: at most MaxSeriesRows (seriesRows). The forms accepted are the
// ones whose meaning does not depend on a setting:
//
//   - bounds typed timestamp (without time zone), written timestamp '…',
//     '…'::timestamp or CAST('…' AS timestamp), each YYYY-MM-DD with an
//     optional HH:MM:SS. A date or timestamptz bound makes PostgreSQL pick
//     generate_series(timestamptz, timestamptz, interval), whose values
//     (and with hour steps, whose count across a DST change) depend on the
//     session's TimeZone, so they are refused; so are the special inputs
//     ('infinity', 'now', 'epoch'), which either have no bound or read the
//     clock;
//   - a step written interval 'N unit' with N from 1 to 9999 and unit one
//     of minute, hour, day, week, month, year (singular or plural):
//     positive, so the series ends, and never zero, which the server
//     refuses only at run time;
//   - no WITH ORDINALITY, ROWS FROM, LATERAL or column definition list;
//     an alias with at most one column name.
//
// The series column has the type timestamp, so a cast of it to a
// date/time type parses no text and needs no obligation (seriesColumn).
// The engine proves generate_series like any listed function: every
// pg_catalog function of that name is a built-in IMMUTABLE or STABLE one,
// and its plan guard allows the call because the verdict lists it.

// MaxSeriesRows bounds the rows of one generate_series in FROM
// (verifier.MaxSeriesRows, which the refusal's hint spells).
const MaxSeriesRows = verifier.MaxSeriesRows

// seriesTimestamp is the bound syntax accepted: a date, optionally with
// a time of day (PostgreSQL's ISO input; nothing else it would read).
var seriesTimestamp = regexp.MustCompile(`^([0-9]{4}-[0-9]{2}-[0-9]{2})(?: ([0-9]{2}:[0-9]{2}:[0-9]{2}))?$`)

// seriesStep is the step syntax accepted.
var seriesStep = regexp.MustCompile(`^([1-9][0-9]{0,3}) (minute|hour|day|week|month|year)s?$`)

// seriesUnitMin is the shortest a step unit can be in timestamp
// arithmetic (no time zone, so no DST): a month adds 28 to 31 days, a
// year 365 or 366. Dividing the span by it bounds the row count from
// above.
var seriesUnitMin = map[string]time.Duration{
	"minute": time.Minute, "hour": time.Hour, "day": 24 * time.Hour, "week": 7 * 24 * time.Hour,
	"month": 28 * 24 * time.Hour, "year": 365 * 24 * time.Hour,
}

// rangeFunction walks a function call in FROM: only the bounded
// generate_series above; any other is a table function and refused.
func (w *walker) rangeFunction(rf *pg_query.RangeFunction, sc *scope, env *cteEnv) error {
	if w.write {
		return refuse(verifier.CodeWriteShapeNotAllowed)
	}
	if rf.Lateral || rf.Ordinality || rf.IsRowsfrom || len(rf.Coldeflist) > 0 || len(rf.Functions) != 1 {
		return refuse(verifier.CodeTableFunction)
	}
	items := rf.Functions[0].GetList().GetItems()
	if len(items) != 2 || items[1] != nil && items[1].Node != nil {
		return refuse(verifier.CodeTableFunction)
	}
	f := items[0].GetFuncCall()
	if f != nil && f.Location >= 0 {
		w.at = int(f.Location)
	}
	if f == nil || !isSeriesCall(f) {
		return refuse(verifier.CodeTableFunction)
	}
	start, ok1 := seriesBound(f.Args[0])
	stop, ok2 := seriesBound(f.Args[1])
	n, unit, ok3 := seriesInterval(f.Args[2])
	if !ok1 || !ok2 || !ok3 {
		return refuse(verifier.CodeTableFunction)
	}
	if seriesRows(start, stop, n, unit) > MaxSeriesRows {
		return refuse(verifier.CodeTableFunction)
	}
	// The arguments are constants: walking them charges their cost (and
	// date/time strings) as anywhere else and sees no column.
	for _, a := range f.Args {
		if err := w.expr(a, &scope{parent: sc.parent}, env, exprCtx{}); err != nil {
			return err
		}
	}
	w.b.AddFunction("generate_series")
	// PostgreSQL names the entry after the alias, else the function, and
	// its one column after the alias's column, else the entry.
	name, col := "generate_series", "generate_series"
	if a := rf.Alias; a != nil {
		if len(a.Colnames) > 1 {
			return refuse(verifier.CodeTableFunction)
		}
		name, col = a.Aliasname, a.Aliasname
		if len(a.Colnames) == 1 {
			s := a.Colnames[0].GetString_()
			if s == nil {
				return refuse(verifier.CodeConstructNotAllowed)
			}
			col = s.Sval
		}
	}
	if err := w.countAlias(name); err != nil {
		return err
	}
	return w.addItem(sc, &rangeItem{name: name, out: &outputs{cols: []outCol{{name: col, explicit: true}}}, series: true})
}

// isSeriesCall reports whether f is a plain call of generate_series (or
// pg_catalog.generate_series) with three arguments.
func isSeriesCall(f *pg_query.FuncCall) bool {
	switch len(f.Funcname) {
	case 1:
	case 2:
		if f.Funcname[0].GetString_().GetSval() != "pg_catalog" {
			return false
		}
	default:
		return false
	}
	return f.Funcname[len(f.Funcname)-1].GetString_().GetSval() == "generate_series" &&
		f.Funcformat == pg_query.CoercionForm_COERCE_EXPLICIT_CALL && len(f.Args) == 3 &&
		f.Over == nil && f.AggFilter == nil && len(f.AggOrder) == 0 && !f.AggStar && !f.AggDistinct &&
		!f.AggWithinGroup && !f.FuncVariadic
}

// seriesConst returns the string constant n casts to the type want,
// which must be written without modifiers.
func seriesConst(n *pg_query.Node, want string) (string, bool) {
	tc := n.GetTypeCast()
	if tc == nil || len(tc.TypeName.GetTypmods()) > 0 {
		return "", false
	}
	if base, ok := castType(tc.TypeName); !ok || base != want {
		return "", false
	}
	s := tc.Arg.GetAConst().GetSval()
	if s == nil {
		return "", false
	}
	return s.Sval, true
}

// seriesBound parses a timestamp bound.
func seriesBound(n *pg_query.Node) (time.Time, bool) {
	s, ok := seriesConst(n, "timestamp")
	if !ok {
		return time.Time{}, false
	}
	m := seriesTimestamp.FindStringSubmatch(s)
	if m == nil {
		return time.Time{}, false
	}
	layout, v := "2006-01-02", m[1]
	if m[2] != "" {
		layout, v = "2006-01-02 15:04:05", m[1]+" "+m[2]
	}
	t, err := time.Parse(layout, v)
	return t, err == nil
}

// seriesInterval parses the step.
func seriesInterval(n *pg_query.Node) (int64, string, bool) {
	s, ok := seriesConst(n, "interval")
	if !ok {
		return 0, "", false
	}
	m := seriesStep.FindStringSubmatch(s)
	if m == nil {
		return 0, "", false
	}
	k, err := strconv.ParseInt(m[1], 10, 64)
	return k, m[2], err == nil
}

// seriesRows bounds from above the rows of generate_series(start, stop,
// n unit): none when stop is before start, else one more than the steps
// of the shortest length the unit can have that fit in the span.
func seriesRows(start, stop time.Time, n int64, unit string) int64 {
	if stop.Before(start) {
		return 0
	}
	step := time.Duration(n) * seriesUnitMin[unit]
	// time.Time.Sub saturates at about 292 years; the span is taken in
	// whole seconds plus nanoseconds with big integers instead, so a span
	// of '0001-01-01'..'9999-12-31' is divided as it is.
	if step <= 0 {
		return math.MaxInt64
	}
	span := new(big.Int).Mul(big.NewInt(stop.Unix()-start.Unix()), big.NewInt(int64(time.Second)))
	span.Add(span, big.NewInt(int64(stop.Nanosecond()-start.Nanosecond())))
	span.Quo(span, big.NewInt(int64(step)))
	if !span.IsInt64() || span.Int64() == math.MaxInt64 {
		return math.MaxInt64
	}
	return span.Int64() + 1
}

// seriesColumn reports whether the column reference n denotes the
// column of a generate_series entry, which is a timestamp: g.day, or a
// bare day where the nearest scope in which any entry may have a column
// of that name has the series entry with it (another entry of that scope
// with the column would make the name ambiguous, which the server
// refuses). A name that may denote an output column (outNames) is not
// taken for one.
func seriesColumn(n *pg_query.Node, sc *scope, outNames map[string]bool) bool {
	c := n.GetColumnRef()
	if c == nil {
		return false
	}
	var parts []string
	for _, p := range c.Fields {
		s := p.GetString_()
		if s == nil {
			return false
		}
		parts = append(parts, s.Sval)
	}
	switch len(parts) {
	case 1:
		if sc.findItem(parts[0]) != nil || outNames[parts[0]] {
			return false // a whole-row reference, refused elsewhere
		}
		for s := sc; s != nil; s = s.parent {
			found := false
			for _, it := range s.items {
				if st, _ := it.has(parts[0]); st != colNo {
					found = true
					if it.series && st == colYes {
						return true
					}
				}
			}
			if found {
				return false
			}
		}
	case 2:
		it := sc.findItem(parts[0])
		if it != nil && it.series {
			st, _ := it.out.has(parts[1])
			return st == colYes
		}
	}
	return false
}

// rangeFunction prints the generate_series entry the walker accepted.
func (p *printer) rangeFunction(rf *pg_query.RangeFunction) {
	if rf.Lateral || rf.Ordinality || rf.IsRowsfrom || len(rf.Coldeflist) > 0 || len(rf.Functions) != 1 {
		p.fail()
		return
	}
	items := rf.Functions[0].GetList().GetItems()
	if len(items) != 2 || items[0].GetFuncCall() == nil || items[1] != nil && items[1].Node != nil {
		p.fail()
		return
	}
	p.expr(items[0])
	p.alias(rf.Alias, false)
}
