package postgres

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
)

// writeVerdict builds a table-write verdict as the verifier would.
func writeVerdict(op verifier.Op, sql, target string, cols []string) *verifier.Verdict {
	tt := tbl(target)
	return &verifier.Verdict{Dialect: verifier.Postgres, Mode: verifier.ModeTableWrite, Op: op, NormalizedSQL: sql,
		Tables: []verifier.Table{tt}, Target: &tt, Columns: map[string][]string{tt.String(): cols}}
}

func TestWrite(t *testing.T) {
	admin := adminConn(t)
	cases := []struct {
		name     string
		src      engines.Source
		v        *verifier.Verdict
		code     engines.Code
		reason   engines.Reason
		affected int64
	}{
		{"update", engines.Source{}, writeVerdict(verifier.OpUpdate,
			`UPDATE dbeast_pgengine.wtab SET name = 'uno' WHERE id = 1`, "wtab", []string{"id", "name"}), "", "", 1},
		{"insert", engines.Source{}, writeVerdict(verifier.OpInsert,
			`INSERT INTO dbeast_pgengine.wtab (id, name) VALUES (3, 'three')`, "wtab", []string{"id", "name"}), "", "", 1},
		{"read-only source", engines.Source{ReadOnly: true}, writeVerdict(verifier.OpDelete,
			`DELETE FROM dbeast_pgengine.wtab`, "wtab", nil), engines.CodeDenied, engines.ReasonReadOnlySource, 0},
		{"view target", engines.Source{}, writeVerdict(verifier.OpDelete,
			`DELETE FROM dbeast_pgengine.v`, "v", nil), engines.CodeIneligible, engines.ReasonNotWritable, 0},
		{"missing column", engines.Source{}, writeVerdict(verifier.OpUpdate,
			`UPDATE dbeast_pgengine.wtab SET nope = 1`, "wtab", []string{"nope"}), engines.CodeIneligible, engines.ReasonColumnMissing, 0},
		{"read verdict", engines.Source{}, readVerdict(`SELECT 1 FROM dbeast_pgengine.wtab`, nil, nil, "wtab"),
			engines.CodeDenied, ReasonNotTableWrite, 0},
		{"failing statement", engines.Source{}, writeVerdict(verifier.OpInsert,
			`INSERT INTO dbeast_pgengine.wtab (id, name) VALUES (1, 'dup')`, "wtab", []string{"id", "name"}),
			engines.CodeFailed, engines.ReasonExecution, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := openEngine(t, c.src)
			res, err := e.Write(context.Background(), c.v, engines.Limits{})
			if c.code != "" {
				wantErr(t, err, c.code, c.reason)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.AffectedRows == nil || *res.AffectedRows != c.affected {
				t.Fatalf("affected = %v, want %d", res.AffectedRows, c.affected)
			}
		})
	}
	if got := scalar(t, admin, "SELECT string_agg(id || '=' || name, ',' ORDER BY id) FROM dbeast_pgengine.wtab"); got != "1=uno,2=two,3=three" {
		t.Fatalf("table after writes = %s", got)
	}
}

func TestExec(t *testing.T) {
	admin := adminConn(t)
	cases := []struct {
		name     string
		src      engines.Source
		sql      string
		code     engines.Code
		reason   engines.Reason
		rows     [][]any
		affected *int64
	}{
		{"select", engines.Source{}, `SELECT 1 AS one, 12345678901234567890.5::numeric AS n, '\x01ff'::bytea AS b`, "", "",
			[][]any{{"1", "12345678901234567890.5", engines.Binary{0x01, 0xff}}}, nil},
		{"update", engines.Source{}, `UPDATE dbeast_pgengine.wtab SET name = name WHERE id = 2`, "", "", [][]any{}, ptr(1)},
		{"two statements", engines.Source{}, `SELECT 1; DROP TABLE dbeast_pgengine.victim`, engines.CodeFailed, engines.ReasonExecution, nil, nil},
		{"read-only source", engines.Source{ReadOnly: true}, `SELECT 1`, engines.CodeDenied, engines.ReasonReadOnlySource, nil, nil},
		{"server error", engines.Source{}, `SELECT * FROM dbeast_pgengine.no_such_table`, engines.CodeFailed, engines.ReasonExecution, nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := openEngine(t, c.src)
			res, err := e.Exec(context.Background(), c.sql, engines.Limits{})
			if c.code != "" {
				wantErr(t, err, c.code, c.reason)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(res.Rows, c.rows) {
				t.Fatalf("rows = %#v, want %#v", res.Rows, c.rows)
			}
			if !reflect.DeepEqual(res.AffectedRows, c.affected) {
				t.Fatalf("affected = %v, want %v", res.AffectedRows, c.affected)
			}
		})
	}
	if n := scalar(t, admin, "SELECT count(*)::text FROM pg_catalog.pg_class WHERE oid = 'dbeast_pgengine.victim'::pg_catalog.regclass"); n != "1" {
		t.Fatal("the second statement ran: victim was dropped")
	}
}

func ptr(n int64) *int64 { return &n }

func TestSentCancelIsOutcomeUnknown(t *testing.T) {
	cases := []struct {
		name string
		run  func(e *Engine, ctx context.Context) error
	}{
		{"exec", func(e *Engine, ctx context.Context) error {
			_, err := e.Exec(ctx, `UPDATE dbeast_pgengine.lockt SET id = id`, engines.Limits{})
			return err
		}},
		{"table write", func(e *Engine, ctx context.Context) error {
			// The target proof needs no lock; the UPDATE waits.
			_, err := e.Write(ctx, writeVerdict(verifier.OpUpdate, `UPDATE dbeast_pgengine.lockt SET id = id`, "lockt", []string{"id"}), engines.Limits{})
			return err
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			waiting := holdLock(t)
			e := openEngine(t, engines.Source{})
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(300*time.Millisecond, cancel)
			err := c.run(e, ctx)
			wantErr(t, err, engines.CodeOutcomeUnknown, engines.ReasonOutcomeUnknown)
			if n := waiting(); n != "0" {
				t.Fatalf("%s lock waits remain on the server", n)
			}
		})
	}
}
