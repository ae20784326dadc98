package broker

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dbeast/dbeast/engines"
	emysql "github.com/dbeast/dbeast/engines/mysql"
	"github.com/dbeast/dbeast/verifier"
)

// schemaBound is one numeric bound of a tool's input schema.
type schemaBound struct {
	tool, path, keyword string
	value               int
}

// schemaBounds lists every numeric bound under s, at path.
func schemaBounds(tool, path string, s *jsonschema.Schema) []schemaBound {
	var out []schemaBound
	addInt := func(k string, p *int) {
		if p != nil {
			out = append(out, schemaBound{tool, path, k, *p})
		}
	}
	addFloat := func(k string, p *float64) {
		if p != nil {
			out = append(out, schemaBound{tool, path, k, int(*p)})
		}
	}
	addInt("minLength", s.MinLength)
	addInt("maxLength", s.MaxLength)
	addInt("minItems", s.MinItems)
	addInt("maxItems", s.MaxItems)
	addFloat("minimum", s.Minimum)
	addFloat("maximum", s.Maximum)
	addFloat("exclusiveMinimum", s.ExclusiveMinimum)
	addFloat("exclusiveMaximum", s.ExclusiveMaximum)
	if s.Items != nil {
		out = append(out, schemaBounds(tool, path+"[]", s.Items)...)
	}
	for name, p := range s.Properties {
		sub := name
		if path != "" {
			sub = path + "." + name
		}
		out = append(out, schemaBounds(tool, sub, p)...)
	}
	return out
}

// claims reports whether the row's schema entry e ("tool.path.keyword",
// "*" for any tool) names bound b.
func claims(e string, b schemaBound) bool {
	tool, rest, _ := strings.Cut(e, ".")
	i := strings.LastIndex(rest, ".")
	return (tool == "*" || tool == b.tool) && rest[:i] == b.path && rest[i+1:] == b.keyword
}

// registeredSchemas registers every tool on a fresh server and returns
// each one's enforced input schema by tool name.
func registeredSchemas(t *testing.T) map[string]*jsonschema.Schema {
	t.Helper()
	(&Broker{}).addTools(mcp.NewServer(&mcp.Implementation{Name: "limits"}, nil))
	out := map[string]*jsonschema.Schema{}
	for _, o := range ops {
		s, ok := argSchemas.Load(string(o.op))
		if !ok {
			t.Fatalf("%s has no input schema", o.op)
		}
		out[string(o.op)] = s.(*jsonschema.Schema)
	}
	return out
}

// limitTexts are the messages, reasons and descriptions that spell a
// limit, by the row they spell. Most are built from the row's constant;
// those that cannot be (constants of a typed string, struct tags) or live
// outside the broker are pinned to the row here.
func limitTexts() map[string][]string {
	catalogTag := reflect.TypeFor[CatalogSource]()
	cut, _ := catalogTag.FieldByName("SharedTablesCut")
	return map[string][]string{
		"SQL":                                 {verifier.Refuse(verifier.CodeInputTooLarge).Message},
		"physical tables":                     {verifier.Refuse(verifier.CodeTooManyTables).Message},
		"aliases":                             {verifier.Refuse(verifier.CodeTooManyAliases).Message},
		"relation references":                 {verifier.Refuse(verifier.CodeTooManyReferences).Message},
		"expanded references":                 {verifier.Refuse(verifier.CodeTooManyExpandedReferences).Message},
		"operation deadline":                  {string(engines.ReasonTimeout), string(emysql.ReasonNoTempCap)},
		"connection setup deadline":           {string(engines.ReasonSetupTimeout)},
		"cell":                                {string(engines.ReasonCellTooLarge)},
		"table columns":                       {string(engines.ReasonTooManyColumns)},
		"MCP response":                        {msgTooManyRows, msgAnswerTooLarge, cut.Tag.Get("jsonschema")},
		"document snapshot":                   {ErrBadDocument.Error(), string(problemTooLarge)},
		"all documents":                       {string(problemTotal)},
		"identifier":                          {ErrBadTable.Error()},
		"label":                               {msgLabelInvalid},
		"active sessions":                     {msgSessionsFull},
		"new sessions per window":             {msgBeginRateLimit},
		"new-session window":                  {msgBeginRateLimit},
		"idempotency keys per session":        {msgKeysExhausted},
		"all stored requests":                 {msgStoreFull},
		"undelivered requests per connection": {msgConnShare},
		"pending grants per session":          {msgPendingSession},
		"pending grants globally":             {msgPendingGlobal},
		"decision time":                       {msgDecisionExpired, msgSlotExpired},
		"retention of a completed request":    {msgResultExpired},
	}
}

