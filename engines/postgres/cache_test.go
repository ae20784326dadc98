package postgres

import (
	"context"
	"testing"

	"github.com/dbeast/dbeast/engines"
)

// TestCachedProofRevalidated changes each input of a cached proof between
// two reads and requires the second read to be refused, or re-proven with
// a new identity and the changed data, never answered from the old proof.
func TestCachedProofRevalidated(t *testing.T) {
	admin := adminConn(t)
	ctx := context.Background()
	exec := func(t *testing.T, sql string) {
		t.Helper()
		if _, err := admin.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	const setup = `DROP VIEW IF EXISTS dbeast_pgengine.cv;
DROP TABLE IF EXISTS dbeast_pgengine.ct, dbeast_pgengine.ct2;
CREATE TABLE dbeast_pgengine.ct (id int PRIMARY KEY, name text);
INSERT INTO dbeast_pgengine.ct VALUES (1, 'one');
CREATE TABLE dbeast_pgengine.ct2 (id int PRIMARY KEY, name text);
INSERT INTO dbeast_pgengine.ct2 VALUES (1, 'other')`
	const view = `CREATE VIEW dbeast_pgengine.cv AS SELECT id, name FROM dbeast_pgengine.ct`
	t.Cleanup(func() {
		admin.Exec(context.Background(), `DROP VIEW IF EXISTS dbeast_pgengine.cv; DROP TABLE IF EXISTS dbeast_pgengine.ct, dbeast_pgengine.ct2`)
	})
	tableRead := engines.ReadRequest{Verdict: readVerdict(`SELECT c.id, c.name FROM dbeast_pgengine.ct AS c`,
		map[string][]string{"ct": {"id", "name"}}, nil, "ct")}
	viewRead := engines.ReadRequest{Verdict: readVerdict(`SELECT c.id, c.name FROM dbeast_pgengine.cv AS c`,
		map[string][]string{"cv": {"id", "name"}}, nil, "cv")}

	cases := []struct {
		name   string
		read   engines.ReadRequest
		change string
		reason engines.Reason // "" means re-proven: success with a new identity
		value  string         // the re-proven read's name column
	}{
		{"generated column", tableRead, "ALTER TABLE dbeast_pgengine.ct ADD COLUMN g int GENERATED ALWAYS AS (id * 2) STORED", ReasonGeneratedColumn, ""},
		{"column type to a domain", tableRead, "ALTER TABLE dbeast_pgengine.ct ALTER COLUMN name TYPE dbeast_pgengine.posint USING 1", ReasonColumnType, ""},
		{"column type to another built-in", tableRead, "ALTER TABLE dbeast_pgengine.ct ALTER COLUMN name TYPE varchar(10)", "", "one"},
		{"index on a user function", tableRead, "CREATE INDEX ON dbeast_pgengine.ct (dbeast_pgengine.f_imm(id))", ReasonIndexDependency, ""},
		{"CHECK on a user function", tableRead, "ALTER TABLE dbeast_pgengine.ct ADD CHECK (dbeast_pgengine.f_imm(id) > 0)", ReasonCheckDependency, ""},
		{"RLS on", tableRead, "ALTER TABLE dbeast_pgengine.ct ENABLE ROW LEVEL SECURITY", ReasonRLS, ""},
		{"inheritance", tableRead, "CREATE TABLE dbeast_pgengine.ct_child () INHERITS (dbeast_pgengine.ct)", ReasonInheritance, ""},
		{"table replaced under its name", tableRead, "ALTER TABLE dbeast_pgengine.ct RENAME TO ct_old; ALTER TABLE dbeast_pgengine.ct2 RENAME TO ct", "", "other"},
		{"view reads another table", viewRead, "CREATE OR REPLACE VIEW dbeast_pgengine.cv AS SELECT id, name FROM dbeast_pgengine.ct2", "", "other"},
		{"view calls a volatile function", viewRead, "CREATE OR REPLACE VIEW dbeast_pgengine.cv AS SELECT id, dbeast_pgengine.lower(name) AS name FROM dbeast_pgengine.ct", ReasonViewDefinition, ""},
		{"view's table gets RLS", viewRead, "ALTER TABLE dbeast_pgengine.ct ENABLE ROW LEVEL SECURITY", ReasonRLS, ""},
		// The statement no longer prepares: the fresh proof says why
		// (issue 29: this was "the statement failed on the server").
		{"column dropped", tableRead, "ALTER TABLE dbeast_pgengine.ct DROP COLUMN name", engines.ReasonColumnMissing, ""},
		{"column renamed", tableRead, "ALTER TABLE dbeast_pgengine.ct RENAME COLUMN name TO label", engines.ReasonColumnMissing, ""},
		{"view loses a column", viewRead, "DROP VIEW dbeast_pgengine.cv; CREATE VIEW dbeast_pgengine.cv AS SELECT id FROM dbeast_pgengine.ct", engines.ReasonColumnMissing, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			exec(t, `DROP TABLE IF EXISTS dbeast_pgengine.ct_child, dbeast_pgengine.ct_old CASCADE`)
			exec(t, setup)
			if c.read.Verdict == viewRead.Verdict {
				exec(t, view)
			}
			var ids []string
			for i := 0; i < 2; i++ { // the second read is answered from the cache
				e := openEngine(t, engines.Source{})
				_, proofs, err := e.Read(ctx, c.read)
				if err != nil {
					t.Fatalf("read %d: %v", i+1, err)
				}
				ids = append(ids, proofs[0].Identity)
				e.Close()
			}
			if ids[0] != ids[1] {
				t.Fatal("identity differs between two reads of an unchanged relation")
			}
			e := openEngine(t, engines.Source{})
			names := []string{c.read.Verdict.Tables[0].String()}
			if e.pool.cache.proof(proofKey(names, nil)) == nil {
				t.Fatal("the proof was not cached")
			}
			exec(t, c.change)
			res, proofs, err := e.Read(ctx, c.read)
			if c.reason != "" {
				wantErr(t, err, engines.CodeIneligible, c.reason)
				return
			}
			if err != nil {
				t.Fatalf("read after the change: %v", err)
			}
			if proofs[0].Identity == ids[0] {
				t.Fatal("the read after the change kept the old identity")
			}
			if len(res.Rows) != 1 || res.Rows[0][1] != c.value {
				t.Fatalf("rows = %v, want name %q", res.Rows, c.value)
			}
			// Neither the stale attempt's statement nor the read's own
			// stays prepared on the connection.
			rows, err := e.query(ctx, "SELECT pg_catalog.count(*) FROM pg_catalog.pg_prepared_statements WHERE statement LIKE '%dbeast_pgengine%'")
			if err != nil || len(rows) != 1 || string(rows[0][0]) != "0" {
				t.Fatalf("read statements left prepared: %q, %v", rows, err)
			}
		})
	}
	exec(t, `DROP TABLE IF EXISTS dbeast_pgengine.ct_child, dbeast_pgengine.ct_old CASCADE`)
}

