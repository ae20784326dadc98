package main

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/verifier"
)

func TestVerifyCommand(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		stdin      string
		wantStatus int
		want       []verdictJSON // verdict, tables and code are compared
	}{
		{"postgres accept", []string{"--dialect", "postgres", "--sql", "SELECT id FROM public.orders"}, "", 0,
			[]verdictJSON{{Verdict: "accept", Tables: []string{"public.orders"}}}},
		{"postgres stacking", []string{"--dialect", "postgres", "--sql", "SELECT 1; DROP TABLE public.orders"}, "", 1,
			[]verdictJSON{{Verdict: "reject", Code: "multiple_statements"}}},
		{"mysql database", []string{"--dialect", "mysql", "--database", "shop", "--sql", "SELECT `id` FROM `shop`.`orders`"}, "", 0,
			[]verdictJSON{{Verdict: "accept", Tables: []string{"shop.orders"}}}},
		{"mysql other database", []string{"--dialect", "mysql", "--database", "shop", "--sql", "SELECT id FROM other.orders"}, "", 1,
			[]verdictJSON{{Verdict: "reject", Code: "other_database"}}},
		{"sqlite unqualified", []string{"--dialect", "sqlite", "--sql", "SELECT id FROM orders"}, "", 1,
			[]verdictJSON{{Verdict: "reject", Code: "unqualified_table"}}},
		{"jsonl", []string{"--dialect", "sqlite", "--jsonl"},
			`{"sql":"SELECT id FROM main.orders"}` + "\n" + `{"sql":"DELETE FROM main.orders WHERE id = 1","mode":"table_write"}` + "\n" + `{"sql":"ATTACH 'x' AS y"}` + "\n", 0,
			[]verdictJSON{{Verdict: "accept", Tables: []string{"main.orders"}}, {Verdict: "accept", Tables: []string{"main.orders"}}, {Verdict: "reject", Code: "statement_not_allowed"}}},
		{"unknown dialect", []string{"--dialect", "oracle", "--sql", "SELECT 1"}, "", 2, nil},
		{"jsonl refusal details", []string{"--dialect", "mysql", "--database", "shop", "--jsonl"},
			`{"sql":"SELECT id, SYSDATE() FROM shop.t"}` + "\n" + `{"sql":"SELECT zz_made_up(id) FROM shop.t"}` + "\n", 0,
			[]verdictJSON{{Verdict: "reject", Code: "function_not_allowed", Construct: "sysdate", Offset: intp(11), Function: "sysdate", Hint: "use NOW()"},
				{Verdict: "reject", Code: "function_not_allowed", Construct: "function", Offset: intp(7)}}},
		{"no sql", []string{"--dialect", "postgres"}, "", 2, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			status := verifyMain(tt.args, strings.NewReader(tt.stdin), &out, &errb)
			if status != tt.wantStatus {
				t.Fatalf("status = %d, want %d (stderr %q, stdout %q)", status, tt.wantStatus, errb.String(), out.String())
			}
			dec := json.NewDecoder(&out)
			for i, w := range tt.want {
				var got verdictJSON
				if err := dec.Decode(&got); err != nil {
					t.Fatalf("verdict %d: %v", i, err)
				}
				if got.Verdict != w.Verdict || got.Code != w.Code || strings.Join(got.Tables, ",") != strings.Join(w.Tables, ",") {
					t.Errorf("verdict %d = %+v, want %+v", i, got, w)
				}
				// The refusal's details (issue 31), where the case gives them.
				if w.Construct != "" && (got.Construct != w.Construct || got.Function != w.Function || got.Hint != w.Hint ||
					got.Offset == nil || *got.Offset != *w.Offset) {
					t.Errorf("verdict %d details = %q %v %q %q, want %q %d %q %q", i, got.Construct, got.Offset, got.Function, got.Hint,
						w.Construct, *w.Offset, w.Function, w.Hint)
				}
				if got.Verdict == "reject" && (got.Construct == "" || got.Offset == nil) {
					t.Errorf("verdict %d: reject without construct or offset: %+v", i, got)
				}
				if strings.Contains(out.String(), "zz_made_up") {
					t.Errorf("the agent's function name was echoed")
				}
				if got.Verdict == "reject" && got.Reason == "" {
					t.Errorf("verdict %d: reject without a reason", i)
				}
			}
		})
	}
}

func intp(n int) *int { return &n }

// TestVerifyJSONLColumnTypes pins that `dbeast verify --jsonl` prints an
// accept's column-type obligations (issue 31): an accept that holds only
// if the engine later proves a column's type says so, and one without
// obligations prints none.
func TestVerifyJSONLColumnTypes(t *testing.T) {
	dateTypes := []string{"date", "interval", "time", "timestamp", "timestamptz", "timetz"}
	orders := verifier.Table{Schema: "public", Name: "orders"}
	items := verifier.Table{Schema: "public", Name: "items"}
	tests := []struct {
		name string
		sql  string
		want []verifier.ColumnType
	}{
		{"qualified cast", "SELECT o.created_at::date FROM public.orders o",
			[]verifier.ColumnType{{Tables: []verifier.Table{orders}, Column: "created_at", Types: dateTypes}}},
		{"unqualified cast names every table it may come from", "SELECT created_at::date FROM public.orders, public.items",
			[]verifier.ColumnType{{Tables: []verifier.Table{items, orders}, Column: "created_at", Types: dateTypes}}},
		{"no cast, no obligation", "SELECT created_at FROM public.orders", nil},
		{"cast of a constant, no obligation", "SELECT '2024-01-01'::date", nil},
	}
	var stdin strings.Builder
	for _, tt := range tests {
		line, err := json.Marshal(map[string]string{"sql": tt.sql})
		if err != nil {
			t.Fatal(err)
		}
		stdin.Write(append(line, '\n'))
	}
	var out, errb bytes.Buffer
	if status := verifyMain([]string{"--dialect", "postgres", "--jsonl"}, strings.NewReader(stdin.String()), &out, &errb); status != 0 {
		t.Fatalf("status = %d (stderr %q)", status, errb.String())
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != len(tests) {
		t.Fatalf("%d verdict lines for %d queries: %q", len(lines), len(tests), out.String())
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got verdictJSON
			if err := json.Unmarshal([]byte(lines[i]), &got); err != nil {
				t.Fatal(err)
			}
			if got.Verdict != "accept" {
				t.Fatalf("verdict %+v, want accept", got)
			}
			if !reflect.DeepEqual(got.ColumnTypes, tt.want) {
				t.Errorf("column_types = %+v, want %+v", got.ColumnTypes, tt.want)
			}
			if has := strings.Contains(lines[i], `"column_types"`); has != (tt.want != nil) {
				t.Errorf("line %q: column_types printed = %v, want %v", lines[i], has, tt.want != nil)
			}
		})
	}
}
