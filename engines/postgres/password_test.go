package postgres

import (
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dbeast/dbeast/engines"
)

// TestDSNWithPasswordForms: a password edit keeps a URL a URL and a
// keyword string a keyword string, replaces every earlier password
// (including one in a URL's query, which pgx prefers to the userinfo's),
// and pgx reads back exactly the password set, whatever characters it
// has.
func TestDSNWithPasswordForms(t *testing.T) {
	for _, c := range []struct{ dsn, want string }{
		{"postgres://u:old@h:5432/db?sslmode=disable", "postgres://u:p%40ss@h:5432/db?sslmode=disable"},
		{"postgresql://h/db", "postgresql://:p%40ss@h/db"},
		{"host=h user=u password=old", `host=h user=u password='p@ss'`},
		{`password = 'o l\'d' host=h  dbname='my db' password=x\ y sslmode=disable`, `host=h dbname='my db' sslmode=disable password='p@ss'`},
		{"postgres://u:old@h/db?sslmode=disable&password=OLD", "postgres://u:p%40ss@h/db?sslmode=disable"},
		{"postgres://h/db?password=OLD&sslmode=disable", "postgres://:p%40ss@h/db?sslmode=disable"},
		{"postgresql://u@h/db?pass%77ord=OLD", "postgresql://u:p%40ss@h/db"},
	} {
		got, err := Driver{}.DSNWithPassword(c.dsn, "p@ss")
		if err != nil || got != c.want {
			t.Errorf("DSNWithPassword(%q) = %q, %v; want %q", c.dsn, got, err, c.want)
		}
	}
	if got, _ := (Driver{}).DSNWithPassword("host=h", `a'b\c`); got != `host=h password='a\'b\\c'` {
		t.Errorf("keyword escaping: %q", got)
	}
	for _, dsn := range []string{"host=h user=u password=old", "postgres://u:old@h/db", `host=h password='a\'b'`, "postgres://u@h/db?password=OLD"} {
		for _, pw := range []string{`a'b\c d`, "p@ss:/?#", "ünï", "OLD2"} {
			out, err := Driver{}.DSNWithPassword(dsn, pw)
			if err != nil {
				t.Fatalf("DSNWithPassword(%q): %v", dsn, err)
			}
			cfg, err := pgconn.ParseConfig(out)
			if err != nil || cfg.Password != pw || strings.Contains(out, "=OLD") {
				t.Errorf("DSNWithPassword(%q, %q) = %q: pgx reads %v", dsn, pw, out, err)
			}
		}
	}
}

// TestDSNWithPasswordRefusals: a DSN that does not parse is a bad
// configuration, and a result pgx would read with another password,
// host, user or database is refused; no error carries the DSN.
func TestDSNWithPasswordRefusals(t *testing.T) {
	for _, bad := range []string{"host", "host=h password='open", "=x", "host=h x", "postgres://u@h:badport/db"} {
		_, err := Driver{}.DSNWithPassword(bad, "p")
		var e *engines.Error
		if !errors.As(err, &e) || e.Reason != engines.ReasonBadConfig {
			t.Errorf("DSNWithPassword(%q) = %v; want %s", bad, err, engines.ReasonBadConfig)
		}
	}
	for _, c := range []struct{ old, next, label string }{
		{"postgres://u@h/db", "postgres://u:NEW@h/db?password=OLD", "another password"},
		{"postgres://u@h/db", "postgres://u:NEW@h/db?host=evil", "another host"},
		{"postgres://u@h/db", "postgres://u:NEW@h/db?user=admin", "another user"},
		{"postgres://u@h/db", "postgres://u:NEW@h/other", "another database"},
		{"postgres://u@h/db", "host=h user=u password='NEW", "unparsable"},
	} {
		if passwordSet(c.old, c.next, "NEW") {
			t.Errorf("%s: accepted", c.label)
		}
	}
	if !passwordSet("postgres://u@h/db", "postgres://u:NEW@h/db", "NEW") {
		t.Error("the same server, user and database with the new password was refused")
	}
}
