package verifier

// The pre-parse bound. pg_query is C: its parser (bison) keeps its own
// heap stack, capped at 10,000 entries, but the serialiser that turns the
// raw tree into protobuf recurses once per tree level on the thread's C
// stack, about 360 bytes a level for an operator. A left-associative
// chain (1-1-1-…) costs bison nothing and builds a tree one level per
// operator, so 24,000 operators, 48 KiB of text, overflowed an 8 MiB
// stack and killed the process with SIGSEGV before any Go code could
// refuse it. TiDB's parser (goyacc) and our SQLite parser are Go, whose
// stacks grow to 1 GB, so they survived the same text by a wide margin,
// but with no bound that said so (measured without this bound, 32,750
// operators or parentheses, the most 64 KiB holds, needed between 1 and
// 4 MiB of Go stack in either: goyacc's stack is on the heap, and our
// SQLite parser stops nesting at 800 levels). CheckDepth is that bound,
// for every dialect, before any parser sees the text: one pass over the
// bytes, no recursion, memory proportional to the nesting it admits.
//
// The bounds, in one table (docs/safe-sql.md, "Bounds before parsing",
// shows the same numbers and why):
//
//	MaxNesting    800  open (, [ and CASE at once
//	MaxTreeDepth  800  estimated tree depth: nesting plus operators
//
// Both are 4×MaxDepth: the walkers refuse a tree deeper than MaxDepth
// (200) anyway, and the printers' normalized SQL, which the verifiers
// and their property tests verify again, spends at most two levels of the
// estimate on each tree level (an operator and a parenthesis), so nothing
// any verifier accepts is refused here except redundant parentheses or
// prefix operators nested hundreds deep. At the bounds pg_query needs at
// most about 1 MiB of C stack (measured: 800 operators about 300 KiB; 800
// nested subqueries, the costliest form, between 512 KiB and 1 MiB), an
// eighth of the 8 MiB thread stack glibc gives Go's threads by default
// (RLIMIT_STACK). Lists (IN lists, select lists, arguments,
// VALUES rows) and the token count have no bound of their own beyond the
// 64 KiB of MaxSQLBytes: every parser reads a list iteratively and builds
// it flat, so a list costs no depth.
const (
	// MaxNesting bounds the parentheses, brackets and CASE … END open at
	// once.
	MaxNesting = 4 * MaxDepth
	// MaxTreeDepth bounds the estimated depth of the parse tree: per
	// nesting level one, plus, within one list item, one per operator
	// character and per operator keyword (depthKeywords), plus the
	// deepest nested group of the item. It is built never to
	// underestimate a tree the parsers build (every form of package fuzz
	// is checked), so it bounds the C recursion in pg_query.
	MaxTreeDepth = 4 * MaxDepth
)

// depthKeywords are the words that make a tree node over the operand
// before or after them (binary, prefix and postfix operators, set
// operations, joins). Each counts as one level. AND and OR are among them
// except for PostgreSQL, whose grammar flattens a chain of either into
// one node with a list of arguments (makeAndExpr, makeOrExpr): there they
// separate list items, plus up to two levels for mixing them.
var depthKeywords = map[string]bool{
	"and": true, "or": true, "not": true, "xor": true, "is": true, "isnull": true,
	"notnull": true, "like": true, "ilike": true, "similar": true, "glob": true,
	"regexp": true, "rlike": true, "match": true, "between": true, "in": true,
	"escape": true, "collate": true, "div": true, "mod": true, "at": true,
	"overlaps": true, "union": true, "intersect": true, "except": true,
	"minus": true, "join": true, "binary": true, "interval": true,
	"member": true, "sounds": true, "operator": true, "exists": true,
	"any": true, "all": true, "some": true, "distinct": true,
}

// depthFrame is one open nesting level of CheckDepth.
type depthFrame struct {
	caseLevel bool // CASE … END rather than a bracket
	ops       int  // depth levels the current list item's operators add
	child     int  // the deepest group nested in the current item
	best      int  // the deepest finished item of this level
	bools     bool // PostgreSQL: AND or OR separated items here
	// between counts BETWEENs of the current item still waiting for their
	// AND, which belongs to them rather than separating items.
	between int
}

// item is the estimated depth of the frame's current list item.
func (f *depthFrame) item() int { return f.ops + f.child }

// finish ends the current list item.
func (f *depthFrame) finish() {
	f.best = max(f.best, f.item())
	f.ops, f.child, f.between = 0, 0, 0
}

