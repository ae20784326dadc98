package postgres

import (
	"context"
	"testing"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
)

func TestDescribeEligible(t *testing.T) {
	e := openEngine(t, engines.Source{})
	cases := []struct {
		name, kind string
		cols       []engines.Column
	}{
		{"t", kindTable, []engines.Column{{Name: "id", Type: "integer", Nullable: false}, {Name: "name", Type: "text", Nullable: false}, {Name: "amount", Type: "numeric", Nullable: true}}},
		{"mv", kindMatView, []engines.Column{{Name: "id", Type: "integer", Nullable: true}, {Name: "name", Type: "text", Nullable: true}}},
		{"v", kindView, []engines.Column{{Name: "id", Type: "integer", Nullable: true}, {Name: "lname", Type: "text", Nullable: true}}},
		{"idx_ok", kindTable, nil},
		{"vals", kindTable, nil},
		{"chain8", kindView, []engines.Column{{Name: "id", Type: "integer", Nullable: true}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := e.Describe(context.Background(), tbl(c.name))
			if err != nil {
				t.Fatalf("describe: %v", err)
			}
			if p.Kind != c.kind || p.Table != tbl(c.name) || len(p.Identity) != 64 {
				t.Fatalf("proof = %+v", p)
			}
			if c.cols != nil {
				if len(p.Columns) != len(c.cols) {
					t.Fatalf("columns = %+v, want %+v", p.Columns, c.cols)
				}
				for i := range c.cols {
					if p.Columns[i] != c.cols[i] {
						t.Fatalf("column %d = %+v, want %+v", i, p.Columns[i], c.cols[i])
					}
				}
			}
		})
	}
}

func TestDescribeRefused(t *testing.T) {
	e := openEngine(t, engines.Source{})
	cases := []struct {
		name   string
		reason engines.Reason
	}{
		{"rls", ReasonRLS},
		{"parted", ReasonPartitioning},
		{"part1", ReasonPartitioning},
		{"inh_parent", ReasonInheritance},
		{"inh_child", ReasonInheritance},
		{"gen", ReasonGeneratedColumn},
		{"dom", ReasonColumnType},
		{"enm", ReasonColumnType},
		{"comp", ReasonColumnType},
		{"rng", ReasonColumnType},
		{"unlogged_t", ReasonPersistence},
		{"idx_fn", ReasonIndexDependency},
		{"idx_pred", ReasonIndexDependency},
		{"chk_fn", ReasonCheckDependency},
		{"v_random", ReasonViewDefinition},
		{"v_userfn", ReasonViewDefinition},
		{"v_rls", ReasonRLS},
		{"chain9", ReasonViewTooDeep},
		{"seq", ReasonTableKind},
		{"wide", engines.ReasonTooManyColumns},
		{"no_such_table", engines.ReasonNotFound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := e.Describe(context.Background(), tbl(c.name))
			wantErr(t, err, engines.CodeIneligible, c.reason)
		})
	}
}

func TestSystemRelationRefused(t *testing.T) {
	e := openEngine(t, engines.Source{})
	for _, name := range []string{"pg_class", "pg_authid"} {
		_, err := e.Describe(context.Background(), verifier.Table{Schema: "pg_catalog", Name: name})
		wantErr(t, err, engines.CodeIneligible, ReasonSystemRelation)
	}
}

func TestIdentityStableAndChanging(t *testing.T) {
	e := openEngine(t, engines.Source{})
	ctx := context.Background()
	a, err := e.Describe(ctx, tbl("v"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.Describe(ctx, tbl("v"))
	if err != nil {
		t.Fatal(err)
	}
	if a.Identity != b.Identity {
		t.Fatal("identity differs between two proofs of an unchanged view")
	}
	c, err := e.Describe(ctx, tbl("t"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Identity == a.Identity {
		t.Fatal("a table and a view share an identity")
	}
}

func TestListTables(t *testing.T) {
	e := openEngine(t, engines.Source{})
	list, err := e.ListTables(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	for i, te := range list {
		if i > 0 && !list[i-1].Table.Less(te.Table) {
			t.Fatalf("not sorted at %d: %v then %v", i, list[i-1].Table, te.Table)
		}
		if te.Table.Schema == "dbeast_pgengine" {
			kinds[te.Table.Name] = te.Kind
		}
		if te.Table.Schema == "pg_catalog" || te.Table.Schema == "information_schema" {
			t.Fatalf("system relation listed: %v", te.Table)
		}
	}
	want := map[string]string{"t": kindTable, "v": kindView, "mv": kindMatView, "parted": kindTable, "chain9": kindView}
	for n, k := range want {
		if kinds[n] != k {
			t.Errorf("%s: kind %q, want %q", n, kinds[n], k)
		}
	}
	if _, ok := kinds["seq"]; ok {
		t.Error("a sequence was listed")
	}
}
