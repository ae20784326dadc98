package conformance

import (
	"go/ast"
	"go/token"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// sqliteParseFiles are the files of verifier/sqlite's own parser: SQLite
// has no parser library, so what safe mode accepts is what this parser
// builds (and the walk then checks).
var sqliteParseFiles = []string{"parse.go", "funcs.go"}

// sqliteKeywords returns the keywords and keyword phrases the parser
// reads or builds: every upper-case string literal of its files ("UNION
// ALL", "NULLS FIRST", "ROWS", "EXCLUDE", …), and its operators: every
// literal of operator characters.
func sqliteKeywords(t *testing.T) (keywords, ops []string) {
	t.Helper()
	kw, op := map[string]bool{}, map[string]bool{}
	for _, f := range verifierSource(t, "sqlite", sqliteParseFiles...) {
		ast.Inspect(f, func(n ast.Node) bool {
			b, ok := n.(*ast.BasicLit)
			if !ok || b.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(b.Value)
			switch {
			case err != nil:
			case keywordLit.MatchString(s):
				kw[s] = true
			case opLit.MatchString(s):
				op[s] = true
			}
			return true
		})
	}
	return sortedKeys(kw), sortedKeys(op)
}

var (
	keywordLit = regexp.MustCompile(`^[A-Z][A-Z_]*( [A-Z][A-Z_]*)*$`)
	opLit      = regexp.MustCompile(`^[-+*/%<>=!|&~]+$`)
	// sqlToken splits SQL text, quoted strings and names dropped, into
	// words and operators (longest operator first).
	sqlToken = regexp.MustCompile(`'(?:[^']|'')*'|"(?:[^"]|"")*"|` + "`[^`]*`" + `|\[[^\]]*\]|[A-Za-z_][A-Za-z_0-9]*|->>|->|<<|>>|<=|>=|!=|<>|==|\|\||[-+*/%<>=!|&~]`)
)

// sqliteLiterals are the literal kinds of the parser's tree (the litKind
// constants of ast.go), each with a pattern that finds it in SQL text.
var sqliteLiterals = map[string]*regexp.Regexp{
	"litInt":    regexp.MustCompile(`(^|[^\w.'])\d+([^\w.]|$)`),
	"litFloat":  regexp.MustCompile(`\d\.\d`),
	"litString": regexp.MustCompile(`'`),
	"litBlob":   regexp.MustCompile(`(?i)\bx'[0-9a-f]*'`),
	"litNull":   regexp.MustCompile(`(?i)\bNULL\b`),
	"litBool":   regexp.MustCompile(`(?i)\b(TRUE|FALSE)\b`),
}

// sqliteRefused are keywords the parser reads only to refuse what they
// begin, each with a read that shows it refused.
var sqliteRefused = map[string]string{
	"DELETE":       "WITH c AS (DELETE FROM customers RETURNING id) SELECT * FROM c",
	"INSERT":       "WITH c AS (INSERT INTO customers (id) VALUES (1) RETURNING id) SELECT * FROM c",
	"UPDATE":       "WITH c AS (UPDATE customers SET id = 1 RETURNING id) SELECT * FROM c",
	"REPLACE":      "WITH c AS (REPLACE INTO customers (id) VALUES (1) RETURNING id) SELECT * FROM c",
	"VALUES":       "VALUES (1)",
	"RECURSIVE":    "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 3) SELECT n FROM c",
	"INDEXED":      "SELECT a.id FROM customers AS a INDEXED BY sqlite_autoindex_customers_1",
	"COLLATE":      "SELECT a.id FROM customers AS a ORDER BY a.name COLLATE NOCASE",
	"GLOB":         "SELECT a.id FROM customers AS a WHERE a.name GLOB 'A*'",
	"REGEXP":       "SELECT a.id FROM customers AS a WHERE a.name REGEXP 'A'",
	"MATCH":        "SELECT a.id FROM customers AS a WHERE a.name MATCH 'A'",
	"RAISE":        "SELECT RAISE(IGNORE) FROM customers AS a",
	"TEMP":         "SELECT a.id FROM temp.customers AS a",
	"TEMPORARY":    "SELECT a.id FROM temporary.customers AS a",
	"MATERIALIZED": "WITH c AS MATERIALIZED (SELECT id FROM customers) SELECT c.id FROM c",
}

// sqliteConstructs checks SQLite's construct coverage: the keywords,
// phrases, operators and literal kinds of the parser, found in the
// accepted cases' text and in the normalized text the parser's tree
// prints (which spells every accepted construct one way).
func sqliteConstructs(t *testing.T, cases []acceptedCase) {
	words, ops := map[string]bool{}, map[string]bool{}
	var texts []string
	for _, c := range cases {
		for _, text := range []string{c.in.SQL, c.normalized} {
			toks := sqlToken.FindAllString(text, -1)
			var prev string
			for _, tk := range toks {
				switch {
				case opLit.MatchString(tk):
					ops[tk] = true
					prev = ""
				case keywordLit.MatchString(strings.ToUpper(tk)) && tk[0] != '\'' && tk[0] != '"':
					w := strings.ToUpper(tk)
					words[w] = true
					if prev != "" {
						words[prev+" "+w] = true
					}
					prev = w
				default:
					prev = ""
				}
			}
			texts = append(texts, text)
		}
	}
	keywords, operators := sqliteKeywords(t)
	var accepted []string
	for _, k := range keywords {
		if _, ok := sqliteRefused[k]; !ok {
			accepted = append(accepted, k)
		}
	}
	mustHave(t, "sqliteRefused entries the parser does not name", sortedKeys(keySet(sqliteRefused)), func(k string) bool { return contains(keywords, k) })
	checkRefused(t, "sqlite", sqliteRefused)

	f, err := parseFile(verifierDir + "/sqlite/ast.go")
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	ast.Inspect(f, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok {
			for _, id := range vs.Names {
				if strings.HasPrefix(id.Name, "lit") {
					kinds = append(kinds, id.Name)
				}
			}
		}
		return true
	})
	mustHave(t, "literal kinds of ast.go that sqliteLiterals has no pattern for", kinds, func(k string) bool { return sqliteLiterals[k] != nil })

	checkCoverage(t, "sqlite", []constructs{
		{"keywords", accepted, func(k string) bool { return words[k] }},
		{"operators", operators, func(o string) bool { return ops[o] }},
		{"literal kinds", kinds, func(k string) bool {
			re := sqliteLiterals[k]
			for _, s := range texts {
				if re != nil && re.MatchString(s) {
					return true
				}
			}
			return false
		}},
	}, sqliteExceptions)
}

// sqliteExceptions are the SQLite constructs the parser accepts that the
// slice does not generate, each with why and a read the verifier accepts.
var sqliteExceptions = map[string]exception{}

func keySet(m map[string]string) map[string]bool {
	out := map[string]bool{}
	for k := range m {
		out[k] = true
	}
	return out
}
