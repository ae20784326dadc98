package verifier

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// The bounds every dialect shares, each at its limit and one past it: the
// dialects' corpora reach them through whole queries, and these pin the
// counters themselves in the package that owns them, so a counter that is
// off by one fails here, not only in a dialect's package.

func refusedWith(err error, code Code) bool {
	r, ok := AsRefusal(err)
	return ok && r.Code == code
}

func TestCostDateTimeStringsBound(t *testing.T) {
	tests := []struct {
		name   string
		add    []string
		refuse bool
	}{
		{"one string", []string{"2024-01-01"}, false},
		{"the same string twice counts once", []string{"UTC", "UTC"}, false},
		{"case-folded duplicates count once", []string{"utc", "UTC", "Utc"}, false},
		{"at the bound", distinct(MaxDateTimeStrings), false},
		{"one past the bound", distinct(MaxDateTimeStrings + 1), true},
		{"repeats at the bound stay inside", append(distinct(MaxDateTimeStrings), distinct(MaxDateTimeStrings)...), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var c Cost
			var err error
			for _, s := range tc.add {
				if e := c.DateTimeString(s); e != nil {
					err = e
				}
			}
			if tc.refuse != refusedWith(err, CodeTooManyDateTimeStrings) || (!tc.refuse && err != nil) {
				t.Fatalf("%d strings: err = %v, want refusal %v", len(tc.add), err, tc.refuse)
			}
		})
	}
}

func distinct(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("zone%d", i)
	}
	return out
}

func TestCostGrowthAggregatesBound(t *testing.T) {
	for n := 1; n <= MaxGrowthAggregates+2; n++ {
		var c Cost
		var last error
		for range n {
			last = c.GrowthAggregate()
		}
		want := n > MaxGrowthAggregates
		if got := refusedWith(last, CodeTooManyGrowthAggregates); got != want || (!want && last != nil) {
			t.Errorf("%d aggregates: err = %v, want refusal %v", n, last, want)
		}
	}
}

func TestCostGroupingSetsBound(t *testing.T) {
	tests := []struct {
		name   string
		blocks []int64
		refuse bool
	}{
		{"one block at the bound", []int64{MaxGroupingSets}, false},
		{"one block past the bound", []int64{MaxGroupingSets + 1}, true},
		{"blocks summing to the bound", []int64{MaxGroupingSets / 2, MaxGroupingSets / 2}, false},
		{"blocks summing past the bound", []int64{MaxGroupingSets / 2, MaxGroupingSets/2 + 1}, true},
		{"a huge block after a small one", []int64{1, 1 << 40}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var c Cost
			var last error
			for _, n := range tc.blocks {
				last = c.GroupingSets(n)
			}
			if got := refusedWith(last, CodeTooManyGroupingSets); got != tc.refuse || (!tc.refuse && last != nil) {
				t.Fatalf("blocks %v: err = %v, want refusal %v", tc.blocks, last, tc.refuse)
			}
		})
	}
}

func TestGroupingSetsArithmeticSaturates(t *testing.T) {
	const sat = MaxGroupingSets + 1
	tests := []struct {
		name      string
		got, want int64
	}{
		{"product small", SetsProduct(3, 5), 15},
		{"product saturates", SetsProduct(100, 100), sat},
		{"product at the bound", SetsProduct(16, 16), MaxGroupingSets},
		{"sum small", SetsSum(3, 5), 8},
		{"sum at the bound", SetsSum(200, 56), MaxGroupingSets},
		{"sum saturates", SetsSum(200, 57), sat},
		{"cube of 0", SetsCube(0), 1},
		{"cube of 3", SetsCube(3), 8},
		{"cube of 8 is the bound", SetsCube(8), MaxGroupingSets},
		{"cube of 9 saturates", SetsCube(9), sat},
		{"cube of 10 saturates", SetsCube(10), sat},
		{"cube of 11 saturates without shifting", SetsCube(11), sat},
		{"cube of 1000 saturates without overflow", SetsCube(1000), sat},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s: got %d, want %d", tc.name, tc.got, tc.want)
		}
	}
}

func TestCheckTextBounds(t *testing.T) {
	tests := []struct {
		name string
		sql  string
		code Code // "" means accepted
	}{
		{"at the size limit", "SELECT 1" + strings.Repeat(" ", MaxSQLBytes-8), ""},
		{"one byte past the size limit", "SELECT 1" + strings.Repeat(" ", MaxSQLBytes-7), CodeInputTooLarge},
		{"NUL byte", "SELECT 1\x00", CodeInvalidEncoding},
		{"NUL byte first", "\x00SELECT 1", CodeInvalidEncoding},
		{"invalid UTF-8", "SELECT '\xff'", CodeInvalidEncoding},
		{"empty", "", CodeEmptyStatement},
		{"only white space", " \n\t ", CodeEmptyStatement},
		{"ordinary", "SELECT 1", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckText(tc.sql)
			if tc.code == "" {
				if err != nil {
					t.Fatalf("CheckText = %v, want nil", err)
				}
				return
			}
			if !refusedWith(err, tc.code) {
				t.Fatalf("CheckText = %v, want %s", err, tc.code)
			}
		})
	}
}

