package postgres

import (
	"bufio"
	"os"
	"testing"

	"github.com/dbeast/dbeast/verifier"
)

func TestZZProbe(t *testing.T) {
	f, _ := os.Open("/tmp/h16q.txt")
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		v, err := Verify(verifier.Input{SQL: sc.Text()})
		if err != nil {
			t.Logf("REFUSED %v: %s", err, sc.Text())
			continue
		}
		t.Logf("OK %v %v\n%s", v.Functions, v.Columns, v.NormalizedSQL)
	}
}
