package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dbeast/dbeast/engines"
)

// throwaway returns a role or database name no parallel run shares.
func throwaway(prefix string) string {
	var b [4]byte
	rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// TestConnectErrorsAreClassified: each way a connection setup fails on
// the live server gets its own static reason, and so its own problem
// code: a database that does not exist (3D000), an unknown role (28000),
// a wrong password (28P01; skipped where pg_hba.conf trusts the test
// client, which ignores passwords; .ci/run makes members of
// dbeast_password_login log in with a password), no CONNECT privilege (42501), a
// closed port, and a certificate the client does not accept. Throwaway
// roles and databases are dropped at the end.
func TestConnectErrorsAreClassified(t *testing.T) {
	dsn := testDSN(t)
	ctx := context.Background()
	admin := adminConn(t)
	pwRole, noConnRole, db := throwaway("cli30_pw_"), throwaway("cli30_nc_"), throwaway("cli30_db_")
	// A member of dbeast_password_login logs in with its password where
	// .ci/run gave that group a scram-sha-256 line in pg_hba.conf. The
	// group is made here when missing, so the GRANT works and the case
	// skips.
	admin.Exec(ctx, "DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'dbeast_password_login') THEN CREATE ROLE dbeast_password_login NOLOGIN; END IF; END $$")
	for _, q := range []string{
		"CREATE ROLE " + pwRole + " LOGIN PASSWORD 'right-pw'",
		"GRANT dbeast_password_login TO " + pwRole,
		"CREATE ROLE " + noConnRole + " LOGIN",
		"CREATE DATABASE " + db,
		"REVOKE CONNECT ON DATABASE " + db + " FROM PUBLIC",
	} {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() {
		for _, q := range []string{"DROP DATABASE IF EXISTS " + db, "DROP ROLE IF EXISTS " + pwRole, "DROP ROLE IF EXISTS " + noConnRole} {
			admin.Exec(context.Background(), q)
		}
	})
	cases := []struct {
		name    string
		dsn     string
		code    engines.Code
		reason  engines.Reason
		problem engines.Problem
	}{
		{"missing database", withParams(t, dsn, "", map[string]string{"dbname": throwaway("cli30_nodb_")}), engines.CodeUnavailable, engines.ReasonDatabaseMissing, engines.ProblemNoDatabase},
		{"unknown role", withParams(t, dsn, throwaway("cli30_norole_"), nil), engines.CodeUnavailable, engines.ReasonRoleUnknown, engines.ProblemRoleUnknown},
		{"wrong password", withParams(t, dsn, pwRole, map[string]string{"password": "wrong-pw"}), engines.CodeUnavailable, engines.ReasonAuthFailed, engines.ProblemAuth},
		{"no CONNECT privilege", withParams(t, dsn, noConnRole, map[string]string{"dbname": db}), engines.CodeDenied, ReasonPrivilege, engines.ProblemPrivilege},
		{"closed port", withParams(t, dsn, "", map[string]string{"host": "127.0.0.1", "port": "1"}), engines.CodeUnavailable, engines.ReasonConnect, engines.ProblemUnreachable},
		{"certificate not accepted", withParams(t, dsn, "", map[string]string{"sslmode": "verify-full"}), engines.CodeUnavailable, engines.ReasonTLSFailed, engines.ProblemTLSFailed},
	}
	var ssl string
	admin.QueryRow(ctx, "SHOW ssl").Scan(&ssl)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "certificate not accepted" && ssl != "on" {
				t.Skip("the server has ssl off")
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			e, err := Driver{}.Open(ctx, engines.Source{Kind: engines.Postgres, DSN: c.dsn})
			if err == nil {
				e.Close()
				if c.name == "wrong password" {
					t.Skip("pg_hba.conf trusts this client: the server ignores passwords (.ci/run adds a scram-sha-256 line for members of dbeast_password_login)")
				}
				t.Fatal("Open succeeded")
			}
			wantErr(t, err, c.code, c.reason)
			if p := engines.ProblemOf(c.code, c.reason); p != c.problem {
				t.Fatalf("problem = %s, want %s", p, c.problem)
			}
		})
	}
}

// TestConnectErrorBySQLSTATE pins the classification of server answers
// the live test cannot provoke on a server that trusts its clients.
func TestConnectErrorBySQLSTATE(t *testing.T) {
	for _, c := range []struct {
		err    *pgconn.PgError
		reason engines.Reason
	}{
		{&pgconn.PgError{Code: "28P01"}, engines.ReasonAuthFailed},
		{&pgconn.PgError{Code: "28000", Message: `no pg_hba.conf entry for host "10.0.0.1", user "me", database "db", no encryption`}, engines.ReasonTLSRequired},
		{&pgconn.PgError{Code: "28000", Message: `pg_hba.conf rejects connection for host "10.0.0.1"`}, engines.ReasonAuthFailed},
		{&pgconn.PgError{Code: "28000", Message: `role "x" does not exist`}, engines.ReasonRoleUnknown},
		{&pgconn.PgError{Code: "28000", Message: `role "x" is not permitted to log in`}, engines.ReasonConnect},
		{&pgconn.PgError{Code: "3D000"}, engines.ReasonDatabaseMissing},
		{&pgconn.PgError{Code: "53300"}, engines.ReasonConnect},
	} {
		if got := connectError(fmt.Errorf("connect: %w", c.err)); got.Reason != c.reason {
			t.Errorf("%s %q: reason %q, want %q", c.err.Code, c.err.Message, got.Reason, c.reason)
		}
	}
}
