package broker

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/engines/postgres"
)

// savedDSN is the DSN the broker keeps for a source (write-only on the
// console API, so tests read it from the state).
func (e *reqEnv) savedDSN(id string) string {
	e.b.mu.Lock()
	defer e.b.mu.Unlock()
	return e.b.state.Sources[e.b.sourceIndexLocked(id)].DSN
}

// TestPasswordEditEveryDSNForm: over the console's PATCH, a password edit
// works on every DSN form a person may have added a PostgreSQL or MySQL
// source with, keeps that form, and the edited DSN carries exactly the
// new password. Checked to fail before the drivers set the password: the
// broker parsed MySQL DSNs only in go-sql-driver's form, so a mysql:// or
// mariadb:// source answered 400.
func TestPasswordEditEveryDSNForm(t *testing.T) {
	const pw = "n3w p@ss:/?#'\\"
	for _, c := range []struct {
		kind         engines.Kind
		dsn, prefix  string
		readPassword func(string) (string, error)
	}{
		{engines.Postgres, "postgres://u:old@127.0.0.1:5432/db?sslmode=disable", "postgres://u:", pgPassword},
		{engines.Postgres, "host=127.0.0.1 user=u password=old dbname=db", "host=127.0.0.1 user=u dbname=db password=", pgPassword},
		{engines.MySQL, "u:old@tcp(127.0.0.1:3306)/db", "u:", driverFormPassword},
		{engines.MySQL, "mysql://u:old@127.0.0.1:3306/db", "mysql://u:", urlPassword},
		{engines.MySQL, "mariadb://u@127.0.0.1/db?ssl-mode=disabled", "mariadb://u:", urlPassword},
	} {
		e := serverEnv(t, c.kind, c.dsn)
		if st, out := e.editSource(e.srcID, map[string]any{"password": pw}); st != http.StatusOK {
			t.Errorf("%s: password edit: %d %v", c.dsn, st, out)
			continue
		}
		got := e.savedDSN(e.srcID)
		if read, err := c.readPassword(got); err != nil || read != pw || !strings.HasPrefix(got, c.prefix) || strings.Contains(got, "old") {
			t.Errorf("%s: edited DSN %q reads password %q (%v)", c.dsn, got, read, err)
		}
		if g := e.sourceByID(e.srcID).Generation; g != 2 {
			t.Errorf("%s: generation %d after a password edit, want 2", c.dsn, g)
		}
	}
}

func pgPassword(dsn string) (string, error) {
	cfg, err := pgconn.ParseConfig(dsn)
	if err != nil {
		return "", err
	}
	return cfg.Password, nil
}

func driverFormPassword(dsn string) (string, error) {
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		return "", err
	}
	return cfg.Passwd, nil
}

func urlPassword(dsn string) (string, error) {
	u, err := url.Parse(dsn)
	if err != nil || u.User == nil {
		return "", fmt.Errorf("no userinfo")
	}
	p, _ := u.User.Password()
	return p, nil
}

// TestPasswordEditConnectsMySQLSource: on the real MariaDB, a source
// added without its password as a mysql:// URL, a mariadb:// URL and in
// go-sql-driver's form fails its connection test, gets the password over
// the console's PATCH, and then connects. The account is a throwaway
// one with a unique name, dropped at the end. Checked to fail before the
// drivers set the password: the URL sources' edit answered 400.
func TestPasswordEditConnectsMySQLSource(t *testing.T) {
	admin := os.Getenv("DBEAST_TEST_MYSQL_DSN")
	if admin == "" {
		t.Skip("DBEAST_TEST_MYSQL_DSN is not set")
	}
	acfg, err := gomysql.ParseDSN(admin)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("mysql", admin)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4)
	rand.Read(buf)
	user := "dbeast_pwedit_" + hex.EncodeToString(buf)
	const pw = "s3cr:t/p@ss?"
	t.Cleanup(func() {
		if _, err := db.Exec("DROP USER IF EXISTS '" + user + "'@'%'"); err != nil {
			t.Errorf("drop the throwaway account: %v", err)
		}
		db.Close()
	})
	for _, s := range []string{
		"CREATE USER '" + user + "'@'%' IDENTIFIED BY '" + pw + "'",
		"GRANT SELECT, LOCK TABLES ON `" + acfg.DBName + "`.* TO '" + user + "'@'%'",
		"GRANT PROCESS ON *.* TO '" + user + "'@'%'",
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("set up the throwaway account: %v", err)
		}
	}

	host, port, _ := strings.Cut(acfg.Addr, ":")
	for _, dsn := range []string{
		"mysql://" + user + "@" + acfg.Addr + "/" + acfg.DBName,
		"mariadb://" + user + "@" + host + ":" + port + "/" + acfg.DBName + "?ssl-mode=disabled",
		user + "@tcp(" + acfg.Addr + ")/" + acfg.DBName,
	} {
		e := serverEnv(t, engines.MySQL, dsn)
		if st, h := e.testSource(); st != http.StatusOK || h.OK || h.Code == "" {
			t.Fatalf("%s without its password: %d %+v, want a failed test", dsn, st, h)
		}
		if st, out := e.editSource(e.srcID, map[string]any{"password": pw}); st != http.StatusOK {
			t.Errorf("%s: password edit: %d %v", dsn, st, out)
			continue
		}
		if st, h := e.testSource(); st != http.StatusOK || !h.OK {
			t.Errorf("%s: test connection after the password edit: %d %+v", dsn, st, h)
		}
	}
}

// TestPasswordEditWithoutTheAbility: without a driver that can set a
// password (none configured for the kind) the edit is refused as a
// setting the source does not have, and a driver's refusal keeps its
// static reason.
func TestPasswordEditWithoutTheAbility(t *testing.T) {
	if _, err := withPassword(nil, "postgres://u@h/db", "p"); err != ErrBadEdit {
		t.Errorf("no driver: %v, want ErrBadEdit", err)
	}
	if _, err := withPassword(postgres.Driver{}, "host", "p"); err == nil || !strings.Contains(err.Error(), string(engines.ReasonBadConfig)) {
		t.Errorf("an unparsable DSN: %v", err)
	}
}
