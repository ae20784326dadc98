package mysql

import (
	"context"
	"testing"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
)

// TestRefusals proves each ineligible kind of table is refused with its
// own static reason, by Describe and by Read alike.
func TestRefusals(t *testing.T) {
	needServer(t)
	cases := []struct {
		name   string
		table  verifier.Table
		code   engines.Code
		reason engines.Reason
	}{
		{"myisam", tbl("my_myisam"), engines.CodeIneligible, ReasonEngine},
		{"memory", tbl("my_memory"), engines.CodeIneligible, ReasonEngine},
		{"partitioned", tbl("parted"), engines.CodeIneligible, ReasonPartitioned},
		{"virtual generated column", tbl("gen_virtual"), engines.CodeIneligible, ReasonGeneratedColumn},
		{"stored generated column", tbl("gen_stored"), engines.CodeIneligible, ReasonGeneratedColumn},
		{"view", tbl("v_items"), engines.CodeIneligible, ReasonView},
		{"65 columns", tbl("wide65"), engines.CodeIneligible, engines.ReasonTooManyColumns},
		{"missing table", tbl("no_such_table"), engines.CodeIneligible, engines.ReasonNotFound},
		{"other database", verifier.Table{Schema: otherDB, Name: "secret"}, engines.CodeIneligible, ReasonOtherDatabase},
		{"system database", verifier.Table{Schema: "mysql", Name: "user"}, engines.CodeIneligible, ReasonSystemDatabase},
		{"case-different table name", tbl("ITEMS"), engines.CodeIneligible, engines.ReasonNotFound},
	}
	if serverFlavor.mariadb {
		cases = append(cases, struct {
			name   string
			table  verifier.Table
			code   engines.Code
			reason engines.Reason
		}{"aria", tbl("my_aria"), engines.CodeIneligible, ReasonEngine})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := openEngine(t)
			_, err := e.Describe(context.Background(), c.table)
			wantErr(t, err, c.code, c.reason)

			e2 := openEngine(t)
			v := readVerdict("SELECT 1 FROM "+qualified(c.table.Schema, c.table.Name), nil, nil, c.table)
			_, _, err = e2.Read(context.Background(), engines.ReadRequest{Verdict: v})
			wantErr(t, err, c.code, c.reason)
		})
	}
}

// TestPrivilegeRefusals checks that a missing LOCK TABLES or PROCESS
// privilege is a refusal naming it, not a weaker proof.
func TestPrivilegeRefusals(t *testing.T) {
	needServer(t)
	cases := []struct {
		user, pass string
		reason     engines.Reason
	}{
		{"dbeast_nolock", "dbeast_nolock_pw", ReasonNoLockPrivilege},
		{"dbeast_noproc", "dbeast_noproc_pw", ReasonNoProcess},
	}
	for _, c := range cases {
		t.Run(c.user, func(t *testing.T) {
			e := openSource(t, sourceFor(t, c.user, c.pass, nil))
			_, err := e.Describe(context.Background(), tbl("items"))
			wantErr(t, err, engines.CodeDenied, c.reason)

			e2 := openSource(t, sourceFor(t, c.user, c.pass, nil))
			v := readVerdict("SELECT `id` FROM `dbeast_myengine`.`items`",
				map[string][]string{"dbeast_myengine.items": {"id"}}, nil, tbl("items"))
			_, _, err = e2.Read(context.Background(), engines.ReadRequest{Verdict: v})
			wantErr(t, err, engines.CodeDenied, c.reason)
		})
	}
}

