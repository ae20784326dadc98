package postgres

import (
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/dbeast/dbeast/engines"
)

// oldDSNVar names the DSN of a server older than minServerMajor (make
// matrix starts a PostgreSQL 12 for it).
const oldDSNVar = "DBEAST_TEST_POSTGRES_OLD_DSN"

func TestServerMajor(t *testing.T) {
	for _, c := range []struct {
		in    string
		major int
		ok    bool
	}{
		{"13.23", 13, true},
		{"18.4", 18, true},
		{"15.20 (Debian 15.20-0+deb12u1)", 15, true},
		{"17beta1", 17, true},
		{"12.22", 12, true},
		{"9.6.24", 9, true},
		{"", 0, false},
		{"PostgreSQL 16", 0, false},
		{"123456789.1", 0, false},
	} {
		major, ok := serverMajor(c.in)
		if major != c.major || ok != c.ok {
			t.Errorf("serverMajor(%q) = %d, %v; want %d, %v", c.in, major, ok, c.major, c.ok)
		}
	}
}

// TestServerVersionSupported checks, on the test server, that the version
// read from the startup parameters is the server's own major version and
// that a supported server opens.
func TestServerVersionSupported(t *testing.T) {
	e := openEngine(t, engines.Source{})
	major, ok := serverMajor(e.pg.ParameterStatus("server_version"))
	num, err := strconv.Atoi(scalar(t, adminConn(t), "SELECT current_setting('server_version_num')"))
	if err != nil {
		t.Fatal(err)
	}
	if !ok || major != num/10000 {
		t.Fatalf("serverMajor = %d, %v; server_version_num is %d", major, ok, num)
	}
	if major < minServerMajor {
		t.Fatalf("opened a PostgreSQL %d engine; the oldest supported is %d", major, minServerMajor)
	}
}

// TestOldServerRefused opens an engine on a server older than the oldest
// tested version and expects the static version reason.
func TestOldServerRefused(t *testing.T) {
	dsn := os.Getenv(oldDSNVar)
	if dsn == "" {
		t.Skip(oldDSNVar + " is not set (make matrix sets it to a PostgreSQL 12)")
	}
	e, err := Driver{}.Open(context.Background(), engines.Source{Kind: engines.Postgres, DSN: dsn})
	if err == nil {
		e.Close()
		t.Fatal("a server older than PostgreSQL 13 opened")
	}
	wantErr(t, err, engines.CodeUnavailable, ReasonServerVersion)
}
