package postgres

import (
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/corpus"
	"github.com/dbeast/dbeast/verifier"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "write missing expected normalized SQL into corpus/postgres")

// corpusInput turns a case into a verifier input.
func corpusInput(c corpus.Case) verifier.Input {
	return verifier.Input{Dialect: verifier.Postgres, SQL: c.SQL, Mode: verifier.Mode(c.Mode)}
}

// TestCorpus runs every case of corpus/postgres: an accept case must give
// exactly its tables (and its normalized SQL when listed) and re-verify
// to the same verdict; a reject case must be refused with its code.
func TestCorpus(t *testing.T) {
	cases, err := corpus.Load("postgres")
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) < 250 {
		t.Errorf("corpus has %d cases, want at least 250", len(cases))
	}
	fills := map[string]map[int]string{} // file → directive line → normalized
	for _, c := range cases {
		t.Run(c.Name(), func(t *testing.T) {
			if c.Doc == "" {
				t.Errorf("case has no prose comment")
			}
			in := corpusInput(c)
			v, err := Verify(in)
			if !c.Accept {
				r, ok := verifier.AsRefusal(err)
				if !ok {
					if err != nil {
						t.Fatalf("%s: %q: error is not a refusal: %v", c.Doc, c.SQL, err)
					}
					t.Fatalf("%s: accepted %q as %q, want refusal %s", c.Doc, c.SQL, v.NormalizedSQL, c.Code)
				}
				if string(r.Code) != c.Code {
					t.Fatalf("%s: %q refused with %s, want %s", c.Doc, c.SQL, r.Code, c.Code)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s: %q refused: %v", c.Doc, c.SQL, err)
			}
			want := c.Tables
			if want == nil {
				want = []string{}
			}
			if diff := cmp.Diff(want, v.TableNames()); diff != "" {
				t.Errorf("%s: tables (-want +got):\n%s", c.Doc, diff)
			}
			if c.Normalized != "" && c.Normalized != v.NormalizedSQL {
				t.Errorf("%s: normalized\n got %s\nwant %s", c.Doc, v.NormalizedSQL, c.Normalized)
			}
			if c.Normalized == "" && *update && !strings.Contains(v.NormalizedSQL, "\n") {
				if fills[c.File] == nil {
					fills[c.File] = map[int]string{}
				}
				fills[c.File][c.Line] = v.NormalizedSQL
			}
			checkIdempotent(t, in, v)
		})
	}
	if *update {
		for file, m := range fills {
			if err := fillNormalized(filepath.Join("..", "..", "corpus", "postgres", file), m); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// checkIdempotent verifies v.NormalizedSQL again and wants the same
// verdict, normalized text included (full mode keeps the original text,
// which is trivially stable).
func checkIdempotent(t *testing.T, in verifier.Input, v *verifier.Verdict) {
	t.Helper()
	in.SQL = v.NormalizedSQL
	v2, err := Verify(in)
	if err != nil {
		t.Fatalf("normalized %q refused: %v", in.SQL, err)
	}
	if diff := cmp.Diff(v, v2); diff != "" {
		t.Fatalf("normalized %q verdict differs (-first +second):\n%s", in.SQL, diff)
	}
}

// fillNormalized inserts expected normalized SQL after the "----" line of
// the cases whose directive is at the given lines (used by -update).
func fillNormalized(path string, m map[int]string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	lines := strings.Split(string(data), "\n")
	starts := make([]int, 0, len(m))
	for l := range m {
		starts = append(starts, l)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(starts)))
	for _, l := range starts {
		for i := l; i < len(lines); i++ { // lines[l-1] is the directive
			if lines[i] == "----" {
				ins := strings.Split(m[l], "\n")
				lines = append(lines[:i+1], append(ins, lines[i+1:]...)...)
				break
			}
		}
	}
	return os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644)
}