// TestCachedProofKeepsPins checks that a pin is compared with the
// re-proof under the reading snapshot, not with the cached proof.
func TestCachedProofKeepsPins(t *testing.T) {
	admin := adminConn(t)
	ctx := context.Background()
	if _, err := admin.Exec(ctx, `DROP TABLE IF EXISTS dbeast_pgengine.cpin;
CREATE TABLE dbeast_pgengine.cpin (id int, name text); INSERT INTO dbeast_pgengine.cpin VALUES (1, 'a')`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Exec(context.Background(), `DROP TABLE IF EXISTS dbeast_pgengine.cpin`) })
	req := engines.ReadRequest{Verdict: readVerdict(`SELECT c.id FROM dbeast_pgengine.cpin AS c`, map[string][]string{"cpin": {"id"}}, nil, "cpin")}
	e := openEngine(t, engines.Source{})
	_, proofs, err := e.Read(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	e.Close()
	if _, err := admin.Exec(ctx, `ALTER TABLE dbeast_pgengine.cpin ALTER COLUMN name TYPE varchar(5)`); err != nil {
		t.Fatal(err)
	}
	req.Pins = map[string]string{tbl("cpin").String(): proofs[0].Identity}
	e = openEngine(t, engines.Source{})
	_, _, err = e.Read(ctx, req)
	wantErr(t, err, engines.CodeIdentityChanged, engines.ReasonIdentityChanged)
}