// depth is the estimated depth of the frame's whole group.
func (f *depthFrame) depth() int {
	d := 1 + max(f.best, f.item())
	if f.bools {
		d += 2
	}
	if f.caseLevel {
		d++ // CaseExpr over CaseWhen
	}
	return d
}

// CheckDepth refuses, with too_deep, SQL text whose nesting or estimated
// tree depth exceeds MaxNesting or MaxTreeDepth, reading it as dialect
// d's lexer does (string literals, quoted identifiers, comments,
// PostgreSQL's dollar quotes and E'…' strings) so that nothing a parser
// reads as code is skipped. Every dialect's Verify calls it, in every
// mode, after CheckText and before its parser. It allocates only the
// frames of open nesting levels.
func CheckDepth(d Dialect, sql string) error {
	stack := make([]depthFrame, 1, 16)
	top := &stack[0]
	// The root frame is the statement, not a group: it adds no level.
	tooDeep := func() bool { return top.item()+len(stack)-1 > MaxTreeDepth }
	push := func(caseLevel bool) bool {
		if len(stack) > MaxNesting {
			return false
		}
		stack = append(stack, depthFrame{caseLevel: caseLevel})
		top = &stack[len(stack)-1]
		return true
	}
	pop := func() {
		if len(stack) == 1 {
			return // unbalanced: the parser refuses it
		}
		dd := top.depth()
		stack = stack[:len(stack)-1]
		top = &stack[len(stack)-1]
		top.child = max(top.child, dd)
	}
	n := len(sql)
	// operand reports whether the last token ended an operand (a name,
	// literal, closing bracket or END), so that the next word may be an
	// infix keyword; only END's reading depends on it.
	operand := false
	for i := 0; i < n; {
		c := sql[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
			continue // whitespace changes nothing
		case c == '-' && i+1 < n && sql[i+1] == '-' && (d != MySQL || i+2 == n || sql[i+2] <= ' '):
			// A line comment. MySQL needs a space or control character
			// after "--"; otherwise it is two minus signs.
			for i < n && sql[i] != '\n' {
				i++
			}
			continue
		case c == '#' && d == MySQL:
			for i < n && sql[i] != '\n' {
				i++
			}
			continue
		case c == '/' && i+1 < n && sql[i+1] == '*':
			i = skipBlockComment(sql, i, d == Postgres)
			continue
		case c == '\'' || c == '"' || (c == '`' && d != Postgres):
			i = skipQuoted(sql, i+1, c, false)
			operand = true
		case c == '[' && d == SQLite:
			for i++; i < n && sql[i] != ']'; i++ {
			}
			i++
			operand = true
		case (c == 'e' || c == 'E') && d == Postgres && i+1 < n && sql[i+1] == '\'':
			i = skipQuoted(sql, i+2, '\'', true)
			operand = true
		case c == '$' && d == Postgres && dollarTagEnd(sql, i) > 0:
			end := dollarTagEnd(sql, i)
			tag := sql[i:end]
			i = end
			for i < n && !(sql[i] == '$' && len(sql)-i >= len(tag) && sql[i:i+len(tag)] == tag) {
				i++
			}
			i += len(tag)
			operand = true
		case c >= '0' && c <= '9' || c == '.' && i+1 < n && sql[i+1] >= '0' && sql[i+1] <= '9':
			i = skipNumber(sql, i)
			operand = true
		case isWordByte(c):
			var lw [12]byte // the longest keyword that matters is "intersect"
			j := i
			for j < n && (isWordByte(sql[j]) || sql[j] >= '0' && sql[j] <= '9') {
				j++
			}
			w := sql[i:j]
			i = j
			if len(w) > len(lw) {
				operand = true // longer than every keyword: a name
				break
			}
			l := lw[:len(w)]
			for k := range l {
				l[k] = w[k] | 0x20 // ASCII lower case; the keywords are letters
			}
			// Comparisons and map lookups of string(l) do not allocate.
			// A keyword that joins or opens expressions leaves an operand
			// due; any other word is a name or literal, or ends one.
			wasOperand := operand
			operand = false
			switch {
			case string(l) == "case":
				if !push(true) {
					return RefuseAt(CodeTooDeep, max(i-1, 0)) // where the bound was passed
				}
			case string(l) == "end" && top.caseLevel && wasOperand:
				// After an operand END closes the CASE; where an operand
				// is due it is a name (MySQL does not reserve it).
				pop()
				operand = true
			case (string(l) == "when" || string(l) == "then" || string(l) == "else") && top.caseLevel:
				top.finish()
			case string(l) == "and" && top.between > 0:
				top.between-- // x BETWEEN a AND b: right-recursive in every grammar
				top.ops++
			case (string(l) == "and" || string(l) == "or") && d == Postgres:
				top.finish()
				top.bools = true
			case depthKeywords[string(l)]:
				top.ops++
				if string(l) == "between" {
					top.between++
				}
			default:
				operand = true
			}
		case c == '(' || c == '[':
			i++
			if !push(false) {
				return RefuseAt(CodeTooDeep, max(i-1, 0)) // where the bound was passed
			}
			operand = false
		case c == ')' || c == ']':
			i++
			for top.caseLevel && len(stack) > 1 {
				pop() // a CASE left open: close it with the bracket
			}
			pop()
			operand = true
		case c == ',' || c == ';':
			i++
			top.finish()
			operand = false
		case c == '.' || c == '$' || c == '?' && d != Postgres:
			i++ // qualified names, parameters
		default:
			// An operator character: each may be an operator of its own
			// (PostgreSQL splits "+-" runs; MySQL reads "--1" as two).
			i++
			top.ops++
			operand = false
		}
		if tooDeep() {
			return RefuseAt(CodeTooDeep, max(i-1, 0)) // where the bound was passed
		}
	}
	for len(stack) > 1 {
		pop()
	}
	if top.depth()-1 > MaxTreeDepth {
		return RefuseAt(CodeTooDeep, len(sql))
	}
	return nil
}

