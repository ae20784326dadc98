package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/verifier"
	msqlite "modernc.org/sqlite"
)

// fixture is the schema and rows every differential run uses. customers
// has a column named "count" so a case can pin that a quoted name that
// looks like a function is a column.
const fixture = `
CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, email TEXT, country TEXT, created_at TEXT, "count" INTEGER);
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER, amount REAL, status TEXT, created_at TEXT);
CREATE TABLE order_items (id INTEGER PRIMARY KEY, order_id INTEGER, product_id INTEGER, quantity INTEGER, price REAL);
CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT, category TEXT, price REAL);
CREATE TABLE lineitem (l_partkey INTEGER, l_quantity INTEGER, l_extendedprice REAL);
CREATE TABLE part (p_partkey INTEGER, p_brand TEXT);
INSERT INTO lineitem VALUES (1,1,10),(1,9,20),(2,3,5);
INSERT INTO part VALUES (1,'Brand#23'),(2,'Brand#1');
INSERT INTO customers VALUES (1,'Ann','ann@x','HU','2024-01-01',3),(2,'bob',NULL,'DE','2024-02-01',0),(3,'Cy','cy@x',NULL,NULL,1),(4,'A%x','',  'HU','2024-03-01',NULL),(5,'név','n@x','',NULL,2);
INSERT INTO orders VALUES (1,1,10.5,'paid','2024-01-02'),(2,1,200,'sent',NULL),(3,2,5,'paid',NULL),(4,3,NULL,NULL,NULL),(5,9,55,'paid','x'),(6,2,12,'sent',NULL),(7,4,-3,'new',NULL),(8,1,0,'paid',NULL);
INSERT INTO order_items VALUES (1,1,1,2,3.5),(2,1,2,1,-7.25),(3,2,3,10,1),(4,5,1,NULL,2),(5,8,4,1,NULL);
INSERT INTO products VALUES (1,'Ann','toy',3.5),(2,'pen','office',1.25),(3,'cup',NULL,4),(4,'Zed','toy',NULL);
`

// authLog collects what SQLite's authorizer reported while recording.
type authLog struct {
	on     bool
	events []string
	reads  map[string]bool // lower-case table names
	funcs  map[string]bool
	writes map[string]bool
}

func (a *authLog) reset() {
	*a = authLog{on: true, reads: map[string]bool{}, funcs: map[string]bool{}, writes: map[string]bool{}}
}

func (a *authLog) fn(action msqlite.AuthorizerActionCode, arg1, arg2, dbName, _ string) msqlite.AuthorizerReturnCode {
	if !a.on {
		return msqlite.AuthorizerOK
	}
	switch action {
	case msqlite.AuthSelect:
	case msqlite.AuthRead:
		a.reads[dbName+"."+strings.ToLower(arg1)] = true
	case msqlite.AuthFunction:
		a.funcs[strings.ToLower(arg2)] = true
	case msqlite.AuthInsert, msqlite.AuthUpdate, msqlite.AuthDelete:
		a.writes[dbName+"."+strings.ToLower(arg1)] = true
	default:
		a.events = append(a.events, fmt.Sprintf("action %d", action))
	}
	return msqlite.AuthorizerOK
}

func openFixture(t *testing.T, log *authLog) *sql.Conn {
	t.Helper()
	ctx := context.Background()
	db, err := sql.Open("sqlite", "file:sqliteverifydiff?mode=memory&cache=private&_dqs=0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := conn.ExecContext(ctx, fixture); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 17; i++ {
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("CREATE TABLE t%d (a)", i)); err != nil {
			t.Fatal(err)
		}
	}
	err = conn.Raw(func(dc any) error {
		r, ok := dc.(msqlite.AuthorizerRegisterer)
		if !ok {
			return fmt.Errorf("driver connection has no authorizer")
		}
		return r.RegisterAuthorizer(log.fn)
	})
	if err != nil {
		t.Fatal(err)
	}
	return conn
}

// query runs sql and returns its rows as sorted text lines (row order is
// not part of the comparison unless the query orders, and even then ties
// may differ).
func query(ctx context.Context, conn *sql.Conn, q string) ([]string, error) {
	rows, err := conn.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		var sb strings.Builder
		for _, v := range vals {
			fmt.Fprintf(&sb, "%T:%v|", v, v)
		}
		out = append(out, sb.String())
	}
	sort.Strings(out)
	return out, rows.Err()
}

// write runs a write inside a transaction that is rolled back and returns
// the target table's rows as they were after the write.
func write(ctx context.Context, conn *sql.Conn, log *authLog, q, target string) ([]string, error) {
	if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
		return nil, err
	}
	defer conn.ExecContext(ctx, "ROLLBACK")
	log.on = true
	_, err := conn.ExecContext(ctx, q)
	log.on = false
	if err != nil {
		return nil, err
	}
	return query(ctx, conn, "SELECT * FROM "+target)
}

