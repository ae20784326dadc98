package conformance

import (
	"context"
	"strings"

	"github.com/dbeast/dbeast/verifier"
)

// tokens splits sql into pieces that each keep their leading whitespace,
// so deleting pieces and concatenating the rest gives readable SQL. Quoted
// strings and identifiers, comments and runs of word characters are one
// piece each; every other character is its own piece. Concatenating the
// pieces gives sql back exactly.
func tokens(sql string) []string {
	var out []string
	i := 0
	for i < len(sql) {
		start := i
		for i < len(sql) && (sql[i] == ' ' || sql[i] == '\t' || sql[i] == '\n' || sql[i] == '\r') {
			i++
		}
		if i == len(sql) {
			if len(out) > 0 {
				out[len(out)-1] += sql[start:]
			} else {
				out = append(out, sql[start:])
			}
			break
		}
		c := sql[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			j := i + 1
			for j < len(sql) {
				if sql[j] == c {
					if j+1 < len(sql) && sql[j+1] == c {
						j += 2
						continue
					}
					break
				}
				j++
			}
			i = min(j+1, len(sql))
		case c == '[':
			j := strings.IndexByte(sql[i:], ']')
			if j < 0 {
				i = len(sql)
			} else {
				i += j + 1
			}
		case strings.HasPrefix(sql[i:], "--"):
			j := strings.IndexByte(sql[i:], '\n')
			if j < 0 {
				i = len(sql)
			} else {
				i += j
			}
		case strings.HasPrefix(sql[i:], "/*"):
			j := strings.Index(sql[i+2:], "*/")
			if j < 0 {
				i = len(sql)
			} else {
				i += j + 4
			}
		case isWord(c):
			for i < len(sql) && isWord(sql[i]) {
				i++
			}
		default:
			i++
		}
		out = append(out, sql[start:i])
	}
	return out
}

func isWord(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// ddmin is Zeller's delta debugging: it returns a 1-minimal subsequence of
// toks for which fails holds (fails(toks) must hold), removing chunks of
// decreasing size. budget bounds the calls of fails.
func ddmin(toks []string, fails func([]string) bool, budget int) []string {
	n := 2
	for len(toks) >= 2 && budget > 0 {
		chunk := (len(toks) + n - 1) / n
		reduced := false
		for start := 0; start < len(toks) && budget > 0; start += chunk {
			end := min(start+chunk, len(toks))
			cand := append(append([]string{}, toks[:start]...), toks[end:]...)
			budget--
			if len(cand) > 0 && fails(cand) {
				toks = cand
				n = max(n-1, 2)
				reduced = true
				break
			}
		}
		if !reduced {
			if n >= len(toks) {
				break
			}
			n = min(n*2, len(toks))
		}
	}
	return toks
}

// windows removes every contiguous run of up to 16 tokens whose removal
// keeps fails true, repeating until nothing more goes. It finishes what
// ddmin leaves: syntactic units (", t.col", "WHERE x > 1") rarely align
// with ddmin's chunk boundaries. budget bounds the calls of fails.
func windows(toks []string, fails func([]string) bool, budget int) []string {
	for changed := true; changed && budget > 0; {
		changed = false
		for size := min(16, len(toks)-1); size >= 1 && budget > 0; size-- {
			for start := 0; start+size <= len(toks) && budget > 0; {
				cand := append(append([]string{}, toks[:start]...), toks[start+size:]...)
				budget--
				if fails(cand) {
					toks = cand
					changed = true
					continue
				}
				start++
			}
		}
	}
	return toks
}

// shrink reduces a failing case to a minimal SQL that the verifier still
// accepts and that still shows a disagreement of the same kind. It returns
// the original text when nothing smaller fails.
func (r *Runner) shrink(ctx context.Context, e Engine, c Case, kind Kind) (string, *verifier.Verdict, error) {
	budget := r.MaxShrinkChecks
	if budget == 0 {
		budget = 1000
	}
	var ferr error
	var lastVerdict *verifier.Verdict
	fails := func(toks []string) bool {
		if ferr != nil {
			return false
		}
		sql := strings.TrimSpace(strings.Join(toks, ""))
		res, err := r.check(ctx, e, sql, c.Mode)
		if err != nil {
			ferr = err
			return false
		}
		for _, p := range res.problems {
			if p.Kind == kind {
				lastVerdict = res.verdict
				return true
			}
		}
		return false
	}
	toks := ddmin(tokens(c.SQL), fails, budget/4)
	toks = windows(toks, fails, budget-budget/4)
	if ferr != nil {
		return c.SQL, nil, ferr
	}
	sql := strings.TrimSpace(strings.Join(toks, ""))
	if sql == strings.TrimSpace(c.SQL) {
		return c.SQL, nil, nil
	}
	// Recompute the verdict of the final text (the last failing call may
	// not have been for it).
	if !fails(toks) {
		return c.SQL, nil, ferr
	}
	return sql, lastVerdict, nil
}
