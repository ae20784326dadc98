// Package engines is the broker's view of a live database server: the
// interface every engine implements (engines/sqlite, engines/postgres,
// engines/mysql), the closed set of safe errors that may cross it, and the
// bounded result encoding they share.
//
// An Engine is one connection used for one operation: the broker never
// shares an Engine between operations and never uses a person's console
// session. A driver may hand out a broker-owned connection an earlier
// operation left clean (engines/postgres and engines/mysql keep a small
// pool per source, engines/internal/pool, owned by the Driver value);
// Close then gives it back, reset, or, after an error, a cancel, a write
// or full SQL, closes it and returns only when the connection is really
// gone, so the broker can hold a concurrency slot until then.
//
// Nothing that crosses this interface carries driver text: errors are
// *Error values with a static Reason.
package engines

import (
	"context"
	"time"

	"github.com/dbeast/dbeast/verifier"
)

// Kind names an engine.
type Kind string

// The engines dbeast supports.
const (
	SQLite   Kind = "sqlite"
	Postgres Kind = "postgres"
	MySQL    Kind = "mysql"
)

// Dialect is the verifier dialect of the engine.
func (k Kind) Dialect() verifier.Dialect {
	switch k {
	case Postgres:
		return verifier.Postgres
	case MySQL:
		return verifier.MySQL
	}
	return verifier.SQLite
}

// Deadlines from the contract.
const (
	SetupDeadline     = 15 * time.Second
	OperationDeadline = 30 * time.Second
)

// Source is a configured database. It holds secrets (DSN) and must never be
// logged or returned to an agent.
type Source struct {
	Kind Kind
	// DSN is the driver's own connection string (PostgreSQL URL or keyword
	// string, go-sql-driver DSN). Empty for SQLite.
	DSN string
	// Path is the SQLite database file. Empty for the others.
	Path string
	// ReadOnly sources never run writes: table writes and full SQL are
	// refused with ReasonReadOnlySource before anything is sent.
	ReadOnly bool
}

// SourceInfo is what the broker may know about a source without connecting.
type SourceInfo struct {
	// Database is the source's configured database (MySQL: the verifier's
	// only allowed schema; PostgreSQL: the database name; SQLite: "main").
	Database string
	// DefaultSchema is the schema a table listing is usually in ("public",
	// the MySQL database, "main").
	DefaultSchema string
}

// Driver opens engines of one kind. Implementations are small values;
// one that keeps connections between operations owns them and
// implements Closer.
type Driver interface {
	// Validate checks a source's configuration without connecting. Its
	// error is an *Error with a static reason (never the DSN text).
	Validate(src Source) (SourceInfo, error)
	// Open connects (or takes a clean pooled connection) for one
	// operation. It gives up after SetupDeadline even
	// when ctx has no deadline, and, for drivers whose setup can outlive
	// ctx, still within SetupDeadline after ctx is cancelled.
	Open(ctx context.Context, src Source) (Engine, error)
}

// Closer is an optional ability of a Driver that keeps connections
// between operations (engines/postgres, engines/mysql): Close closes
// every idle connection the Driver keeps and keeps none from then on, so
// a broker that shuts down leaves no session open on a server. Engines
// still open may finish; their connections are closed with them.
type Closer interface {
	Close() error
}

// Engine is one open connection to a source, used for one operation.
// Cancelling the context passed to a method cancels the server-side work;
// the method returns once the cancellation is settled.
type Engine interface {
	// ListTables returns candidate tables from the catalog (no proof yet),
	// sorted by schema and name.
	ListTables(ctx context.Context) ([]TableEntry, error)
	// Describe proves one table (eligibility, identity, full column list)
	// and returns its description.
	Describe(ctx context.Context, t verifier.Table) (*Proof, error)
	// Read proves every table of the verdict inside a read-only
	// transaction, checks column obligations and functions, checks pins,
	// locks, re-proves and runs the verdict's NormalizedSQL, all in that
	// transaction. The returned proofs are those the read relied on.
	Read(ctx context.Context, r ReadRequest) (*Result, []Proof, error)
	// Write runs a verified ModeTableWrite verdict (its NormalizedSQL) in
	// a normal transaction, after proving the target.
	Write(ctx context.Context, v *verifier.Verdict, lim Limits) (*Result, error)
	// Exec runs an approved full SQL statement, exactly as given, as one
	// statement (no second statement can ride along). Once the statement
	// may have reached the server, cancellation yields ReasonOutcomeUnknown.
	Exec(ctx context.Context, sql string, lim Limits) (*Result, error)
	// Close ends the operation: it returns once the connection is closed,
	// or, when the operation left it clean and reset, back in its pool.
	Close() error
}

// TableEntry is one candidate table in a listing.
type TableEntry struct {
	Table verifier.Table `json:"table"`
	// Kind is "table", "view" or "materialized_view".
	Kind string `json:"kind"`
}

// Column is one proven column.
type Column struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Nullable bool   `json:"nullable"`
}

// Proof is the outcome of proving one table eligible.
type Proof struct {
	Table   verifier.Table `json:"table"`
	Kind    string         `json:"kind"`
	Columns []Column       `json:"columns"`
	// Identity is a fingerprint of everything the proof relied on; a table
	// grant pinned to it is void once it changes. Opaque, not secret.
	Identity string `json:"-"`
}

// ReadRequest is a verified read.
type ReadRequest struct {
	Verdict *verifier.Verdict
	// Pins maps Table.String() to the identity a grant was pinned to. A
	// table whose proven identity differs fails with ReasonIdentityChanged.
	// Tables absent from Pins are not pinned (standing access by name).
	Pins   map[string]string
	Limits Limits
}
