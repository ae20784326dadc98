// Package corpustest runs a dialect's corpus cases against its verifier,
// so that every dialect's corpus test is the same test: an accept case
// must give exactly its tables (and its normalized SQL when listed) and
// re-verify to the identical verdict; a reject case must be refused with
// its code; every case carries a prose line. With Update set, the
// normalized SQL of accept cases that list none is written into the case
// files (the -update flag of the dialect tests).
package corpustest

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dbeast/dbeast/corpus"
	"github.com/dbeast/dbeast/verifier"
)

// Config describes one dialect's run. The zero MinCases checks no count.
type Config struct {
	Dialect verifier.Dialect
	Verify  func(verifier.Input) (*verifier.Verdict, error)
	// DefaultDB is the Database of cases without db= (MySQL).
	DefaultDB string
	// MinCases is the least number of cases the corpus must hold.
	MinCases int
	// Update writes missing expected normalized SQL into the case files,
	// whose folder is CorpusDir (relative to the test's directory).
	Update    bool
	CorpusDir string
}

// Input turns a case into the verifier input the run uses.
func (cfg Config) Input(c corpus.Case) verifier.Input {
	db := c.DB
	if db == "" {
		db = cfg.DefaultDB
	}
	return verifier.Input{Dialect: cfg.Dialect, SQL: c.SQL, Mode: verifier.Mode(c.Mode), Database: db}
}

// Run runs every case of the dialect's corpus as a subtest.
func Run(t *testing.T, cfg Config) {
	t.Helper()
	cases, err := corpus.Load(string(cfg.Dialect))
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) < cfg.MinCases {
		t.Errorf("corpus has %d cases, want at least %d", len(cases), cfg.MinCases)
	}
	fills := map[string]map[int]string{} // file → directive line → normalized
	for _, c := range cases {
		t.Run(c.Name(), func(t *testing.T) {
			if c.Doc == "" {
				t.Errorf("case has no prose comment")
			}
			in := cfg.Input(c)
			v, err := cfg.Verify(in)
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
			// A normalized text with a newline cannot be written back: the
			// expected block ends at the first blank line.
			if c.Normalized == "" && cfg.Update && !strings.Contains(v.NormalizedSQL, "\n") {
				if fills[c.File] == nil {
					fills[c.File] = map[int]string{}
				}
				fills[c.File][c.Line] = v.NormalizedSQL
			}
			CheckIdempotent(t, cfg.Verify, in, v)
		})
	}
	if cfg.Update {
		for file, m := range fills {
			if err := fillNormalized(filepath.Join(cfg.CorpusDir, file), m); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// CheckIdempotent verifies v.NormalizedSQL again and wants the identical
// verdict, normalized text included (full mode keeps the original text,
// which is trivially stable).
func CheckIdempotent(t *testing.T, verify func(verifier.Input) (*verifier.Verdict, error), in verifier.Input, v *verifier.Verdict) {
	t.Helper()
	in.SQL = v.NormalizedSQL
	v2, err := verify(in)
	if err != nil {
		t.Fatalf("normalized %q refused: %v", in.SQL, err)
	}
	if diff := cmp.Diff(v, v2); diff != "" {
		t.Fatalf("normalized %q verdict differs (-first +second):\n%s", in.SQL, diff)
	}
}

// fillNormalized inserts expected normalized SQL after the "----" line of
// the cases whose directive is at the given lines.
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
