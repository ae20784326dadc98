package postgres

import (
	"github.com/dbeast/dbeast/verifier"
	"github.com/dbeast/dbeast/verifier/postgres/internal/pgparse"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// normalize prints the verified statement stmt of res as SQL (print.go)
// and proves the printed text is what was verified: it must parse back to
// the same tree, source positions aside. The printer drops comments,
// re-quotes string constants (dollar quotes, E'…' and U&'…' forms become
// plain or E'…' literals of the same value), prints integer constants in
// decimal and quotes identifiers wherever PostgreSQL's quote_identifier
// would. A text that fails the proof is refused rather than run: a
// printing mistake can only cause a refusal, never a different statement.
func normalize(res *pgparse.Result, stmt *pg_query.Node, sql string) (string, error) {
	out, err := printStmt(stmt)
	if err != nil {
		return "", verifier.Refuse(verifier.CodeConstructNotAllowed)
	}
	if out == sql {
		return out, nil // the same text gives the same tree
	}
	again, err := pgparse.ParseBytes(out)
	if err != nil || !sameTree(res.Bytes(), again, parseResultInfo()) {
		return "", verifier.Refuse(verifier.CodeConstructNotAllowed)
	}
	return out, nil
}