// TestDifferential runs every accepted read and table-write corpus case
// twice on a real SQLite (modernc.org/sqlite, double-quoted strings off):
// the normalized SQL and the original text must give the same rows (or
// both fail), and the authorizer must see reads and writes only of the
// verdict's tables and calls only of the verdict's functions.
func TestDifferential(t *testing.T) {
	log := &authLog{}
	conn := openFixture(t, log)
	ctx := context.Background()
	ran, bothFailed := 0, 0
	for _, c := range loadCorpus(t) {
		if !c.Accept || c.Mode == string(verifier.ModeFull) {
			continue
		}
		c := c
		t.Run(c.Name(), func(t *testing.T) {
			v, err := Verify(corpusCfg().Input(c))
			if err != nil {
				t.Fatal(err)
			}
			tables := map[string]bool{}
			for _, tb := range v.Tables {
				tables["main."+strings.ToLower(tb.Name)] = true
			}
			// SQLite implements the LIKE operator as a call of like(),
			// which its authorizer reports; the engine must allow it for
			// statements that use the operator.
			funcs := map[string]bool{"like": strings.Contains(v.NormalizedSQL, " LIKE ")}
			for _, f := range v.Functions {
				funcs[f] = true
			}
			var norm, orig []string
			var nerr, oerr error
			log.reset()
			if v.Mode == verifier.ModeTableWrite {
				log.on = false
				target := `main."` + v.Target.Name + `"`
				norm, nerr = write(ctx, conn, log, v.NormalizedSQL, target)
				for w := range log.writes {
					if !tables[w] {
						t.Errorf("authorizer saw a write of %s", w)
					}
				}
				logCopy := *log
				log.reset()
				log.on = false
				orig, oerr = write(ctx, conn, log, c.SQL, target)
				*log = logCopy
			} else {
				norm, nerr = query(ctx, conn, v.NormalizedSQL)
				log.on = false
				orig, oerr = query(ctx, conn, c.SQL)
				if len(log.writes) > 0 {
					t.Errorf("read caused writes: %v", log.writes)
				}
			}
			for r := range log.reads {
				if !tables[r] {
					t.Errorf("authorizer saw a read of %s", r)
				}
			}
			for f := range log.funcs {
				if !funcs[f] {
					t.Errorf("authorizer saw a call of %s", f)
				}
			}
			if len(log.events) > 0 {
				t.Errorf("authorizer saw other actions: %v", log.events)
			}
			switch {
			case nerr != nil && oerr != nil && (c.File == "columns.txt" || c.File == "growth.txt"):
				// The fixture has every column these cases name: a
				// failure is a misattribution.
				t.Fatalf("both sides failed: %v", nerr)
			case nerr != nil && oerr != nil:
				bothFailed++
				t.Logf("both sides failed: %v", nerr)
				return
			case nerr != nil:
				t.Fatalf("normalized SQL failed where the original ran: %v\n%s", nerr, v.NormalizedSQL)
			case oerr != nil:
				t.Fatalf("original failed where the normalized SQL ran: %v", oerr)
			}
			ran++
			if strings.Join(norm, "\n") != strings.Join(orig, "\n") {
				t.Errorf("rows differ\nnormalized %s\n%v\noriginal\n%v", v.NormalizedSQL, norm, orig)
			}
		})
	}
	t.Logf("compared %d cases; %d failed on both sides", ran, bothFailed)
	if ran < 100 {
		t.Errorf("only %d cases ran on both sides", ran)
	}
}

// TestTokenizerAgreesWithSQLite runs inputs whose validity mostly depends
// on tokenizing through the real SQLite: whatever SQLite runs the lexer
// must read, whatever the lexer refuses SQLite must refuse, and whatever
// Verify accepts SQLite must run.
func TestTokenizerAgreesWithSQLite(t *testing.T) {
	conn := openFixture(t, &authLog{})
	ctx := context.Background()
	for _, q := range []string{
		"SELECT 1 \v", "SELECT\v1", "SELECT \ufeff1", "SELECT 1 AS a\ufeffb",
		"SELECT x'0'", "SELECT x'0g'", "SELECT X'0A'", "SELECT 1x", "SELECT 1e", "SELECT 1e+", "SELECT 1e+5",
		"SELECT 'a", "SELECT [a", `SELECT "a`, "SELECT `a", "SELECT 1 /* x", "SELECT 1 -- x",
		"SELECT 0x1_0", "SELECT 0x", "SELECT .5", "SELECT 5.", "SELECT !1", "SELECT 1 == 1", "SELECT 1 <> 2",
		"SELECT 1 /*", "SELECT 1 /**/", "SELECT 1 /*/", "SELECT 1\x7f", "SELECT 1 ^ 2", "SELECT 1 \\",
		"SELECT 1 AS \u00e9", "SELECT 1 AS a$b", "SELECT 1 AS _x",
	} {
		_, lerr := lex(q)
		_, verr := Verify(verifier.Input{SQL: q})
		rows, qerr := conn.QueryContext(ctx, q)
		if qerr == nil {
			rows.Close()
		}
		if lerr != nil && qerr == nil {
			t.Errorf("%q: lexer refused what SQLite runs", q)
		}
		if verr == nil && qerr != nil {
			t.Errorf("%q: Verify accepted what SQLite refuses: %v", q, qerr)
		}
	}
}
