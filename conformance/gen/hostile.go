package gen

import (
	"math/rand"
	"strings"

	"github.com/dbeast/dbeast/verifier"
)

// mutation turns an allowed query q into a hostile variant. s is the
// fixture schema, sec the decoy table's qualified name.
type mutation func(r *rand.Rand, q, s, sec string) string

func pickOne(r *rand.Rand, xs ...string) string { return xs[r.Intn(len(xs))] }

// replaceFirst swaps the first FROM's table for repl, so the rest of q
// still reads as SQL.
func replaceSelect(q, expr string) string {
	i := strings.Index(strings.ToUpper(q), "SELECT")
	if i < 0 {
		return q
	}
	j := i + len("SELECT")
	return q[:j] + " " + expr + "," + q[j:]
}

// appendWhere adds cond to q as a UNION arm reading one column, which is
// valid whatever q's shape is only when q has one output column; the
// server then refuses or reads, and the harness judges either way.
func common(d verifier.Dialect) []mutation {
	return []mutation{
		// stacking
		func(r *rand.Rand, q, s, sec string) string {
			return q + pickOne(r, "; ", ";\n", " ;") + pickOne(r, "DELETE FROM "+s+".orders", "SELECT * FROM "+sec, "UPDATE "+s+".orders SET status = 'x'", "DROP TABLE "+s+".orders")
		},
		// comment tricks hiding a second read
		func(r *rand.Rand, q, s, sec string) string {
			return q + pickOne(r, " -- x\nUNION SELECT 1 FROM "+sec, " /* */ UNION SELECT 1 FROM "+sec, " /* -- */ ; SELECT 1 FROM "+sec, " /* /* */ UNION SELECT 1 FROM "+sec+" */", " --\x01 UNION SELECT 1 FROM "+sec)
		},
		// unterminated comment and string
		func(r *rand.Rand, q, s, sec string) string {
			return q + pickOne(r, " /* unterminated", " '", " \"", " `")
		},
		// locking clauses
		func(r *rand.Rand, q, s, sec string) string {
			return q + " " + pickOne(r, "FOR UPDATE", "FOR SHARE", "FOR NO KEY UPDATE", "FOR KEY SHARE", "LOCK IN SHARE MODE", "FOR UPDATE NOWAIT", "FOR UPDATE SKIP LOCKED")
		},
		// unqualified tables, including the decoy
		func(r *rand.Rand, q, s, sec string) string {
			return strings.Replace(q, s+".", "", 1)
		},
		func(r *rand.Rand, q, s, sec string) string {
			return replaceSelect(q, "(SELECT count(*) FROM "+pickOne(r, Secret, "orders", "\"secret\"")+")")
		},
		// SELECT INTO
		func(r *rand.Rand, q, s, sec string) string {
			return replaceFromInto(q, pickOne(r, " INTO "+s+".copy ", " INTO @x ", " INTO OUTFILE '/tmp/dbeast_conf_out' ", " INTO TEMP t "))
		},
		// window functions with a frame offset that is not a constant
		// (every dialect's safe mode accepts plain windows since issue 16)
		func(r *rand.Rand, q, s, sec string) string {
			return replaceSelect(q, "count(*) OVER (ORDER BY 1 ROWS BETWEEN "+pickOne(r, "id", "(SELECT 1)")+" PRECEDING AND CURRENT ROW)")
		},
		// recursive CTE
		func(r *rand.Rand, q, s, sec string) string {
			return "WITH RECURSIVE w(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM w WHERE n < 3) " + q
		},
		// self-naming CTE
		func(r *rand.Rand, q, s, sec string) string {
			return "WITH secret AS (SELECT * FROM secret) " + q
		},
		// other statements
		func(r *rand.Rand, q, s, sec string) string {
			return pickOne(r, "DELETE FROM "+s+".orders", "INSERT INTO "+s+".orders (id) VALUES (99)", "TABLE "+sec, "VALUES (1)", "EXPLAIN "+q, "BEGIN", "SET x = 1", "CREATE TABLE "+s+".z (a int)")
		},
	}
}

// replaceFromInto inserts into before the first FROM.
func replaceFromInto(q, into string) string {
	i := strings.Index(strings.ToUpper(q), " FROM ")
	if i < 0 {
		return q + into
	}
	return q[:i] + into + q[i:]
}

