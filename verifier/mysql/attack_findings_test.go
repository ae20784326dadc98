package mysql

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/verifier"
)

// A chain of k CTEs, each a cross join of two references to the previous
// one, makes MariaDB instantiate 2^k derived tables while optimizing. On
// MariaDB 10.11 (h3-attack): k=12 EXPLAIN took 6.8 s and +0.5 GB; k=14
// through dbeast serve took mariadbd from 0.92 GB to 1.78 GB and ended
// 5.5 s past the 30 s deadline; k=16 (under 800 bytes) ignored
// max_statement_time=30 and KILL QUERY, grew mariadbd to 18.6 GB in 154 s
// and the kernel OOM-killed the server. Skipped unless
// DBEAST_ATTACK_FINDINGS=1 so CI stays green until a fix lands.
func TestAttackFindingCTEChainFansOutDerivedTables(t *testing.T) {
	if os.Getenv("DBEAST_ATTACK_FINDINGS") == "" {
		t.Skip("finding: CTE chain fans out 2^k derived tables on MariaDB (set DBEAST_ATTACK_FINDINGS=1 to run)")
	}
	for _, k := range []int{12, 14, 16} {
		t.Run(fmt.Sprint(k), func(t *testing.T) {
			var b strings.Builder
			b.WriteString("WITH c0 AS (SELECT t.id AS x FROM dbeast_attack.t AS t)")
			for i := 1; i <= k; i++ {
				fmt.Fprintf(&b, ", c%d AS (SELECT a.x FROM c%d AS a, c%d AS b)", i, i-1, i-1)
			}
			fmt.Fprintf(&b, " SELECT count(*) AS n FROM c%d AS z", k)
			_, err := Verify(verifier.Input{Dialect: verifier.MySQL, SQL: b.String(), Mode: verifier.ModeRead, Database: "dbeast_attack", Flavor: verifier.FlavorMariaDB})
			var r *verifier.Refusal
			if !errors.As(err, &r) {
				t.Fatalf("accepted a %d-byte read that makes 2^%d derived tables: %v", b.Len(), k, err)
			}
		})
	}
}