// TestDescribe checks the proven columns, including MariaDB's JSON
// (LONGTEXT + json_valid CHECK) reported as json, a table of exactly 64
// columns, and a name that needs the InnoDB filename encoding.
func TestDescribe(t *testing.T) {
	needServer(t)
	e := openEngine(t)
	p, err := e.Describe(context.Background(), tbl("items"))
	if err != nil {
		t.Fatal(err)
	}
	want := []engines.Column{
		{Name: "id", Type: "int(11)", Nullable: false},
		{Name: "name", Type: "varchar(50)", Nullable: false},
		{Name: "price", Type: "decimal(10,2)", Nullable: true},
		{Name: "doc", Type: "json", Nullable: true},
	}
	if !serverFlavor.mariadb {
		want[0].Type = "int"
	}
	if len(p.Columns) != len(want) {
		t.Fatalf("columns = %+v", p.Columns)
	}
	for i := range want {
		if p.Columns[i] != want[i] {
			t.Errorf("column %d = %+v, want %+v", i, p.Columns[i], want[i])
		}
	}
	if p.Kind != "table" || p.Table != tbl("items") || len(p.Identity) != 64 {
		t.Errorf("proof = %+v", p)
	}
	for _, name := range []string{"wide64", "we-ird.name"} {
		e := openEngine(t)
		if _, err := e.Describe(context.Background(), tbl(name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestIdentityChange checks that a table grant pinned to an identity is
// refused after ALTER TABLE (even an instant ADD COLUMN that keeps the
// InnoDB table id) and after DROP + CREATE of the same definition.
func TestIdentityChange(t *testing.T) {
	needServer(t)
	cases := []struct {
		table  string
		change []string
	}{
		{"altered", []string{"ALTER TABLE dbeast_myengine.altered ADD COLUMN b INT"}},
		{"recreated", []string{
			"DROP TABLE dbeast_myengine.recreated",
			"CREATE TABLE dbeast_myengine.recreated (id INT, a INT) ENGINE=InnoDB",
		}},
	}
	for _, c := range cases {
		t.Run(c.table, func(t *testing.T) {
			p, err := openEngine(t).Describe(context.Background(), tbl(c.table))
			if err != nil {
				t.Fatal(err)
			}
			key := tbl(c.table).String()
			v := readVerdict("SELECT `id` FROM `dbeast_myengine`.`"+c.table+"`",
				map[string][]string{key: {"id"}}, nil, tbl(c.table))
			req := engines.ReadRequest{Verdict: v, Pins: map[string]string{key: p.Identity}}
			if _, proofs, err := openEngine(t).Read(context.Background(), req); err != nil || proofs[0].Identity != p.Identity {
				t.Fatalf("read before change: %v", err)
			}
			for _, s := range c.change {
				adminExec(t, s)
			}
			_, _, err = openEngine(t).Read(context.Background(), req)
			wantErr(t, err, engines.CodeIdentityChanged, engines.ReasonIdentityChanged)
			p2, err := openEngine(t).Describe(context.Background(), tbl(c.table))
			if err != nil || p2.Identity == p.Identity {
				t.Fatalf("identity after change: %v, same=%v", err, p2 != nil && p2.Identity == p.Identity)
			}
		})
	}
}

// TestReadHoldsMetadataLocks checks that between the re-proof and the end
// of the read, the proven table cannot be altered: ALTER TABLE from another
// connection times out waiting for the read's metadata lock.
func TestReadHoldsMetadataLocks(t *testing.T) {
	needServer(t)
	var alterErr error
	testHookBeforeQuery = func() {
		conn, err := admin.Conn(context.Background())
		if err != nil {
			alterErr = err
			return
		}
		defer conn.Close()
		if _, err := conn.ExecContext(context.Background(), "SET SESSION lock_wait_timeout = 1"); err != nil {
			alterErr = err
			return
		}
		_, alterErr = conn.ExecContext(context.Background(), "ALTER TABLE dbeast_myengine.items ADD COLUMN held INT")
	}
	defer func() { testHookBeforeQuery = nil }()
	v := readVerdict("SELECT `id` FROM `dbeast_myengine`.`items` AS `x`", map[string][]string{"dbeast_myengine.items": {"id"}}, nil, tbl("items"))
	if _, _, err := openEngine(t).Read(context.Background(), engines.ReadRequest{Verdict: v}); err != nil {
		t.Fatal(err)
	}
	if mysqlNumber(alterErr) != errLockWaitTimeout {
		t.Fatalf("ALTER during the read: %v, want lock wait timeout", alterErr)
	}
}