func dialectMutations(d verifier.Dialect) []mutation {
	switch d {
	case verifier.Postgres:
		return []mutation{
			func(r *rand.Rand, q, s, sec string) string {
				return replaceSelect(q, pickOne(r, "pg_sleep(0)", "set_config('a.b', 'c', false)", "nextval('x')", "pg_advisory_lock(1)",
					"txid_current()", "pg_current_xact_id()", "lo_import('/etc/hosts')", "pg_read_file('/etc/hosts')", "query_to_xml('select 1', true, true, '')",
					"dblink('x', 'y')", s+".lower('x')", "public.lower('x')", "pg_catalog.pg_sleep(0)", "\"LOWER\"('x')", "lower(VARIADIC ARRAY['x'])",
					"current_user", "now()", "random()", "greatest(1, 2)", "extract(year from now())", "substring('x' from 1)", "'a' SIMILAR TO 'b'",
					"pg_terminate_backend(0)", "txid_current_if_assigned()", "count(*) FILTER (WHERE true)"))
			},
			func(r *rand.Rand, q, s, sec string) string {
				return replaceSelect(q, pickOne(r, "1::text", "CAST(1 AS text)", "text 'x'", "date '2020-01-01'", "'x' COLLATE \"C\"", "1 OPERATOR(pg_catalog.+) 1", "$1", "B'101'", "U&'\\0041'", "E'\\x41'", "$$x$$", "$a$ ; $a$"))
			},
			func(r *rand.Rand, q, s, sec string) string {
				return replaceSelect(q, pickOne(r, "(SELECT count(*) FROM pg_catalog.pg_class)", "(SELECT count(*) FROM information_schema.tables)",
					"(SELECT count(*) FROM pg_authid)", "(SELECT count(*) FROM "+s+".orders AS o WHERE o.xmin IS NOT NULL)",
					"(SELECT c.row_to_json FROM (SELECT 1 AS a) AS c)", "(SELECT o.lower FROM "+s+".orders AS o LIMIT 1)",
					"(SELECT count(*) FROM U&\""+s+"\".\"secret\")", "(SELECT count(*) FROM U&\"d\\0062east_conf\".orders)",
					"(SELECT count(*) FROM ONLY "+s+".orders)", "(SELECT count(*) FROM "+s+".orders TABLESAMPLE SYSTEM (1))",
					"(SELECT count(*) FROM generate_series(1, 2))", "(SELECT count(*) FROM ROWS FROM (generate_series(1, 2)))",
					"(SELECT o FROM "+s+".orders AS o LIMIT 1)"))
			},
		}
	case verifier.MySQL:
		return []mutation{
			func(r *rand.Rand, q, s, sec string) string {
				return replaceSelect(q, pickOne(r, "sleep(0)", "benchmark(1, 1)", "get_lock('x', 0)", "load_file('/etc/hosts')", "user()", "database()", "version()",
					"count (*)", "@x", "@@version", "uuid()", "rand()", "now()", "release_lock('x')", "last_insert_id()", "found_rows()", s+".lower('x')"))
			},
			func(r *rand.Rand, q, s, sec string) string {
				return replaceSelect(q, pickOne(r, "CAST(1 AS CHAR)", "CONVERT(1, CHAR)", "BINARY 'x'", "_binary'x'", "'x' COLLATE utf8mb4_bin", "N'x'", "x'41'", "0x41", "b'1'",
					"/*! (SELECT count(*) FROM "+sec+") */ 1", "/*!50000 1 */ 1", "/*M! (SELECT token FROM "+sec+" LIMIT 1) */ 1", "/*!99999 1 */ 1", "'\\' UNION SELECT 1 FROM "+sec+" -- '"))
			},
			func(r *rand.Rand, q, s, sec string) string {
				return replaceSelect(q, pickOne(r, "(SELECT count(*) FROM mysql.user)", "(SELECT count(*) FROM information_schema.tables)", "(SELECT count(*) FROM performance_schema.threads)",
					"(SELECT count(*) FROM sys.version)", "(SELECT count(*) FROM other_db.orders)", "(SELECT count(*) FROM "+s+".orders USE INDEX (PRIMARY))",
					"(SELECT count(*) FROM "+s+".orders AS OF TIMESTAMP now())", "(SELECT count(*) FROM "+s+".orders FOR SYSTEM_TIME ALL)"))
			},
			func(r *rand.Rand, q, s, sec string) string {
				return pickOne(r, "SELECT /*+ MAX_EXECUTION_TIME(1) */ ", "SELECT HIGH_PRIORITY ", "SELECT SQL_NO_CACHE ", "SELECT STRAIGHT_JOIN ", "SELECT SQL_CALC_FOUND_ROWS ") + strings.TrimPrefix(strings.TrimPrefix(q, "SELECT "), "select ")
			},
			func(r *rand.Rand, q, s, sec string) string {
				return q + pickOne(r, " # x\nUNION SELECT 1 FROM "+sec, " PROCEDURE ANALYSE()", " INTO DUMPFILE '/tmp/dbeast_conf_dump'", " OFFSET 0 ROWS FETCH FIRST 1 ROWS ONLY")
			},
		}
	}
	return []mutation{
		func(r *rand.Rand, q, s, sec string) string {
			return replaceSelect(q, pickOne(r, "randomblob(1)", "load_extension('x')", "sqlite_version()", "changes()", "last_insert_rowid()", "random()",
				"total_changes()", "printf('%s', 1)", "like('a', 'b')", "glob('a', 'b')", "'a' REGEXP 'b'", "'a' MATCH 'b'", "'a' GLOB 'b'", "\"LOWER\"('x')", "main.lower('x')"))
		},
		func(r *rand.Rand, q, s, sec string) string {
			return replaceSelect(q, pickOne(r, "CAST(1 AS TEXT)", "'x' COLLATE NOCASE", "?", "?1", ":x", "@x", "$x", "x'41'", "\"dq\""))
		},
		func(r *rand.Rand, q, s, sec string) string {
			return replaceSelect(q, pickOne(r, "(SELECT count(*) FROM main.sqlite_master)", "(SELECT count(*) FROM sqlite_schema)", "(SELECT count(*) FROM temp.sqlite_master)",
				"(SELECT count(*) FROM pragma_table_info('orders'))", "(SELECT count(*) FROM main.pragma_table_info('secret'))", "(SELECT count(*) FROM json_each('[1]'))",
				"(SELECT count(*) FROM main.orders INDEXED BY x)", "(SELECT count(*) FROM main.orders NOT INDEXED)", "(SELECT 1 WHERE 1 IN main.secret)",
				"(SELECT count(*) FROM main.\u017fecret)", "(SELECT o.rowid FROM main.orders AS o LIMIT 1)"))
		},
		func(r *rand.Rand, q, s, sec string) string {
			return pickOne(r, "ATTACH 'x.db' AS x", "PRAGMA writable_schema = 1", "VACUUM INTO '/tmp/dbeast_conf_vac'", "DETACH x", "SELECT 1; ATTACH 'y' AS y")
		},
	}
}