func TestNormalizeMode(t *testing.T) {
	tests := []struct {
		in, want Mode
		ok       bool
	}{
		{"", ModeRead, true},
		{ModeRead, ModeRead, true},
		{ModeTableWrite, ModeTableWrite, true},
		{ModeFull, ModeFull, true},
		{"write", "", false},
	}
	for _, tc := range tests {
		got, err := NormalizeMode(tc.in)
		if got != tc.want || (err == nil) != tc.ok {
			t.Errorf("NormalizeMode(%q) = %q, %v; want %q, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
		if !tc.ok && !refusedWith(err, CodeStatementNotAllowed) {
			t.Errorf("NormalizeMode(%q) err = %v, want statement_not_allowed", tc.in, err)
		}
	}
}

func TestTableSetBound(t *testing.T) {
	var s TableSet
	for i := 1; i <= MaxTables+1; i++ {
		ok := s.Add(Table{Schema: "s", Name: fmt.Sprintf("t%d", i)})
		if want := i <= MaxTables; ok != want {
			t.Fatalf("table %d: Add = %v, want %v", i, ok, want)
		}
	}
	// The same table again is not a new one.
	var r TableSet
	for range MaxTables + 5 {
		if !r.Add(Table{Schema: "s", Name: "t"}) {
			t.Fatal("one table added many times passed the bound")
		}
	}
}

func TestTableOrderAndString(t *testing.T) {
	tests := []struct {
		a, b Table
		less bool
	}{
		{Table{"a", "z"}, Table{"b", "a"}, true},
		{Table{"b", "a"}, Table{"a", "z"}, false},
		{Table{"a", "a"}, Table{"a", "b"}, true},
		{Table{"a", "b"}, Table{"a", "a"}, false},
		{Table{"a", "a"}, Table{"a", "a"}, false},
	}
	for _, tc := range tests {
		if got := tc.a.Less(tc.b); got != tc.less {
			t.Errorf("%v.Less(%v) = %v, want %v", tc.a, tc.b, got, tc.less)
		}
	}
	if got := (Table{"public", "orders"}).String(); got != "public.orders" {
		t.Errorf("String = %q", got)
	}
}

func TestBuilderFill(t *testing.T) {
	var b Builder
	o, c := Table{"public", "orders"}, Table{"public", "customers"}
	b.AddColumn(o, "id")
	b.AddColumn(o, "id")
	b.AddColumn(o, "amount")
	b.AddTable(c)
	b.AddFunction("LOWER")
	b.AddFunction("lower")
	b.AddFunction("abs")
	b.AddColumnType([]Table{o, c, o}, "ts", []string{"timestamp", "timestamptz"})
	b.AddColumnType([]Table{c}, "born", []string{"date"})
	var v Verdict
	b.Fill(&v)
	if got := fmt.Sprint(v.TableNames()); got != "[public.customers public.orders]" {
		t.Errorf("Tables = %s", got)
	}
	if got := fmt.Sprint(v.Columns); got != "map[public.customers:[born] public.orders:[amount id]]" {
		t.Errorf("Columns = %s", got)
	}
	if got := fmt.Sprint(v.Functions); got != "[abs lower]" {
		t.Errorf("Functions = %s", got)
	}
	if len(v.ColumnTypes) != 2 {
		t.Fatalf("ColumnTypes = %v, want 2", v.ColumnTypes)
	}
	// Sorted by key: the one-table obligation (customers) sorts first.
	if ct := v.ColumnTypes[0]; ct.Column != "born" || len(ct.Tables) != 1 {
		t.Errorf("ColumnTypes[0] = %+v", ct)
	}
	if ct := v.ColumnTypes[1]; ct.Column != "ts" || fmt.Sprint(ct.Tables) != "[public.customers public.orders]" ||
		fmt.Sprint(ct.Types) != "[timestamp timestamptz]" {
		t.Errorf("ColumnTypes[1] = %+v", ct)
	}
	var empty Verdict
	(&Builder{}).Fill(&empty)
	if empty.ColumnTypes != nil || len(empty.Tables) != 0 || len(empty.Functions) != 0 {
		t.Errorf("empty Fill = %+v", empty)
	}
}

func TestRefusalDetails(t *testing.T) {
	zero := RefuseAt(CodeParseError, 0)
	if zero.Offset == nil || *zero.Offset != 0 {
		t.Errorf("RefuseAt(0).Offset = %v, want 0", zero.Offset)
	}
	if r := RefuseAt(CodeParseError, 7); r.Offset == nil || *r.Offset != 7 {
		t.Errorf("RefuseAt(7).Offset = %v, want 7", r.Offset)
	}
	if r := RefuseAt(CodeParseError, -1); r.Offset != nil {
		t.Errorf("RefuseAt(-1).Offset = %d, want nil", *r.Offset)
	}
	if got := Refuse(CodeParseError).Error(); got != "verifier: parse_error: "+messages[CodeParseError] {
		t.Errorf("Error() = %q", got)
	}
	if r := RefuseCast("INT4"); r.Construct != "int4" {
		t.Errorf("RefuseCast(INT4).Construct = %q", r.Construct)
	}
	if r := RefuseCast("made_up_type"); r.Construct != "cast" {
		t.Errorf("RefuseCast(made_up_type).Construct = %q, want cast", r.Construct)
	}
	if r := RefuseOperator("@>"); r.Construct != "@>" {
		t.Errorf("RefuseOperator(@>).Construct = %q", r.Construct)
	}
	if r := RefuseOperator("<<<secret"); r.Construct != "operator" {
		t.Errorf("RefuseOperator(unknown).Construct = %q, want operator", r.Construct)
	}
}

func TestAnnotate(t *testing.T) {
	off := func(err error) int {
		r, ok := AsRefusal(err)
		if !ok || r.Offset == nil {
			t.Fatalf("Annotate gave %v without an offset", err)
		}
		return *r.Offset
	}
	tests := []struct {
		name       string
		in         *Refusal
		off, n     int
		wantOff    int
		construct  string
		hint       string
		dialect    Dialect
		keepOffset bool
	}{
		{name: "offset inside the text", in: Refuse(CodeParseError), off: 3, n: 10, wantOff: 3, construct: "syntax", dialect: Postgres},
		{name: "offset at the end", in: Refuse(CodeParseError), off: 10, n: 10, wantOff: 10, construct: "syntax", dialect: Postgres},
		{name: "offset past the end is clamped", in: Refuse(CodeParseError), off: 11, n: 10, wantOff: 10, construct: "syntax", dialect: Postgres},
		{name: "negative offset is clamped to 0", in: Refuse(CodeParseError), off: -1, n: 10, wantOff: 0, construct: "syntax", dialect: Postgres},
		{name: "offset 0 stays 0", in: Refuse(CodeParseError), off: 0, n: 10, wantOff: 0, construct: "syntax", dialect: Postgres},
		{name: "the refusal's own offset is kept", in: RefuseAt(CodeParseError, 2), off: 9, n: 10, wantOff: 2, construct: "syntax", dialect: Postgres},
		{name: "a function's hint", in: RefuseFunction("ifnull"), off: 1, n: 5, wantOff: 1, construct: "ifnull", hint: "use coalesce(x, y)", dialect: Postgres},
		{name: "a cast's hint falls back to the code's", in: RefuseCast("float8"), off: 1, n: 5, wantOff: 1, construct: "float8", hint: hints[SQLite]["cast"], dialect: SQLite},
		{name: "no hint for the dialect", in: Refuse(CodeLockingClause), off: 1, n: 5, wantOff: 1, construct: "locking clause", dialect: MySQL},
		{name: "an empty construct takes the code's", in: &Refusal{Code: CodeUnqualifiedTable, Message: "m"}, off: 1, n: 5, wantOff: 1, construct: "table name", hint: hints[MySQL]["table name"], dialect: MySQL},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.in.Offset
			got := Annotate(tc.in, tc.dialect, tc.off, tc.n)
			if o := off(got); o != tc.wantOff {
				t.Errorf("offset = %d, want %d", o, tc.wantOff)
			}
			r, _ := AsRefusal(got)
			if r.Construct != tc.construct || r.Hint != tc.hint {
				t.Errorf("construct, hint = %q, %q; want %q, %q", r.Construct, r.Hint, tc.construct, tc.hint)
			}
			if r == tc.in || tc.in.Offset != before {
				t.Error("Annotate changed its argument instead of returning a copy")
			}
		})
	}
	plain := errors.New("not a refusal")
	if got := Annotate(plain, Postgres, 1, 2); got != plain {
		t.Errorf("Annotate(non-refusal) = %v, want it unchanged", got)
	}
}

