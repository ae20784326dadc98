package sqlite

import "testing"

func TestFirstStatement(t *testing.T) {
	cases := []struct {
		in, stmt    string
		more, empty bool
	}{
		{"SELECT 1", "SELECT 1", false, false},
		{"SELECT 1;", "SELECT 1;", false, false},
		{"SELECT 1;  -- c\n /* d */ ;;", "SELECT 1;", false, false},
		{"SELECT 1; SELECT 2", "SELECT 1;", true, false},
		{"SELECT ';'; x", "SELECT ';';", true, false},
		{`SELECT "a;b"`, `SELECT "a;b"`, false, false},
		{"SELECT [a;b], `c;d`", "SELECT [a;b], `c;d`", false, false},
		{"SELECT 'it''s;'", "SELECT 'it''s;'", false, false},
		{"SELECT 1 -- ; DROP TABLE a\n", "SELECT 1 -- ; DROP TABLE a\n", false, false},
		{"SELECT 1 /* ; */", "SELECT 1 /* ; */", false, false},
		{"SELECT 1 /* unterminated ;", "SELECT 1 /* unterminated ;", false, false},
		{"CREATE TRIGGER t AFTER INSERT ON a BEGIN DELETE FROM b; DELETE FROM c; END; SELECT 1",
			"CREATE TRIGGER t AFTER INSERT ON a BEGIN DELETE FROM b; DELETE FROM c; END;", true, false},
		{"create temp trigger t after insert on a begin select case when 1 then 2 end; end",
			"create temp trigger t after insert on a begin select case when 1 then 2 end; end", false, false},
		{"EXPLAIN CREATE TRIGGER t AFTER INSERT ON a BEGIN SELECT 1; END; x", "EXPLAIN CREATE TRIGGER t AFTER INSERT ON a BEGIN SELECT 1; END;", true, false},
		{"CREATE TABLE trigger_log (x); DELETE FROM a", "CREATE TABLE trigger_log (x);", true, false},
		{";;SELECT 1;", ";;SELECT 1;", false, false},
		{"", "", false, true},
		{" ; -- x\n/* y */", "", false, true},
	}
	for _, c := range cases {
		stmt, more, empty := firstStatement(c.in)
		if stmt != c.stmt || more != c.more || empty != c.empty {
			t.Errorf("firstStatement(%q) = %q, %v, %v; want %q, %v, %v", c.in, stmt, more, empty, c.stmt, c.more, c.empty)
		}
	}
}

func TestFirstKeyword(t *testing.T) {
	for in, want := range map[string]string{
		"INSERT INTO a": "insert", " -- c\n/* x */ Update a": "update", "WITH x AS (SELECT 1) DELETE": "with",
		"(SELECT 1)": "", "": "", "/* open": "",
	} {
		if got := firstKeyword(in); got != want {
			t.Errorf("firstKeyword(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzFirstStatement checks that the split never panics, that the first
// statement is a prefix, and that splitting the remainder of a text with
// one statement finds nothing more.
func FuzzFirstStatement(f *testing.F) {
	for _, s := range []string{"SELECT 1; SELECT 2", "CREATE TRIGGER t BEGIN x; END; y", "'a;", "/*", "--;\n;", "[;]`;`\";\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		stmt, more, empty := firstStatement(s)
		if len(stmt) > len(s) || s[:len(stmt)] != stmt {
			t.Fatalf("not a prefix: %q of %q", stmt, s)
		}
		if empty && (stmt != "" || more) {
			t.Fatalf("empty with statement %q more=%v", stmt, more)
		}
		if !more && !empty {
			if _, more2, empty2 := firstStatement(s[len(stmt):]); more2 || !empty2 {
				t.Fatalf("remainder of %q holds a statement", s)
			}
		}
	})
}