// TestLimitTable ties every copy of a limit to its row of limitTable:
// each numeric bound of every tool's input schema is claimed by exactly
// one row's schema entry and equals the row's value (its lower bound for
// a min… keyword), no schema entry is stale, every row begin_session
// reports is in its answer, and every text that names a limit spells the
// row's value. Changing a tag, a constant or a message alone fails here.
func TestLimitTable(t *testing.T) {
	names := map[string]limitRow{}
	for _, r := range limitTable {
		if _, dup := names[r.name]; dup || r.name == "" {
			t.Errorf("row %q is empty or repeated", r.name)
		}
		names[r.name] = r
	}

	// The schemas.
	used := map[string]bool{}
	for tool, s := range registeredSchemas(t) {
		for _, b := range schemaBounds(tool, "", s) {
			var rows []string
			for _, r := range limitTable {
				for _, e := range r.schema {
					if !claims(e, b) {
						continue
					}
					used[e] = true
					rows = append(rows, r.name)
					want := r.value
					if strings.HasPrefix(b.keyword, "min") || strings.HasPrefix(b.keyword, "exclusiveMin") {
						want = r.least
					}
					if b.value != want {
						t.Errorf("%s %s %s is %d, limitTable's %q says %d", b.tool, b.path, b.keyword, b.value, r.name, want)
					}
				}
			}
			if len(rows) != 1 {
				t.Errorf("%s %s %s (%d) is claimed by %d rows of limitTable %v, want 1", b.tool, b.path, b.keyword, b.value, len(rows), rows)
			}
		}
	}
	for _, r := range limitTable {
		for _, e := range r.schema {
			if !used[e] {
				t.Errorf("limitTable's %q names %s, which no tool's schema has", r.name, e)
			}
		}
	}

	// begin_session's limits.
	v := reflect.ValueOf(contractLimits)
	for i := range v.NumField() {
		key, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		found := false
		for _, r := range limitTable {
			if r.key == key {
				found = true
				if int(v.Field(i).Int()) != r.value {
					t.Errorf("begin_session's %s is %d, limitTable's %q says %d", key, v.Field(i).Int(), r.name, r.value)
				}
			}
		}
		if !found {
			t.Errorf("begin_session's %s has no row", key)
		}
	}

	// The texts.
	for name, texts := range limitTexts() {
		r, ok := names[name]
		if !ok {
			t.Errorf("texts for %q, which limitTable lacks", name)
			continue
		}
		forms := []string{r.spelled()}
		if r.unit == unitSeconds {
			forms = append(forms, itoa(r.value)+"-second")
		}
		for _, text := range texts {
			if !slices.ContainsFunc(forms, func(f string) bool {
				return regexp.MustCompile(`(^|[^0-9])` + regexp.QuoteMeta(f) + `($|[^0-9])`).MatchString(text)
			}) {
				t.Errorf("%q does not spell limitTable's %q as %q", text, name, forms)
			}
		}
	}
}

// reSpelledLimit matches a number with a unit of size, time or length,
// as a text spells a limit ("4 MiB", "15 seconds", "30-second").
var reSpelledLimit = regexp.MustCompile(`\b[0-9]+[ -](KiB|MiB|GiB|seconds?|minutes?|hours?|characters)\b`)

// TestNoUntiedLimitText: no string literal (struct tags included) of the
// broker and its internal packages, the engines' shared package or the
// verifier's spells a limit
// unless limitTexts ties it to its row, so a new message with a number
// in it cannot drift from the constant unnoticed.
func TestNoUntiedLimitText(t *testing.T) {
	var tied []string
	for _, texts := range limitTexts() {
		tied = append(tied, texts...)
	}
	// The broker and its internal packages (what the split moves out of
	// it stays covered), the engines' shared package and the verifier's.
	internal, _ := filepath.Glob("internal/*")
	for _, dir := range append([]string{".", "../engines", "../verifier"}, internal...) {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 && !strings.HasPrefix(dir, "internal") {
			t.Fatalf("%s: no Go files (%v)", dir, err)
		}
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING || !reSpelledLimit.MatchString(lit.Value) {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				if !slices.ContainsFunc(tied, func(x string) bool { return strings.Contains(x, s) || strings.Contains(s, x) }) {
					t.Errorf("%s: %q spells a limit that limitTexts does not tie to limitTable", path, s)
				}
				return true
			})
		}
	}
}