// isWordByte reports whether c can start an identifier or keyword: ASCII
// letters, underscore, and every byte of a multi-byte UTF-8 character
// (the dialects all allow non-ASCII letters in names). $ continues a
// PostgreSQL or MySQL identifier and starts an SQLite variable; it is
// handled as a word byte too, except where it opens a dollar quote.
func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80 || c == '$'
}

// skipQuoted returns the offset after the quoted text that starts at i
// (just after its opening quote q). A doubled quote stands for itself;
// with backslash (PostgreSQL's E'…' strings) a backslash escapes the next
// byte. Unterminated text runs to the end, where the parser refuses it.
func skipQuoted(sql string, i int, q byte, backslash bool) int {
	for i < len(sql) {
		switch sql[i] {
		case '\\':
			if backslash {
				i += 2
				continue
			}
		case q:
			if i+1 < len(sql) && sql[i+1] == q {
				i += 2
				continue
			}
			return i + 1
		}
		i++
	}
	return len(sql)
}

// skipBlockComment returns the offset after the /* comment at i.
// PostgreSQL nests them; MySQL and SQLite end at the first */. An
// unterminated comment runs to the end.
func skipBlockComment(sql string, i int, nested bool) int {
	level := 0
	for i < len(sql) {
		switch {
		case sql[i] == '/' && i+1 < len(sql) && sql[i+1] == '*':
			level++
			i += 2
			continue
		case sql[i] == '*' && i+1 < len(sql) && sql[i+1] == '/':
			level--
			i += 2
			if level == 0 || !nested {
				return i
			}
			continue
		}
		i++
	}
	return len(sql)
}

// dollarTagEnd returns the offset after the PostgreSQL dollar-quote
// opener ($$ or $tag$) at i, or 0 when there is none there ($1 is a
// parameter; a $ inside an identifier was consumed with it).
func dollarTagEnd(sql string, i int) int {
	j := i + 1
	for j < len(sql) && (isWordByte(sql[j]) && sql[j] != '$' || j > i+1 && sql[j] >= '0' && sql[j] <= '9') {
		j++
	}
	if j < len(sql) && sql[j] == '$' {
		return j + 1
	}
	return 0
}

// skipNumber returns the offset after the numeric literal at i: digits and
// dots, a decimal exponent with its sign, then any letters and digits
// (hexadecimal and other prefixed forms, which take no sign).
func skipNumber(sql string, i int) int {
	n := len(sql)
	decimal := !(sql[i] == '0' && i+1 < n && sql[i+1]|0x20 >= 'a' && sql[i+1]|0x20 <= 'z')
	for i < n && (sql[i] >= '0' && sql[i] <= '9' || sql[i] == '.' || sql[i] == '_') {
		i++
	}
	if decimal && i+1 < n && sql[i]|0x20 == 'e' {
		j := i + 1
		if sql[j] == '+' || sql[j] == '-' {
			j++
		}
		if j < n && sql[j] >= '0' && sql[j] <= '9' {
			i = j
		}
	}
	for i < n && (isWordByte(sql[i]) && sql[i] != '$' || sql[i] >= '0' && sql[i] <= '9') {
		i++
	}
	return i
}
