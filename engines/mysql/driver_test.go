package mysql

import (
	"context"
	"strings"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/dbeast/dbeast/engines"
)

// TestValidate checks DSN validation without a server, and that no DSN
// can turn on the options the engine forbids.
func TestValidate(t *testing.T) {
	cases := []struct {
		name   string
		src    engines.Source
		db     string
		reason engines.Reason
	}{
		{"ok", engines.Source{Kind: engines.MySQL, DSN: "u:secret@tcp(127.0.0.1:3306)/shop"}, "shop", ""},
		{"no database", engines.Source{Kind: engines.MySQL, DSN: "u:secret@tcp(127.0.0.1:3306)/"}, "", ReasonNoDatabase},
		{"system database", engines.Source{Kind: engines.MySQL, DSN: "u@tcp(127.0.0.1:3306)/MySQL"}, "", ReasonSystemDatabase},
		{"unparsable", engines.Source{Kind: engines.MySQL, DSN: "u:secret@tcp(127.0.0.1:3306/shop?x"}, "", engines.ReasonBadConfig},
		{"wrong kind", engines.Source{Kind: engines.Postgres, DSN: "u@tcp(127.0.0.1:3306)/shop"}, "", engines.ReasonBadConfig},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			info, err := Driver{}.Validate(c.src)
			if c.reason == "" {
				if err != nil || info.Database != c.db || info.DefaultSchema != c.db {
					t.Fatalf("info = %+v, err = %v", info, err)
				}
				return
			}
			wantErr(t, err, engines.CodeUnavailable, c.reason)
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("error leaks the DSN: %v", err)
			}
		})
	}

	cfg, err := parseConfig(engines.Source{Kind: engines.MySQL,
		DSN: "u@tcp(h:1)/db?multiStatements=true&interpolateParams=true&parseTime=true&allowAllFiles=true&columnsWithAlias=true&timeout=1h&readTimeout=1h"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.MultiStatements || cfg.InterpolateParams || cfg.ParseTime || cfg.AllowAllFiles || cfg.ColumnsWithAlias {
		t.Errorf("forbidden option survived: %+v", cfg)
	}
	if cfg.Timeout != setupDeadline || cfg.ReadTimeout != ioBackstop || cfg.WriteTimeout != ioBackstop {
		t.Errorf("timeouts = %v %v %v", cfg.Timeout, cfg.ReadTimeout, cfg.WriteTimeout)
	}
}

// TestFlavor checks flavor detection and the per-flavor settings.
func TestFlavor(t *testing.T) {
	cases := []struct {
		version, comment string
		mariadb, ok      bool
		timeout          string
		identity         string
	}{
		{"10.11.19-MariaDB-0+deb12u1", "Debian 12", true, true, "SET SESSION max_statement_time = 30", "INNODB_SYS_TABLES"},
		{"11.4.2-MariaDB", "mariadb.org binary distribution", true, true, "SET SESSION max_statement_time = 30", "INNODB_SYS_TABLES"},
		{"5.5.5-10.6.12-MariaDB", "", true, true, "SET SESSION max_statement_time = 30", "INNODB_SYS_TABLES"},
		{"10.2.44-MariaDB", "", true, false, "", ""},
		{"8.0.36", "MySQL Community Server - GPL", false, true, "SET SESSION max_execution_time = 30000", "INNODB_TABLES"},
		{"8.4.0", "MySQL Community Server - GPL", false, true, "SET SESSION max_execution_time = 30000", "INNODB_TABLES"},
		{"5.7.44", "MySQL Community Server (GPL)", false, false, "", ""},
		{"garbage", "", false, false, "", ""},
	}
	for _, c := range cases {
		f, ok := detectFlavor(c.version, c.comment)
		if ok != c.ok || f.mariadb != c.mariadb {
			t.Errorf("%s: flavor %v ok %v", c.version, f, ok)
			continue
		}
		if !ok {
			continue
		}
		if got := f.timeoutSQL(29500 * time.Millisecond)[0]; got != c.timeout {
			t.Errorf("%s: timeout %q, want %q", c.version, got, c.timeout)
		}
		if !strings.Contains(f.identitySQL(), "information_schema."+c.identity+" ") {
			t.Errorf("%s: identity %q", c.version, f.identitySQL())
		}
	}

	gen := []struct {
		mariadb      bool
		extra, isGen string
		want         bool
		name         string
	}{
		{false, "VIRTUAL GENERATED", "", true, "mysql virtual"},
		{false, "STORED GENERATED", "", true, "mysql stored"},
		{false, "DEFAULT_GENERATED", "", false, "mysql expression default"},
		{false, "DEFAULT_GENERATED on update CURRENT_TIMESTAMP", "", false, "mysql on update"},
		{true, "VIRTUAL GENERATED", "ALWAYS", true, "mariadb virtual"},
		{true, "", "ALWAYS", true, "mariadb is_generated only"},
		{true, "PERSISTENT GENERATED", "", true, "mariadb persistent"},
		{true, "on update current_timestamp()", "NEVER", false, "mariadb on update"},
	}
	for _, g := range gen {
		if got := (flavor{mariadb: g.mariadb}).isGenerated(g.extra, g.isGen); got != g.want {
			t.Errorf("%s: generated = %v", g.name, got)
		}
	}
}

// TestInnodbName checks the filename encoding of dictionary names.
func TestInnodbName(t *testing.T) {
	cases := []struct {
		db, table, want string
		ok              bool
	}{
		{"shop", "orders", "shop/orders", true},
		{"my_db1", "T_2", "my_db1/T_2", true},
		{"dbeast_myengine", "we-ird.name", "dbeast_myengine/we@002dird@002ename", true},
		{"a b", "c$d", "a@0020b/c@0024d", true},
		{"shop", "café", "", false},
	}
	for _, c := range cases {
		got, ok := innodbName(c.db, c.table)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("innodbName(%q, %q) = %q %v, want %q %v", c.db, c.table, got, ok, c.want, c.ok)
		}
	}
	if col, ok := jsonCheckColumn("json_valid(`do``c`)"); !ok || col != "do`c" {
		t.Errorf("jsonCheckColumn = %q %v", col, ok)
	}
	if _, ok := jsonCheckColumn("json_valid(`a`) and 1"); ok {
		t.Error("jsonCheckColumn accepted a compound clause")
	}
}

