package postgres

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dbeast/dbeast/engines"
)

func TestValidate(t *testing.T) {
	cases := []struct {
		name   string
		src    engines.Source
		db     string
		reason engines.Reason
	}{
		{"url", engines.Source{Kind: engines.Postgres, DSN: "postgres://u:secretpw@db.example:5432/shop?sslmode=disable"}, "shop", ""},
		{"keywords", engines.Source{Kind: engines.Postgres, DSN: "host=db.example dbname=ledger user=u password=secretpw"}, "ledger", ""},
		{"malformed", engines.Source{Kind: engines.Postgres, DSN: "postgres://u:secretpw@db.example:notaport/x"}, "", engines.ReasonBadConfig},
		{"bad option", engines.Source{Kind: engines.Postgres, DSN: "host=db.example sslmode=secretpw"}, "", engines.ReasonBadConfig},
		{"wrong kind", engines.Source{Kind: engines.MySQL, DSN: "root@tcp(127.0.0.1:3306)/x"}, "", engines.ReasonBadConfig},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			info, err := Driver{}.Validate(c.src)
			if c.reason != "" {
				wantErr(t, err, engines.CodeUnavailable, c.reason)
				if strings.Contains(err.Error(), "secretpw") || strings.Contains(err.Error(), "db.example") {
					t.Fatalf("error leaks the DSN: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if info.Database != c.db || info.DefaultSchema != "public" {
				t.Fatalf("info = %+v", info)
			}
		})
	}
}

func TestOpenFailures(t *testing.T) {
	// A listener that accepts and never answers: setup must give up.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := closed.Addr().String()
	closed.Close()

	cases := []struct {
		name    string
		dsn     string
		timeout time.Duration
		code    engines.Code
		reason  engines.Reason
	}{
		{"silent server", "postgres://u:secretpw@" + ln.Addr().String() + "/x?sslmode=disable", 300 * time.Millisecond, engines.CodeUnavailable, engines.ReasonSetupTimeout},
		{"nothing listening", "postgres://u:secretpw@" + closedAddr + "/x?sslmode=disable", 5 * time.Second, engines.CodeUnavailable, engines.ReasonConnect},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
			defer cancel()
			start := time.Now()
			_, err := Driver{}.Open(ctx, engines.Source{Kind: engines.Postgres, DSN: c.dsn})
			wantErr(t, err, c.code, c.reason)
			if strings.Contains(err.Error(), "secretpw") || strings.Contains(err.Error(), "127.0.0.1") {
				t.Fatalf("error leaks connection details: %v", err)
			}
			if time.Since(start) > c.timeout+2*time.Second {
				t.Fatalf("open took %v", time.Since(start))
			}
		})
	}
}

func TestEncodeCell(t *testing.T) {
	bytea := pgconn.FieldDescription{DataTypeOID: oidBytea}
	text := pgconn.FieldDescription{DataTypeOID: 25}
	cases := []struct {
		name string
		fd   pgconn.FieldDescription
		in   []byte
		want any
		fail bool
	}{
		{"null", text, nil, nil, false},
		{"text kept exactly", text, []byte(" 1.50 "), " 1.50 ", false},
		{"empty bytea", bytea, []byte(`\x`), engines.Binary{}, false},
		{"bytea", bytea, []byte(`\x00ff`), engines.Binary{0, 0xff}, false},
		{"escape-format bytea refused", bytea, []byte(`abc`), nil, true},
		{"odd hex refused", bytea, []byte(`\x0`), nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := encodeCell(c.fd, c.in)
			if (err != nil) != c.fail {
				t.Fatalf("err = %v, fail = %v", err, c.fail)
			}
			if c.fail {
				return
			}
			switch w := c.want.(type) {
			case engines.Binary:
				g, ok := got.(engines.Binary)
				if !ok || string(g) != string(w) {
					t.Fatalf("got %#v, want %#v", got, w)
				}
			default:
				if got != c.want {
					t.Fatalf("got %#v, want %#v", got, c.want)
				}
			}
		})
	}
}

func TestErrorsCarryNoServerText(t *testing.T) {
	e := openEngine(t, engines.Source{})
	_, err := e.Exec(context.Background(), `SELECT * FROM dbeast_pgengine.secret_named_table`, engines.Limits{})
	wantErr(t, err, engines.CodeFailed, engines.ReasonExecution)
	if strings.Contains(err.Error(), "secret_named_table") {
		t.Fatalf("error leaks server text: %v", err)
	}
	var pgErr *pgconn.PgError
	if !asPgError(err, &pgErr) || pgErr.Code != "42P01" {
		t.Fatalf("private cause = %v, want the server's 42P01", err)
	}
}

func asPgError(err error, target **pgconn.PgError) bool { return errors.As(err, target) }
