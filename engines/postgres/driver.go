// Package postgres is the PostgreSQL engine: it proves tables eligible for
// a stable read from the system catalogs, locks them, re-proves them and
// runs the verifier's normalized SQL as a prepared statement inside a
// REPEATABLE READ READ ONLY transaction whose search_path is pg_catalog
// alone, returning every value in the server's own text form. Writes and
// full SQL go through the extended protocol so no second statement can ride
// along.
//
// It talks to the server with github.com/jackc/pgx/v5, using the pgconn
// layer directly for statements so nothing is ever re-prepared or retried
// behind the engine's back. Every error that leaves the package is an
// *engines.Error with a static reason; server error text is never copied.
package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/engines/internal/pool"
)

// Driver opens PostgreSQL engines and owns the pools of idle
// connections they return to (pool.go). NewDriver returns a Driver with
// pools of its own, which its Close closes; the zero value is ready to
// use and shares one set of pools for the life of the process (tests,
// short commands), which its Close leaves alone. A Driver is a small
// value: its copies share its pools.
type Driver struct {
	pools *pool.Set[*connPool]
}

var (
	_ engines.Driver = Driver{}
	_ engines.Closer = Driver{}
)

// NewDriver returns a Driver with pools of its own.
func NewDriver() Driver { return Driver{pools: pool.NewSet[*connPool]()} }

// set returns the Driver's pools.
func (d Driver) set() *pool.Set[*connPool] {
	if d.pools == nil {
		return sharedPools
	}
	return d.pools
}

// Close closes every idle connection of the Driver's pools and keeps no
// connection from then on: an engine opened or closed later runs on a
// connection of its own and closes it. It returns once the idle
// connections are closed. Close of the zero Driver does nothing.
func (d Driver) Close() error {
	if d.pools == nil {
		return nil
	}
	return d.pools.Close()
}

// Validate parses the source's DSN without connecting. It never echoes the
// DSN or the parser's message.
func (Driver) Validate(src engines.Source) (engines.SourceInfo, error) {
	if src.Kind != engines.Postgres {
		return engines.SourceInfo{}, engines.NewError(engines.CodeUnavailable, engines.ReasonBadConfig, nil)
	}
	cfg, err := pgx.ParseConfig(src.DSN)
	if err != nil {
		return engines.SourceInfo{}, engines.NewError(engines.CodeUnavailable, engines.ReasonBadConfig, err)
	}
	return engines.SourceInfo{Database: cfg.Database, DefaultSchema: "public"}, nil
}

// Open connects for one operation, giving up after engines.SetupDeadline
// even when ctx has none.
func (d Driver) Open(ctx context.Context, src engines.Source) (engines.Engine, error) {
	if src.Kind != engines.Postgres {
		return nil, engines.NewError(engines.CodeUnavailable, engines.ReasonBadConfig, nil)
	}
	e, err := open(ctx, d.set(), src)
	if err != nil {
		return nil, err
	}
	return e, nil
}

// isCtxErr reports whether err comes from a done context.
func isCtxErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
