package conformance

import (
	"context"
	"time"

	"github.com/dbeast/dbeast/verifier"
)

// OpenTimeout is how long callers should let OpenPostgres and OpenMySQL
// take: opening waits for the harness lock while another run (another
// test package, a `dbeast conformance` run) holds it, and MySQL's
// GET_LOCK gives up after 300 s. A minute was too short when the CI slice
// of one package held the lock under a loaded machine.
const OpenTimeout = 6 * time.Minute

// Engine is one named connection to a live server with the harness's
// scratch fixture. Implementations are not safe for concurrent use: a
// Runner checks one case at a time on each engine, and parallel workers
// each get their own engine from Worker. What an engine observes is per
// session (PostgreSQL's pg_stat_xact_* views and transaction id, MySQL's
// SESSION STATUS and user variables, SQLite's per-connection authorizer
// and total_changes), so concurrent workers do not see each other's
// reads.
type Engine interface {
	// Name is the engine's short name: postgres, mysql or sqlite.
	Name() string
	// Version is the server's version string, for the summary.
	Version() string
	// Dialect is the verifier dialect of the engine.
	Dialect() verifier.Dialect
	// Schema is where the fixture tables live: the scratch schema or
	// database, or main for SQLite. Generated queries name it.
	Schema() string
	// Database is the verifier Input's Database (MySQL only).
	Database() string
	// CheckAccepted runs the verdict's normalized SQL and the original on
	// the fixture and reports what the server did. Problems in the
	// observation are disagreements; an error means the check itself could
	// not run (connection lost) and aborts the run.
	CheckAccepted(ctx context.Context, original string, v *verifier.Verdict) (*Observation, error)
	// TryRefused reports whether the server runs sql harmlessly as an
	// unprivileged reader in a rolled-back read-only transaction: no error,
	// nothing written, only fixture tables read.
	TryRefused(ctx context.Context, sql string) (bool, error)
	// Worker opens another engine on the same fixture, with its own
	// connections (probe and restricted ones included), without taking
	// the harness lock or recreating the fixture: the engine it was
	// opened from holds the lock and must outlive it.
	Worker(ctx context.Context) (Engine, error)
	// Close releases the connections. The fixture is left in place.
	Close() error
}
