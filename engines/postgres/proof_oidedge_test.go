package postgres

import (
	"context"
	"strconv"
	"testing"

	"github.com/dbeast/dbeast/engines"
)

// The proof's "built in" is "OID below FirstNormalObjectId (16384)". No
// object of OID exactly 16384 can be made on demand on a shared server, so
// these tests give the decisions catalog rows at the edge: 16383 is built
// in, 16384 is not.

func TestProofColumnTypeEdges(t *testing.T) {
	col := func(typ uint32, typtype string, elem uint32, elemtype string) [][]byte {
		return [][]byte{[]byte("c"), []byte(strconv.FormatUint(uint64(typ), 10)), []byte("-1"), []byte("x"),
			[]byte("f"), []byte("f"), []byte(typtype), []byte(strconv.FormatUint(uint64(elem), 10)), []byte(elemtype), []byte("0")}
	}
	cases := []struct {
		name string
		row  [][]byte
		want bool
	}{
		{"base type 16383", col(16383, "b", 0, ""), true},
		{"base type 16384", col(16384, "b", 0, ""), false},
		{"domain type", col(23, "d", 0, ""), false},
		{"array of 16383", col(1007, "b", 16383, "b"), true},
		{"array of 16384", col(1007, "b", 16384, "b"), false},
		{"array of a composite", col(1007, "b", 23, "c"), false},
		{"unparsable type", [][]byte{nil, []byte("x"), nil, nil, nil, nil, []byte("b"), []byte("0"), nil, nil}, false},
		{"unparsable element", [][]byte{nil, []byte("1007"), nil, nil, nil, nil, []byte("b"), []byte("x"), []byte("b"), nil}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := builtinColumnType(c.row); got != c.want {
				t.Fatalf("builtinColumnType = %v, want %v", got, c.want)
			}
		})
	}
}

// TestProofSystemOIDEdge proves a relation header at the edge: OID 16383
// is a system relation whatever its schema; 16384 is a user relation (no
// relation of that OID exists in the test database, so its catalog rows
// are empty and it proves with no columns).
func TestProofSystemOIDEdge(t *testing.T) {
	e := openEngine(t, engines.Source{})
	header := func(oid string) [][]byte {
		return [][]byte{[]byte(oid), []byte("r"), []byte("p"), []byte("f"), []byte("f"), []byte("f"), []byte("f"),
			[]byte(oid), []byte("2"), []byte("dbeast_pgengine"), []byte("edge"), []byte("t"), []byte("t")}
	}
	var exists bool
	if err := adminConn(t).QueryRow(context.Background(),
		"SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_class WHERE oid = 16384)").Scan(&exists); err != nil {
		t.Fatal(err)
	}
	if exists {
		t.Skip("a relation of OID 16384 exists in the test database")
	}
	cases := []struct {
		oid    string
		reason engines.Reason // "" when proven
	}{
		{"16383", ReasonSystemRelation},
		{"16384", ""},
	}
	for _, c := range cases {
		t.Run(c.oid, func(t *testing.T) {
			ctx, cancel := opContext(context.Background())
			defer cancel()
			if err := e.start(ctx); err != nil {
				t.Fatal(err)
			}
			if err := e.simple(ctx, beginProof+"; "+sessionSettings(ctx)); err != nil {
				t.Fatal(err)
			}
			defer func() {
				e.rollback()
				e.reset(ctx)
			}()
			r, err := newProver(e).prove(ctx, header(c.oid), 1, true)
			if c.reason != "" {
				wantErr(t, err, engines.CodeIneligible, c.reason)
				return
			}
			if err != nil {
				t.Fatalf("prove: %v", err)
			}
			if len(r.columns) != 0 || len(r.identity) != 64 {
				t.Fatalf("proof = %+v", r)
			}
		})
	}
}
