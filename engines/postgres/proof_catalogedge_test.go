package postgres

import (
	"context"
	"testing"

	"github.com/dbeast/dbeast/engines"
)

// TestProofCatalogOIDEdges runs the proof over catalog answers at the
// built-in edge (16383 built in, 16384 not) for each OID it judges: a
// column's collation, what a table's indexes and CHECK constraints depend
// on, what a view's rule depends on, and the functions and operators its
// tree names. No catalog object of OID exactly 16384 can be made on demand,
// so the answers are handed to the proof the way a cached proof's re-proof
// receives them (Engine.prefetch, cache.go): the proof code runs unchanged
// and no query reaches a server.
func TestProofCatalogOIDEdges(t *testing.T) {
	const rel = "20000"
	b := func(s string) []byte { return []byte(s) }
	header := func(kind, am string) [][]byte {
		return [][]byte{b(rel), b(kind), b("p"), b("f"), b("f"), b("f"), b("f"), b(rel), b(am),
			b("dbeast_pgengine"), b("edge"), b("t"), b("t")}
	}
	column := func(coll string) [][]byte {
		return [][]byte{b("c"), b("23"), b("-1"), b("integer"), b("f"), b("f"), b("b"), b("0"), b(""), b(coll)}
	}
	dep := func(class, ref string) [][]byte { return [][]byte{b(class), b("30000"), b("1255"), b(ref), b("0")} }
	type call struct {
		funcs, ops string     // callQuery's arguments
		rows       [][][]byte // its answer
	}
	cases := []struct {
		name   string
		kind   string // relkind: r or v
		cols   [][][]byte
		deps   [][][]byte // a table's depQuery or a view's ruleDepQuery answer
		tree   string     // a view's rule tree
		calls  []call
		reason engines.Reason // "" when proven
	}{
		{name: "column collation 16383", kind: "r", cols: [][][]byte{column("16383")}},
		{name: "column collation 16384", kind: "r", cols: [][][]byte{column("16384")}, reason: ReasonColumnCollation},
		{name: "index dependency 16383", kind: "r", deps: [][][]byte{dep("1259", "16383")}},
		{name: "index dependency 16384", kind: "r", deps: [][][]byte{dep("1259", "16384")}, reason: ReasonIndexDependency},
		{name: "check dependency 16384", kind: "r", deps: [][][]byte{dep("2606", "16384")}, reason: ReasonCheckDependency},
		{name: "rule depends on type 16383", kind: "v", deps: [][][]byte{{b("1247"), b("16383"), b("0"), b("")}}, tree: "({QUERY})"},
		{name: "rule depends on type 16384", kind: "v", deps: [][][]byte{{b("1247"), b("16384"), b("0"), b("")}}, tree: "({QUERY})", reason: ReasonViewDefinition},
		{name: "tree calls function 16383", kind: "v", tree: "({FUNCEXPR :funcid 16383 :funcresulttype 23})",
			calls: []call{{"{16383}", "{}", [][][]byte{{b("16383"), b("i")}}}}},
		{name: "tree calls function 16384", kind: "v", tree: "({FUNCEXPR :funcid 16384 :funcresulttype 23})",
			calls: []call{{"{16384}", "{}", [][][]byte{{b("16384"), b("i")}}}}, reason: ReasonViewDefinition},
		{name: "tree uses operator 16383", kind: "v", tree: "({OPEXPR :opno 16383 :opfuncid 0})",
			calls: []call{{"{}", "{16383}", [][][]byte{{b("16383"), b("i")}}}}},
		{name: "tree uses operator 16384", kind: "v", tree: "({OPEXPR :opno 16384 :opfuncid 0})",
			calls: []call{{"{}", "{16384}", [][][]byte{{b("16384"), b("i")}}}}, reason: ReasonViewDefinition},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := &Engine{}
			am := "2"
			if c.kind == "v" {
				am = "0"
				e.prefetch(colQuery, []string{rel}, c.cols)
				e.prefetch(ruleQuery, []string{rel}, [][][]byte{{b("40000"), b(c.tree)}})
				e.prefetch(ruleDepQuery, []string{rel}, c.deps)
			} else {
				e.prefetch(colQuery, []string{rel}, c.cols)
				e.prefetch(depQuery, []string{rel}, c.deps)
			}
			for _, q := range c.calls {
				e.prefetch(callQuery, []string{q.funcs, q.ops}, q.rows)
			}
			r, err := newProver(e).prove(context.Background(), header(c.kind, am), 1, true)
			if c.reason != "" {
				wantErr(t, err, engines.CodeIneligible, c.reason)
				return
			}
			if err != nil {
				t.Fatalf("prove: %v", err)
			}
			if len(r.identity) != 64 {
				t.Fatalf("identity = %q", r.identity)
			}
		})
	}
}