// TestEncodeValue checks the cell encoding of each driver value type.
func TestEncodeValue(t *testing.T) {
	cases := []struct {
		in     any
		binary bool
		want   any
	}{
		{nil, false, nil},
		{[]byte("12.500"), false, "12.500"},
		{[]byte{0xff, 0x00}, false, engines.Binary{0xff, 0x00}},
		{[]byte("abc"), true, engines.Binary("abc")},
		{int64(-9223372036854775808), false, "-9223372036854775808"},
		{uint64(18446744073709551615), false, "18446744073709551615"},
		{float64(0.1), false, "0.1"},
		{float32(0.1), false, "0.1"},
	}
	for _, c := range cases {
		got, err := encodeValue(c.in, c.binary)
		if err != nil {
			t.Fatal(err)
		}
		switch w := c.want.(type) {
		case engines.Binary:
			if b, ok := got.(engines.Binary); !ok || string(b) != string(w) {
				t.Errorf("%v: got %#v", c.in, got)
			}
		default:
			if got != c.want {
				t.Errorf("%v: got %#v, want %#v", c.in, got, c.want)
			}
		}
	}
	if _, err := encodeValue(struct{}{}, false); err == nil {
		t.Error("unknown type accepted")
	}
}

// TestOpenMissingDatabase opens sources whose database does not exist
// (with lower_case_table_names 0, as on Linux, a name that differs from
// the test database only in case is another database): each must fail
// with the static reason before any operation, while the test database
// itself opens.
func TestOpenMissingDatabase(t *testing.T) {
	e := openEngine(t)
	lctn := e.pc.lctn
	e.Close()
	cases := []struct {
		name, db string
		want     engines.Reason
	}{
		{"the test database", testDB, ""},
		{"no such database", testDB + "_missing", ReasonNoSuchDatabase},
		{"a quote in the name", "x' OR '1'='1", ReasonNoSuchDatabase},
	}
	if lctn == 0 {
		cases = append(cases, struct {
			name, db string
			want     engines.Reason
		}{"another case", strings.ToUpper(testDB), ReasonNoSuchDatabase})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := sourceFor(t, "", "", nil)
			cfg, err := gomysql.ParseDSN(src.DSN)
			if err != nil {
				t.Fatal(err)
			}
			cfg.DBName = c.db
			src.DSN = cfg.FormatDSN()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			eng, err := Driver{}.Open(ctx, src)
			if c.want == "" {
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				eng.Close()
				return
			}
			if err == nil {
				eng.Close()
			}
			wantErr(t, err, engines.CodeUnavailable, c.want)
		})
	}
}
