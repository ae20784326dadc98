package postgres

import (
	"context"
	"testing"

	"github.com/dbeast/dbeast/engines"
)

// advAcct is a login role the admin tests connect as and change.
const advAcct = "dbeast_adv_acct"

// TestPoolPrivilegeChangesAreLive (held) changes the account's
// privileges between reads that use a pooled connection, a cached proof
// and cached guard verdicts: each change is seen by the next read.
func TestPoolPrivilegeChangesAreLive(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name, change string
		code         engines.Code
		reason       engines.Reason
	}{
		{"SELECT revoked", `REVOKE SELECT ON dbeast_pgengine.t FROM dbeast_adv_acct`, engines.CodeDenied, ""},
		{"lock privilege revoked", `REVOKE UPDATE ON dbeast_pgengine.t FROM dbeast_adv_acct`, engines.CodeDenied, ReasonLockPrivilege},
		{"schema USAGE revoked", `REVOKE USAGE ON SCHEMA dbeast_pgengine FROM dbeast_adv_acct`, "", ""},
		{"RLS enabled", `ALTER TABLE dbeast_pgengine.t ENABLE ROW LEVEL SECURITY`, engines.CodeIneligible, ReasonRLS},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := advRoleSource(t, advAcct, "priv_"+c.name)
			advCleanup(t, `ALTER TABLE dbeast_pgengine.t DISABLE ROW LEVEL SECURITY`)
			for i := 0; i < 2; i++ {
				mustRead(t, src, pointRead())
			}
			if len(idlePIDs(src)) != 1 {
				t.Fatal("no pooled connection")
			}
			advExec(t, c.change)
			e := advOpen(t, src)
			if !e.reused {
				t.Fatal("the engine did not get the pooled connection")
			}
			_, _, err := e.Read(ctx, pointRead())
			if err == nil {
				t.Fatalf("the read after %q succeeded", c.change)
			}
			if c.code != "" {
				wantErr(t, err, c.code, c.reason)
			}
		})
	}
}

// TestPoolCatalogTamperAfterCachedGuard (held) plants a user cast
// between built-in types after reads cached the proof and the guard
// verdicts on a pooled connection whose catalog guard is a prepared
// statement: the catalog guard is never cached and refuses the next read,
// listing and description still work, and the read works again once the
// cast is gone.
func TestPoolCatalogTamperAfterCachedGuard(t *testing.T) {
	ctx := context.Background()
	const drop = `DROP CAST IF EXISTS (integer AS text); DROP SCHEMA IF EXISTS dbeast_adv_cg CASCADE`
	advCleanup(t, drop)
	advExec(t, drop)
	src := advSource(t, "tamper_cached", nil)
	for i := 0; i < 2; i++ {
		mustRead(t, src, pointRead())
	}
	advExec(t, `CREATE SCHEMA dbeast_adv_cg`,
		`CREATE FUNCTION dbeast_adv_cg.i2t(integer) RETURNS text LANGUAGE sql IMMUTABLE AS $$SELECT 'cast'::text$$`,
		`CREATE CAST (integer AS text) WITH FUNCTION dbeast_adv_cg.i2t(integer)`)
	e := advOpen(t, src)
	if !e.reused {
		t.Fatal("the engine did not get the pooled connection")
	}
	_, _, err := e.Read(ctx, pointRead())
	wantErr(t, err, engines.CodeIneligible, ReasonCatalogTampered)
	e.Close()
	advExec(t, drop)
	if rows := mustRead(t, src, pointRead()); len(rows) != 1 || rows[0][0] != "1" {
		t.Fatalf("rows = %v", rows)
	}
}
