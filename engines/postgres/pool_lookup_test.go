package postgres

import (
	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/engines/internal/pool"
)

// lookupPool returns the zero Driver's pool of the source with dsn and
// the read-only flag, or nil before its first use.
func lookupPool(dsn string, readOnly bool) *connPool {
	p, _ := sharedPools.Lookup(pool.KeyOf(engines.Source{Kind: engines.Postgres, DSN: dsn, ReadOnly: readOnly}))
	return p
}
