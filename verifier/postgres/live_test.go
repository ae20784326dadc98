package postgres

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dbeast/dbeast/corpus"
	"github.com/dbeast/dbeast/verifier"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// liveConn connects to the server named by DBEAST_TEST_POSTGRES_DSN or
// skips the test.
func liveConn(t *testing.T) (*pgx.Conn, context.Context) {
	t.Helper()
	dsn := os.Getenv("DBEAST_TEST_POSTGRES_DSN")
	if dsn == "" {
		t.Skip("DBEAST_TEST_POSTGRES_DSN is not set")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn, ctx
}

// TestLiveNormalizedParses sends the normalized SQL of every accepted
// corpus case and of generated queries to the live server as a prepared
// statement (parsed and analysed, never executed) and fails on a syntax
// error: the sign that the server (PostgreSQL 15 here) reads the printed
// text differently from pg_query's PostgreSQL 16 grammar. Other errors
// (the tables do not exist) come after parsing and are expected.
func TestLiveNormalizedParses(t *testing.T) {
	conn, ctx := liveConn(t)
	cases, err := corpus.Load("postgres")
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, c := range cases {
		if c.Accept && c.Mode != string(verifier.ModeFull) {
			v, err := Verify(corpusInput(c))
			if err != nil {
				t.Fatalf("%s: refused: %v", c.Name(), err)
			}
			texts = append(texts, v.NormalizedSQL)
		}
	}
	for seed := int64(0); seed < 300; seed++ {
		q, _ := generate(seed, "")
		v, err := Verify(verifier.Input{SQL: q})
		if err != nil {
			t.Fatalf("generated %q refused: %v", q, err)
		}
		texts = append(texts, v.NormalizedSQL)
	}
	for _, q := range texts {
		_, err := conn.Prepare(ctx, "", q)
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "42601" {
			t.Errorf("server cannot parse normalized %q: %s", q, pgErr.Message)
		} else if err != nil && !errors.As(err, &pgErr) {
			t.Fatalf("prepare: %v", err)
		}
	}
}

// TestLiveLiteralValues runs normalized constant queries on the live
// server and compares the values with what the PostgreSQL 16 grammar
// gave the original text: the literal forms only newer servers read
// (0x1F, 1_000) and the quoting forms (dollar quotes, E'…', U&'…') must
// mean the same after printing.
func TestLiveLiteralValues(t *testing.T) {
	conn, ctx := liveConn(t)
	tests := []struct {
		sql  string
		want []string
	}{
		{"SELECT 0x1F, 0o17, 0b101, 1_000_000, -0x10", []string{"31", "15", "5", "1000000", "-16"}},
		{"SELECT 0x7FFFFFFF", []string{"2147483647"}},
		{`SELECT 'a\b', E'a\\b', E'x\x41\n'`, []string{`a\b`, `a\b`, "xA\n"}},
		{`SELECT $$it's$$, $q$'; DROP TABLE x; --$q$`, []string{"it's", "'; DROP TABLE x; --"}},
		{`SELECT U&'\0041\+000042', U&'!0063' UESCAPE '!'`, []string{"AB", "c"}},
		{"SELECT 'a'\n'b', 1e3, .5", []string{"ab", "1000", "0.5"}},
		{"SELECT B'101', X'1F'", []string{"101", "00011111"}},
		{"SELECT 9223372036854775807, -2147483648", []string{"9223372036854775807", "-2147483648"}},
	}
	for _, tt := range tests {
		v, err := Verify(verifier.Input{SQL: tt.sql})
		if err != nil {
			t.Fatalf("%q refused: %v", tt.sql, err)
		}
		res, err := conn.PgConn().Exec(ctx, v.NormalizedSQL).ReadAll()
		if err != nil {
			t.Fatalf("%q (normalized %q): %v", tt.sql, v.NormalizedSQL, err)
		}
		if len(res) != 1 || len(res[0].Rows) != 1 {
			t.Fatalf("%q: want one row", v.NormalizedSQL)
		}
		var got []string
		for _, b := range res[0].Rows[0] {
			got = append(got, string(b))
		}
		if len(got) != len(tt.want) {
			t.Fatalf("%q: got %q, want %q", v.NormalizedSQL, got, tt.want)
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("%q (normalized %q) column %d: got %q, want %q", tt.sql, v.NormalizedSQL, i, got[i], tt.want[i])
			}
		}
	}
}

// TestLiveNormalizedSameMeaning asks the live server itself whether the
// normalized text means what the agent's text meant: inside a transaction
// that creates the generator's fixture tables (rolled back), it explains
// both texts and wants the same verbose plan, or, where the server refuses
// the statement (a type error, a missing table), the same error. This is
// the server's own reading, PostgreSQL 15 here, against the printer and
// the PostgreSQL 16 grammar the round-trip proof uses. Inputs written in
// syntax only PostgreSQL 16 reads are skipped.
func TestLiveNormalizedSameMeaning(t *testing.T) {
	conn, ctx := liveConn(t)
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(context.Background())
	for _, name := range fixtureTables {
		ddl := "CREATE TABLE public." + name + " ("
		for i, c := range fixture[name] {
			if i > 0 {
				ddl += ", "
			}
			ddl += c + " int"
		}
		if _, err := tx.Exec(ctx, ddl+")"); err != nil {
			t.Fatalf("%s: %v", ddl, err)
		}
	}
	var inputs []string
	cases, err := corpus.Load("postgres")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if c.Accept && c.Mode == "" {
			inputs = append(inputs, c.SQL)
		}
	}
	for seed := int64(0); seed < 300; seed++ {
		q, _ := generate(seed, "")
		inputs = append(inputs, q)
	}
	// explain returns the plan or the error of one text; a savepoint keeps
	// an error from ending the transaction.
	explain := func(q string) (string, string) {
		if _, err := tx.Exec(ctx, "SAVEPOINT s"); err != nil {
			t.Fatal(err)
		}
		var plan string
		rows, err := tx.Query(ctx, "EXPLAIN (VERBOSE, COSTS OFF) "+q, pgx.QueryExecModeSimpleProtocol)
		if err == nil {
			for rows.Next() {
				var line string
				if err := rows.Scan(&line); err != nil {
					t.Fatal(err)
				}
				plan += line + "\n"
			}
			rows.Close()
			err = rows.Err()
		}
		if _, err := tx.Exec(ctx, "ROLLBACK TO SAVEPOINT s"); err != nil {
			t.Fatal(err)
		}
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) {
			return "", pgErr.Code + " " + pgErr.Message
		} else if err != nil {
			t.Fatalf("explain: %v", err)
		}
		return plan, ""
	}
	planned := 0
	for _, q := range inputs {
		v, err := Verify(verifier.Input{SQL: q})
		if err != nil {
			t.Fatalf("%q refused: %v", q, err)
		}
		plan, perr := explain(q)
		if strings.HasPrefix(perr, "42601 ") {
			continue // PostgreSQL 16 syntax: the server cannot read the input
		}
		nplan, nerr := explain(v.NormalizedSQL)
		if plan != nplan || perr != nerr {
			t.Errorf("%q and its normalized %q differ on the server:\n%s%s\n----\n%s%s", q, v.NormalizedSQL, plan, perr, nplan, nerr)
		}
		if perr == "" {
			planned++
		}
	}
	// Most generated queries type-check over all-int columns; if none
	// did, the comparison above proved nothing.
	if planned < 100 {
		t.Errorf("only %d of %d texts were planned", planned, len(inputs))
	}
	t.Logf("%d of %d texts planned identically", planned, len(inputs))
}
