package mysql

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
)

func writeVerdict(op verifier.Op, sqlText string, target verifier.Table, cols []string) *verifier.Verdict {
	return &verifier.Verdict{
		Dialect:       verifier.MySQL,
		Mode:          verifier.ModeTableWrite,
		Op:            op,
		NormalizedSQL: sqlText,
		Tables:        []verifier.Table{target},
		Columns:       map[string][]string{target.String(): cols},
		Functions:     []string{},
		Target:        &target,
	}
}

// TestWrite checks table writes: affected rows, refusals of ineligible
// targets and of verdicts that name another table.
func TestWrite(t *testing.T) {
	needServer(t)
	counter := tbl("counter")
	res, err := openEngine(t).Write(context.Background(),
		writeVerdict(verifier.OpUpdate, "UPDATE `dbeast_myengine`.`counter` SET `n` = `n` + 5 WHERE `id` = 2", counter, []string{"id", "n"}),
		engines.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if res.AffectedRows == nil || *res.AffectedRows != 1 {
		t.Fatalf("affected = %v", res.AffectedRows)
	}
	if n := count(t, "SELECT n FROM dbeast_myengine.counter WHERE id = 2"); n != 5 {
		t.Fatalf("n = %d, want 5", n)
	}

	cases := []struct {
		name   string
		v      *verifier.Verdict
		code   engines.Code
		reason engines.Reason
	}{
		{"myisam target", writeVerdict(verifier.OpInsert, "INSERT INTO `dbeast_myengine`.`my_myisam` (`id`) VALUES (1)", tbl("my_myisam"), []string{"id"}),
			engines.CodeIneligible, ReasonEngine},
		{"other database", writeVerdict(verifier.OpInsert, "INSERT INTO `dbeast_myengine_other`.`secret` (`id`) VALUES (1)",
			verifier.Table{Schema: otherDB, Name: "secret"}, []string{"id"}), engines.CodeIneligible, ReasonOtherDatabase},
		{"extra table", func() *verifier.Verdict {
			v := writeVerdict(verifier.OpDelete, "DELETE FROM `dbeast_myengine`.`counter`", counter, nil)
			v.Tables = append(v.Tables, tbl("items"))
			return v
		}(), engines.CodeIneligible, engines.ReasonNotWritable},
		{"read verdict", readVerdict("SELECT 1", nil, nil), engines.CodeIneligible, ReasonBadVerdict},
		{"missing column", writeVerdict(verifier.OpUpdate, "UPDATE `dbeast_myengine`.`counter` SET `nope` = 1", counter, []string{"nope"}),
			engines.CodeIneligible, engines.ReasonColumnMissing},
		{"server error", writeVerdict(verifier.OpInsert, "INSERT INTO `dbeast_myengine`.`counter` VALUES (1, 0)", counter, nil),
			engines.CodeFailed, engines.ReasonExecution},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := openEngine(t).Write(context.Background(), c.v, engines.Limits{})
			wantErr(t, err, c.code, c.reason)
		})
	}
	if n := count(t, "SELECT COUNT(*) FROM dbeast_myengine.my_myisam"); n != 0 {
		t.Errorf("refused write ran: %d rows", n)
	}
}

// TestReadOnlySource checks that a read-only source refuses table writes
// and full SQL before anything is sent.
func TestReadOnlySource(t *testing.T) {
	needServer(t)
	src := sourceFor(t, "", "", nil)
	src.ReadOnly = true
	before := count(t, "SELECT COUNT(*) FROM dbeast_myengine.victim")
	e := openSource(t, src)
	_, err := e.Write(context.Background(),
		writeVerdict(verifier.OpInsert, "INSERT INTO `dbeast_myengine`.`victim` (`id`) VALUES (1)", tbl("victim"), []string{"id"}), engines.Limits{})
	wantErr(t, err, engines.CodeDenied, engines.ReasonReadOnlySource)
	_, err = e.Exec(context.Background(), "INSERT INTO dbeast_myengine.victim VALUES (2)", engines.Limits{})
	wantErr(t, err, engines.CodeDenied, engines.ReasonReadOnlySource)
	if after := count(t, "SELECT COUNT(*) FROM dbeast_myengine.victim"); after != before {
		t.Fatalf("victim rows %d -> %d", before, after)
	}
	// Reads still work on a read-only source.
	v := readVerdict("SELECT `id` FROM `dbeast_myengine`.`items` WHERE `id` = 1", map[string][]string{"dbeast_myengine.items": {"id"}}, nil, tbl("items"))
	if _, _, err := e.Read(context.Background(), engines.ReadRequest{Verdict: v}); err != nil {
		t.Fatal(err)
	}
}

// TestFullSQL checks full SQL: exactly one statement even when the DSN
// asks for multiStatements, rows and affected rows, safe errors.
func TestFullSQL(t *testing.T) {
	needServer(t)
	for _, params := range []map[string]string{nil, {"multiStatements": "true", "interpolateParams": "true"}} {
		e := openSource(t, sourceFor(t, "", "", params))
		_, err := e.Exec(context.Background(), "SELECT 1; DROP TABLE dbeast_myengine.victim", engines.Limits{})
		wantErr(t, err, engines.CodeFailed, ReasonSyntax)
		if n := count(t, "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'dbeast_myengine' AND TABLE_NAME = 'victim'"); n != 1 {
			t.Fatal("a second statement ran: victim was dropped")
		}
	}

	cases := []struct {
		name     string
		sql      string
		rows     string
		affected int64
	}{
		{"select", "SELECT 1 AS x, 'a' AS y", `[["1","a"]]`, -1},
		{"insert", "INSERT INTO dbeast_myengine.victim VALUES (7), (8)", "", 2},
		{"update none", "UPDATE dbeast_myengine.victim SET id = id WHERE id = 7", "", 0},
		{"qualified other database", "SELECT id FROM dbeast_myengine_other.secret", `[["42"]]`, -1},
		{"ddl", "CREATE TABLE dbeast_myengine.made_by_full (id INT)", "", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := openEngine(t).Exec(context.Background(), c.sql, engines.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if c.affected < 0 {
				got, _ := json.Marshal(res.Rows)
				if string(got) != c.rows || res.AffectedRows != nil {
					t.Errorf("rows = %s affected = %v", got, res.AffectedRows)
				}
				return
			}
			if res.AffectedRows == nil || *res.AffectedRows != c.affected || len(res.Columns) != 0 {
				t.Errorf("affected = %v, want %d", res.AffectedRows, c.affected)
			}
		})
	}
	_, err := openEngine(t).Exec(context.Background(), "SELECT nope FROM dbeast_myengine.victim", engines.Limits{})
	wantErr(t, err, engines.CodeFailed, engines.ReasonColumnMissing)
}