// hostile returns one hostile mutation of a query drawn from r.
func hostile(r *rand.Rand, st style) string {
	q := query(r, st)
	ms := append(common(st.dialect), dialectMutations(st.dialect)...)
	sec := st.schema + "." + Secret
	return ms[r.Intn(len(ms))](r, q, st.schema, sec)
}

// Hostile is the generator of hostile mutations for dialect d over
// the fixture tables in schema.
func Hostile(d verifier.Dialect, schema string) Gen {
	st := styleFor(d, schema)
	return func(r *rand.Rand) string { return hostile(r, st) }
}

// Sample returns n deterministic cases for dialect d drawn with seed:
// mostly allowed reads (analytics, widened and deep ones among them), one
// in four hostile. The same seed gives the same
// texts, so a CI slice is reproducible.
func Sample(d verifier.Dialect, schema string, seed int64, n int) []string {
	next := Sampler(d, schema, seed)
	out := make([]string, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, next())
	}
	return out
}

// Sampler returns the cases of Sample one at a time: the i-th call
// returns Sample's i-th text for the same seed, for any n. A long run
// draws its cases as it goes instead of holding a million texts.
func Sampler(d verifier.Dialect, schema string, seed int64) func() string {
	r := rand.New(rand.NewSource(seed))
	q, h, sc, an := Query(d, schema), Hostile(d, schema), Scoping(d, schema), Analytics(d, schema)
	wi, dp, cl := Widened(d, schema), Deep(d, schema), Clauses(d, schema)
	i := 0
	return func() string {
		g := q
		switch i % 4 {
		case 1:
			g = sc
		case 3:
			g = h
		}
		switch {
		case cl != nil && i%16 == 4: // clauses.go: one in 16
			g = cl
		case an != nil && i%8 == 2: // *_analytics.go: one in eight
			g = an
		case i%64 == 6: // deep.go: one in 64
			g = dp
		case wi != nil && i%8 == 6: // widened.go: the rest of one in eight
			g = wi
		}
		i++
		return g(r)
	}
}
