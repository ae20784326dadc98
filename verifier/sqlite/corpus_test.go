package sqlite

import (
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/corpus"
	"github.com/dbeast/dbeast/verifier"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the expected normalized SQL of accept cases in corpus/sqlite")

func loadCorpus(t testing.TB) []corpus.Case {
	t.Helper()
	cs, err := corpus.Load("sqlite")
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func caseInput(c corpus.Case) verifier.Input {
	return verifier.Input{Dialect: verifier.SQLite, SQL: c.SQL, Mode: verifier.Mode(c.Mode)}
}

// TestCorpus runs every corpus case: an accept case must give exactly its
// tables, its normalized SQL when one is given, and re-verify to the same
// verdict; a reject case must be refused with its code.
func TestCorpus(t *testing.T) {
	cs := loadCorpus(t)
	if len(cs) < 200 {
		t.Errorf("corpus has %d cases, want at least 200", len(cs))
	}
	got := map[string]map[int]string{} // file -> directive line -> normalized
	for _, c := range cs {
		t.Run(c.Name(), func(t *testing.T) {
			if c.Doc == "" {
				t.Errorf("case has no prose comment")
			}
			v, err := Verify(caseInput(c))
			if !c.Accept {
				r, ok := verifier.AsRefusal(err)
				if !ok {
					t.Fatalf("accepted, want refusal %s: %s", c.Code, v.NormalizedSQL)
				}
				if string(r.Code) != c.Code {
					t.Fatalf("refused with %s, want %s", r.Code, c.Code)
				}
				return
			}
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			names := v.TableNames()
			want := c.Tables
			if want == nil {
				want = []string{}
			}
			if diff := cmp.Diff(want, names); diff != "" {
				t.Errorf("tables (-want +got):\n%s", diff)
			}
			if got[c.File] == nil {
				got[c.File] = map[int]string{}
			}
			got[c.File][c.Line] = v.NormalizedSQL
			if c.Normalized != "" && !*update && c.Normalized != v.NormalizedSQL {
				t.Errorf("normalized:\n got %s\nwant %s", v.NormalizedSQL, c.Normalized)
			}
			again, err := Verify(verifier.Input{Dialect: verifier.SQLite, SQL: v.NormalizedSQL, Mode: v.Mode})
			if err != nil {
				t.Fatalf("normalized SQL refused: %v", err)
			}
			if v.Mode == verifier.ModeFull {
				return
			}
			if diff := cmp.Diff(v, again); diff != "" {
				t.Errorf("re-verify differs (-first +second):\n%s", diff)
			}
		})
	}
	if *update {
		rewriteCorpus(t, got)
	}
}

// rewriteCorpus replaces the expected-output block of every accept case
// (except full mode, whose output is its input) with what Verify returned.
func rewriteCorpus(t *testing.T, got map[string]map[int]string) {
	_, self, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(self), "..", "..", "corpus", "sqlite")
	for file, byLine := range got {
		path := filepath.Join(dir, file)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		var out []string
		for i := 0; i < len(lines); i++ {
			out = append(out, lines[i])
			norm, ok := byLine[i+1]
			if !ok || strings.Contains(lines[i], "mode=full") {
				continue
			}
			for i++; lines[i] != "----"; i++ {
				out = append(out, lines[i])
			}
			out = append(out, "----", norm)
			for i+1 < len(lines) && strings.TrimSpace(lines[i+1]) != "" {
				i++
			}
		}
		if err := os.WriteFile(path, []byte(strings.Join(out, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
