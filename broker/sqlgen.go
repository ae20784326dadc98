package broker

import (
	"fmt"
	"strings"

	"github.com/dbeast/dbeast/engines"
)

// quoteIdent quotes an identifier as the engine of kind k reads it: the
// quoting is the engine's fact (engines.IdentQuoter on the kind's
// driver), and a kind without a driver gets the SQL standard's.
func (b *Broker) quoteIdent(k engines.Kind, s string) string {
	return engines.QuoteIdent(b.cfg.Drivers[k], s)
}

// readTableStatement generates read_table's statement from data: the
// columns, the qualified table, LIMIT and OFFSET, quoted by d's engine
// (engines.QuoteIdent). The result is verified like any other read
// before it is shown or run.
func readTableStatement(d engines.Driver, t TableRef, cols []string, limit, offset int) string {
	qc := make([]string, len(cols))
	for i, c := range cols {
		qc[i] = engines.QuoteIdent(d, c)
	}
	return fmt.Sprintf("SELECT %s FROM %s.%s LIMIT %d OFFSET %d",
		strings.Join(qc, ", "), engines.QuoteIdent(d, t.Schema), engines.QuoteIdent(d, t.Name), limit, offset)
}
