package broker

import (
	"fmt"
	"strings"

	"github.com/dbeast/dbeast/engines"
)

// quoteIdent quotes an identifier for a dialect: backticks for MySQL,
// double quotes otherwise, the quote character doubled inside.
func quoteIdent(k engines.Kind, s string) string {
	q := `"`
	if k == engines.MySQL {
		q = "`"
	}
	return q + strings.ReplaceAll(s, q, q+q) + q
}

// readTableSQL generates read_table's statement from data: the columns,
// the qualified table, LIMIT and OFFSET. The result is verified like any
// other read before it is shown or run.
func readTableSQL(k engines.Kind, t TableRef, cols []string, limit, offset int) string {
	qc := make([]string, len(cols))
	for i, c := range cols {
		qc[i] = quoteIdent(k, c)
	}
	return fmt.Sprintf("SELECT %s FROM %s.%s LIMIT %d OFFSET %d",
		strings.Join(qc, ", "), quoteIdent(k, t.Schema), quoteIdent(k, t.Name), limit, offset)
}

// docStatement describes a document read for the prompt.
func docStatement(alias string, version uint64, offset, length int) string {
	return fmt.Sprintf("read %d bytes at offset %d of document %q, version %d", length, offset, alias, version)
}
