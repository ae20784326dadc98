package postgres

import (
	"os"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/verifier"
)

// TestAttackProbeFile verifies every statement of the file named by
// DBEAST_ATTACK_PROBES (statements separated by a line "----") in read
// mode and logs each verdict or refusal code: the exploration harness
// behind the pinned attack tests. Without the variable it does nothing.
func TestAttackProbeFile(t *testing.T) {
	path := os.Getenv("DBEAST_ATTACK_PROBES")
	if path == "" {
		t.Skip("DBEAST_ATTACK_PROBES not set")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := os.Getenv("DBEAST_ATTACK_OUT")
	var accepted []string
	for i, sql := range strings.Split(string(data), "\n----\n") {
		sql = strings.TrimSpace(sql)
		if sql == "" {
			continue
		}
		v, err := Verify(verifier.Input{SQL: sql, Mode: verifier.ModeRead})
		head := sql
		if len(head) > 100 {
			head = head[:100]
		}
		if err != nil {
			t.Logf("#%d REFUSED %v :: %s", i, err, head)
			continue
		}
		t.Logf("#%d ACCEPTED len(in)=%d len(out)=%d tables=%v :: %s", i, len(sql), len(v.NormalizedSQL), v.Tables, head)
		accepted = append(accepted, v.NormalizedSQL)
	}
	if out != "" {
		if err := os.WriteFile(out, []byte(strings.Join(accepted, ";\n----\n")), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}
