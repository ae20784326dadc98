package mysql

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/dbeast/dbeast/engines"
)

// throwaway returns a name for a throwaway account no parallel run
// shares.
func throwaway(prefix string) string {
	var b [4]byte
	rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// TestConnectErrorsAreClassified: each way a connection setup fails on
// the live server gets its own static reason, and so its own problem
// code: a database that does not exist, an unknown user and a wrong
// password (both 1045: MySQL does not tell them apart), a closed port,
// TLS the server does not offer. The throwaway account is dropped at the
// end.
func TestConnectErrorsAreClassified(t *testing.T) {
	needServer(t)
	user := throwaway("cli30_u")
	adminExec(t, "CREATE USER '"+user+"'@'%' IDENTIFIED BY 'right-pw'")
	t.Cleanup(func() { admin.Exec("DROP USER IF EXISTS '" + user + "'@'%'") })
	adminExec(t, "GRANT SELECT ON `"+testDB+"`.* TO '"+user+"'@'%'")

	base := sourceFor(t, "", "", nil)
	cfg, _ := gomysql.ParseDSN(base.DSN)
	with := func(f func(c *gomysql.Config)) engines.Source {
		c := cfg.Clone()
		f(c)
		return engines.Source{Kind: engines.MySQL, DSN: c.FormatDSN()}
	}
	cases := []struct {
		name    string
		src     engines.Source
		code    engines.Code
		reason  engines.Reason
		problem engines.Problem
	}{
		{"missing database", with(func(c *gomysql.Config) { c.DBName = throwaway("cli30_nodb_") }), engines.CodeUnavailable, ReasonNoSuchDatabase, engines.ProblemNoDatabase},
		{"unknown user", with(func(c *gomysql.Config) { c.User, c.Passwd = throwaway("cli30_nobody"), "x" }), engines.CodeUnavailable, engines.ReasonAuthFailed, engines.ProblemAuth},
		{"wrong password", with(func(c *gomysql.Config) { c.User, c.Passwd = user, "wrong-pw" }), engines.CodeUnavailable, engines.ReasonAuthFailed, engines.ProblemAuth},
		{"closed port", with(func(c *gomysql.Config) { c.Addr = "127.0.0.1:1" }), engines.CodeUnavailable, engines.ReasonConnect, engines.ProblemUnreachable},
	}
	var haveSSL string
	admin.QueryRow("SELECT @@have_ssl").Scan(&haveSSL)
	if haveSSL != "YES" {
		cases = append(cases, struct {
			name    string
			src     engines.Source
			code    engines.Code
			reason  engines.Reason
			problem engines.Problem
		}{"TLS the server does not offer", with(func(c *gomysql.Config) { c.TLSConfig = "true" }), engines.CodeUnavailable, engines.ReasonTLSFailed, engines.ProblemTLSFailed})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			e, err := Driver{}.Open(ctx, c.src)
			if err == nil {
				e.Close()
				t.Fatal("Open succeeded")
			}
			wantErr(t, err, c.code, c.reason)
			if p := engines.ProblemOf(c.code, c.reason); p != c.problem {
				t.Fatalf("problem = %s, want %s", p, c.problem)
			}
		})
	}
}

// TestCheckAccessNamesTheMissingPrivilege: a source test reports the
// privilege a proof will need, by name: PROCESS first, then LOCK TABLES,
// and nothing once both are granted.
func TestCheckAccessNamesTheMissingPrivilege(t *testing.T) {
	needServer(t)
	user := throwaway("cli30_p")
	adminExec(t, "CREATE USER '"+user+"'@'%' IDENTIFIED BY 'pw'")
	t.Cleanup(func() { admin.Exec("DROP USER IF EXISTS '" + user + "'@'%'") })
	adminExec(t, "GRANT SELECT ON `"+testDB+"`.* TO '"+user+"'@'%'")
	check := func() error {
		t.Helper()
		e := openSource(t, sourceFor(t, user, "pw", nil))
		defer e.Close()
		return e.CheckAccess(context.Background())
	}
	wantErr(t, check(), engines.CodeDenied, ReasonNoProcess)
	adminExec(t, "GRANT PROCESS ON *.* TO '"+user+"'@'%'")
	wantErr(t, check(), engines.CodeDenied, ReasonNoLockPrivilege)
	if p := engines.ProblemOf(engines.CodeDenied, ReasonNoLockPrivilege); p != engines.ProblemPrivilege {
		t.Fatalf("problem = %s", p)
	}
	adminExec(t, "GRANT LOCK TABLES ON `"+testDB+"`.* TO '"+user+"'@'%'")
	if err := check(); err != nil {
		t.Fatalf("with both privileges: %v", err)
	}
}

// TestURLDSNsConnect: the mysql:// and mariadb:// URLs people copy from
// their tools open the same database as the driver's own form.
func TestURLDSNsConnect(t *testing.T) {
	needServer(t)
	cfg, err := gomysql.ParseDSN(os.Getenv(dsnVar))
	if err != nil {
		t.Fatal(err)
	}
	u := url.URL{Host: cfg.Addr, Path: "/" + testDB}
	u.User = url.UserPassword(cfg.User, cfg.Passwd)
	if cfg.Passwd == "" {
		u.User = url.User(cfg.User)
	}
	for _, scheme := range []string{"mysql", "mariadb", "MySQL"} {
		u.Scheme = scheme
		src := engines.Source{Kind: engines.MySQL, DSN: u.String()}
		info, err := Driver{}.Validate(src)
		if err != nil || info.Database != testDB {
			t.Fatalf("%s: Validate = %v, %v", scheme, info, err)
		}
		e := openSource(t, src)
		if _, err := e.ListTables(context.Background()); err != nil {
			t.Fatalf("%s: ListTables: %v", scheme, err)
		}
		e.Close()
	}
}

// TestDriverDSN pins the URL conversion, parameters included.
func TestDriverDSN(t *testing.T) {
	cases := []struct{ in, want string }{
		{"me@tcp(h:3306)/db", "me@tcp(h:3306)/db"},
		{"mysql://me:p%40ss@db.example:3307/shop", "me:p@ss@tcp(db.example:3307)/shop"},
		{"mariadb://me@localhost/shop", "me@tcp(localhost:3306)/shop"},
		{"mysql://me@/shop", "me@tcp(127.0.0.1:3306)/shop"},
		{"mysql://me@[::1]:3306/shop", "me@tcp([::1]:3306)/shop"},
		{"mysql://me@h/shop?ssl-mode=REQUIRED", "me@tcp(h:3306)/shop?tls=skip-verify"},
		{"mysql://me@h/shop?charset=utf8mb4", "me@tcp(h:3306)/shop?charset=utf8mb4"},
		{"mysql://me@h/shop?socket=%2Frun%2Fmysqld.sock", "me@unix(/run/mysqld.sock)/shop"},
	}
	for _, c := range cases {
		got, ok := driverDSN(c.in)
		if !ok || got != c.want {
			t.Errorf("driverDSN(%q) = %q, %v; want %q", c.in, got, ok, c.want)
		}
	}
	for _, bad := range []string{"mysql://me@h/a/b", "mysql://me@h/db?ssl-mode=bogus", "mysql://%zz"} {
		if _, ok := driverDSN(bad); ok {
			t.Errorf("driverDSN(%q) accepted", bad)
		}
	}
}