func TestIsConstruct(t *testing.T) {
	tests := []struct {
		s    string
		want bool
	}{
		{"lower", true},   // a known function
		{"int8", true},    // a cast target
		{"@>", true},      // an operator
		{"nesting", true}, // a code's construct
		{"TABLESAMPLE", true},
		{"secret_table", false},
		{"", false},
	}
	for _, tc := range tests {
		if got := IsConstruct(tc.s); got != tc.want {
			t.Errorf("IsConstruct(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
}

// TestGrowthCapAboveTheBound pins the premise of GrowthCap: an estimate
// that stops counting at the cap still passes MaxExpressionGrowth, so
// capping changes no verdict.
func TestGrowthCapAboveTheBound(t *testing.T) {
	if GrowthCap <= MaxExpressionGrowth {
		t.Fatalf("GrowthCap = %d, want more than MaxExpressionGrowth (%d)", GrowthCap, MaxExpressionGrowth)
	}
}

func TestCodesSortedAndComplete(t *testing.T) {
	codes := Codes()
	if len(codes) != len(messages) {
		t.Fatalf("Codes() has %d codes, messages %d", len(codes), len(messages))
	}
	for i := 1; i < len(codes); i++ {
		if codes[i-1] >= codes[i] {
			t.Fatalf("Codes() not sorted: %q before %q", codes[i-1], codes[i])
		}
	}
}
