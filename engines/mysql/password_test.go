package mysql

import (
	"errors"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/engines"
)

// TestDSNWithPasswordForms: a password edit works on every DSN form the
// engine accepts (go-sql-driver's, mysql:// and mariadb:// URLs), keeps
// the form, and the engine reads back exactly the password set and the
// same address, user and database. Checked to fail before the ability
// existed: the broker parsed only go-sql-driver's form, so a URL source
// could not get a password at all.
func TestDSNWithPasswordForms(t *testing.T) {
	for _, c := range []struct{ dsn, prefix, addr, user, db string }{
		{"u:old@tcp(h:3306)/db", "u", "h:3306", "u", "db"},
		{"u@tcp(127.0.0.1:3307)/db?tls=false", "u", "127.0.0.1:3307", "u", "db"},
		{"mysql://u:old@h:3306/db", "mysql://u:", "h:3306", "u", "db"},
		{"mariadb://u@h/db?ssl-mode=disabled", "mariadb://u:", "h:3306", "u", "db"},
		{"MySQL://u@h/db?charset=utf8mb4", "mysql://u:", "h:3306", "u", "db"},
		{"mysql://u@/db?socket=%2Ftmp%2Fmysql.sock", "mysql://u:", "/tmp/mysql.sock", "u", "db"},
	} {
		for _, pw := range []string{"p@ss", "a:b/c?d#e f%", "ünï", ""} {
			out, err := Driver{}.DSNWithPassword(c.dsn, pw)
			if err != nil {
				t.Errorf("DSNWithPassword(%q, %q): %v", c.dsn, pw, err)
				continue
			}
			cfg, ok := parseDriverForm(out)
			if !ok || cfg.Passwd != pw || cfg.Addr != c.addr || cfg.User != c.user || cfg.DBName != c.db || !strings.HasPrefix(out, c.prefix) || strings.Contains(out, "old") {
				t.Errorf("DSNWithPassword(%q, %q) = %q: the engine reads %+v", c.dsn, pw, out, cfg)
			}
		}
	}
}

// TestDSNWithPasswordRefusals: a DSN the engine cannot read is a bad
// configuration, a result read with another password, address, user or
// database is refused, and no error carries the DSN.
func TestDSNWithPasswordRefusals(t *testing.T) {
	// go-sql-driver sends no password without a user name, so a URL
	// without one cannot get a password.
	var e *engines.Error
	if _, err := (Driver{}).DSNWithPassword("mysql://h/db", "p"); !errors.As(err, &e) || e.Reason != engines.ReasonPasswordNotSet {
		t.Errorf("a URL without a user: %v; want %s", err, engines.ReasonPasswordNotSet)
	}
	for _, bad := range []string{"mysql://u@h:3306/a/b", "mysql://u@h/db#frag", "mysql://u@h/db?ssl-mode=sometimes", "u@tcp(h:3306", "postgres://u@h/db"} {
		_, err := Driver{}.DSNWithPassword(bad, "secret")
		if !errors.As(err, &e) || e.Reason != engines.ReasonBadConfig || strings.Contains(err.Error(), "secret") {
			t.Errorf("DSNWithPassword(%q) = %v; want %s", bad, err, engines.ReasonBadConfig)
		}
	}
	for _, c := range []struct{ old, next, label string }{
		{"u@tcp(h:3306)/db", "u:NEW@tcp(evil:3306)/db", "another host"},
		{"u@tcp(h:3306)/db", "u:OLD@tcp(h:3306)/db", "another password"},
		{"mysql://u@h/db", "mysql://admin:NEW@h/db", "another user"},
		{"mysql://u@h/db", "u:NEW@tcp(h:3306)/other", "another database"},
		{"mysql://u@h/db", "u:NEW@unix(/tmp/s)/db", "another network"},
	} {
		if passwordSet(c.old, c.next, "NEW") {
			t.Errorf("%s: accepted", c.label)
		}
	}
	if !passwordSet("mariadb://u@h/db", "u:NEW@tcp(h:3306)/db", "NEW") {
		t.Error("the same server, user and database in the other form was refused")
	}
}
