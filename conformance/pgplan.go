package conformance

import (
	"encoding/json"
	"regexp"
	"strings"
)

// planFacts is what EXPLAIN (VERBOSE, FORMAT JSON) shows: the relations
// scanned (schema.name), and every function name written as a call in an
// expression (schema-qualified when the server qualifies it, which it
// does for everything outside search_path = pg_catalog).
type planFacts struct {
	relations map[string]bool
	functions map[string]bool
	// casts maps each column the plan casts to a date or time type (by
	// its name, without the alias) to the type as the server prints it.
	casts map[string]string
}

// planCast is a column cast to a date or time type as ruleutils deparses
// it: (col)::type or (alias.col)::type.
var planCast = regexp.MustCompile(`\((?:[a-z_][a-z0-9_$]*\.)?([a-z_][a-z0-9_$]*)\)::(date|time(?:\(\d\))? with(?:out)? time zone|timestamp(?:\(\d\))? with(?:out)? time zone)`)

// pgPlanFacts walks an EXPLAIN JSON document.
func pgPlanFacts(doc []byte) (*planFacts, error) {
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return nil, err
	}
	f := &planFacts{relations: map[string]bool{}, functions: map[string]bool{}, casts: map[string]string{}}
	f.walk(v)
	return f, nil
}

// nameKeys are plan keys whose values are names, not expressions.
var nameKeys = map[string]bool{
	"Node Type": true, "Alias": true, "Schema": true, "Relation Name": true,
	"Function Name": true, "CTE Name": true, "Subplan Name": true,
	"Parent Relationship": true, "Strategy": true, "Join Type": true,
	"Scan Direction": true, "Index Name": true, "Partial Mode": true,
	"Operation": true, "Command": true, "Sort Method": true, "Setop": true,
}

func (f *planFacts) walk(v any) {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			f.walk(e)
		}
	case map[string]any:
		schema, _ := x["Schema"].(string)
		if rel, ok := x["Relation Name"].(string); ok {
			f.relations[schema+"."+rel] = true
		}
		if fn, ok := x["Function Name"].(string); ok {
			f.functions[schema+"."+fn] = true
		}
		for k, e := range x {
			if nameKeys[k] {
				continue
			}
			switch s := e.(type) {
			case string:
				f.calls(s)
			case []any:
				for _, item := range s {
					if str, ok := item.(string); ok {
						f.calls(str)
					} else {
						f.walk(item)
					}
				}
			default:
				f.walk(e)
			}
		}
	}
}

// calls records every name(…) call in a deparsed expression. String
// literals are skipped; an all-upper-case bare word before a parenthesis
// is SQL syntax the deparser writes in capitals (COALESCE, NULLIF, CASE,
// ANY, ROW, GREATEST…), not a function name, since ruleutils writes
// function names as stored (lower case) or quoted.
func (f *planFacts) calls(s string) {
	for _, m := range planCast.FindAllStringSubmatch(s, -1) {
		f.casts[m[1]] = m[2]
	}
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == '\'':
			j := i + 1
			for j < len(s) {
				if s[j] == '\'' {
					if j+1 < len(s) && s[j+1] == '\'' {
						j += 2
						continue
					}
					break
				}
				j++
			}
			i = j + 1
		case c == '"' || isIdentStart(c):
			start := i
			var parts []string
			quotedAny := false
			for {
				var part string
				if i < len(s) && s[i] == '"' {
					j := i + 1
					for j < len(s) {
						if s[j] == '"' {
							if j+1 < len(s) && s[j+1] == '"' {
								j += 2
								continue
							}
							break
						}
						j++
					}
					part = strings.ReplaceAll(s[min(i+1, len(s)):min(j, len(s))], `""`, `"`)
					quotedAny = true
					i = j + 1
				} else if i < len(s) && isIdentStart(s[i]) {
					j := i
					for j < len(s) && (isIdentStart(s[j]) || s[j] >= '0' && s[j] <= '9' || s[j] == '$') {
						j++
					}
					part = s[i:j]
					i = j
				} else {
					break
				}
				parts = append(parts, part)
				if i < len(s) && s[i] == '.' {
					i++
					continue
				}
				break
			}
			if i < len(s) && s[i] == '(' && len(parts) > 0 {
				name := parts[len(parts)-1]
				if !quotedAny && len(parts) == 1 && strings.ToUpper(name) == name {
					break
				}
				if !quotedAny && len(parts) == 1 && typmodWord(s[:start], name) {
					break
				}
				schema := ""
				if len(parts) > 1 {
					schema = parts[len(parts)-2]
				}
				f.functions[schema+"."+name] = true
			}
			if i == start {
				i++
			}
		default:
			i++
		}
	}
}

// typmodWord reports whether name, read right after before, is the last
// word of a type name of several words whose modifier follows it
// ("::character varying(10)", "::bit varying(5)", "::interval second(6)",
// "::interval day to second(3)"): a type, not a call.
func typmodWord(before, name string) bool {
	prev := strings.TrimRight(before, " ")
	word := prev[strings.LastIndexAny(prev, " :(,")+1:]
	switch name {
	case "varying":
		return word == "character" || word == "bit"
	case "second", "minute", "hour", "day", "month", "year":
		return word == "interval" || word == "to"
	}
	return false
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}
