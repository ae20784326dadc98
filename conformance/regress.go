package conformance

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// guessCode is the refusal code a regression case expects when the fix is
// to refuse; it is a guess the person fixing the verifier may change.
func guessCode(k Kind) string {
	switch k {
	case KindCalledFunction:
		return "function_not_allowed"
	case KindTouchedTable, KindExplainRelation:
		return "unqualified_table"
	case KindNotOneStatement:
		return "multiple_statements"
	}
	return "construct_not_allowed"
}

// regressionText renders a disagreement as a corpus case (see package
// corpus for the format). Widening disagreements become reject cases with
// a guessed code; unstable verdicts and differing rows become accept
// cases with the tables of the verdict, since the query itself may be
// fine. The SQL is always quoted, so any byte survives.
func regressionText(engine string, d Disagreement) string {
	sql := d.ShrunkSQL
	if sql == "" {
		sql = d.Case.SQL
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "# conformance (%s): %s", engine, d.Kind)
	if len(d.Problems) > 0 {
		detail := strings.ReplaceAll(d.Problems[0].Detail, "\n", " ")
		if len(detail) > 200 {
			detail = detail[:200]
		}
		fmt.Fprintf(&sb, ": %s", detail)
	}
	sb.WriteString("\n")
	switch d.Kind {
	case KindVerdictUnstable, KindRowsDiffer, KindVerifierError:
		sb.WriteString("accept quoted")
		v := d.ShrunkVerdict
		if v == nil {
			v = d.Verdict
		}
		if v != nil {
			for _, t := range v.Tables {
				sb.WriteString(" " + t)
			}
		}
	default:
		sb.WriteString("reject " + guessCode(d.Kind) + " quoted")
	}
	sb.WriteString("\n" + strconv.Quote(sql) + "\n----\n\n")
	return sb.String()
}

// WriteRegressions appends the disagreements as corpus cases to
// dir/<dialect>.txt, skipping SQL the file already holds. It returns how
// many cases it added.
func WriteRegressions(dir, dialect, engine string, ds []Disagreement) (int, error) {
	if len(ds) == 0 {
		return 0, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, fmt.Errorf("conformance: regressions dir: %w", err)
	}
	path := filepath.Join(dir, dialect+".txt")
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return 0, fmt.Errorf("conformance: read regressions: %w", err)
	}
	var add strings.Builder
	n := 0
	seen := string(old)
	for _, d := range ds {
		sql := d.ShrunkSQL
		if sql == "" {
			sql = d.Case.SQL
		}
		q := strconv.Quote(sql)
		if strings.Contains(seen, "\n"+q+"\n") {
			continue
		}
		seen += "\n" + q + "\n"
		add.WriteString(regressionText(engine, d))
		n++
	}
	if n == 0 {
		return 0, nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return 0, fmt.Errorf("conformance: open regressions: %w", err)
	}
	defer f.Close()
	if _, err := f.WriteString(add.String()); err != nil {
		return 0, fmt.Errorf("conformance: write regressions: %w", err)
	}
	return n, nil
}
