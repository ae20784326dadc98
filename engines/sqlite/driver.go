// Package sqlite is the SQLite engine: it proves and reads tables of a
// local SQLite file for the broker, through modernc.org/sqlite (pure Go, no
// cgo).
//
// Every operation runs on handles the engine opens itself and never shares
// with another operation at the same time:
//
//   - reads (ListTables, Describe, Read) use a handle, kept by the Driver
//     between operations while the file is unchanged (pool.go), opened with a
//     "file:…?mode=ro" URI, PRAGMA query_only=ON, double-quoted string
//     literals off (SQLITE_DBCONFIG_DQS_DML/DDL = 0 through the driver's
//     _dqs=0), defensive mode on, and an authorizer that is installed on the
//     physical connection before any statement is prepared on it;
//   - table writes (Write) and full SQL (Exec) use a separate read-write
//     handle, opened only after a read_only source has been refused.
//
// The authorizer works in explicit phases (see authorizer.go): a narrow
// proof phase that may read only the schema catalog and three PRAGMAs, a
// read phase that allows exactly the verdict's tables, existing columns and
// functions, a table-write phase, and the full-SQL phase that still blocks
// ATTACH (and with it VACUUM INTO), DETACH, PRAGMA, virtual tables and
// extension loading. Between phases everything is denied.
//
// Errors are *engines.Error values with the static reasons declared here or
// in package engines; driver text is kept only as the private cause.
package sqlite

import (
	"context"
	"os"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/engines/internal/pool"
)

// Reasons specific to SQLite. They are static; none is built from driver,
// schema or data text.
const (
	ReasonNotMain        engines.Reason = "only tables in the main database are supported"
	ReasonInternal       engines.Reason = "SQLite internal tables (sqlite_*) are not readable"
	ReasonView           engines.Reason = "views are not supported on SQLite"
	ReasonVirtual        engines.Reason = "virtual tables are not supported"
	ReasonShadow         engines.Reason = "shadow tables of virtual tables are not supported"
	ReasonGenerated      engines.Reason = "tables with generated columns are not supported"
	ReasonAuthorizer     engines.Reason = "the statement touches something the request does not cover"
	ReasonNotRead        engines.Reason = "only a verified read can run here"
	ReasonNotWrite       engines.Reason = "only a verified single-table write can run here"
	ReasonMultiStatement engines.Reason = "exactly one statement is allowed"
	ReasonEmptyStatement engines.Reason = "the SQL text contains no statement"
	ReasonBadText        engines.Reason = "the SQL text is too large, contains a NUL byte or is not UTF-8"
	ReasonInexactValue   engines.Reason = "a value could not be returned as exact text"
	ReasonSchemaProbe    engines.Reason = "the table's schema could not be read"
)

// Driver opens SQLite engines. NewDriver returns a Driver that keeps idle
// read handles per file (pool.go) and closes them with its Close; its
// copies share them, and one value may serve every source. The zero value
// is ready to use and keeps nothing: every engine opens its own handles
// and closes them (tests, short commands). Unlike a server connection, a
// kept handle holds its file open, a deleted one included, until it is
// taken again or idle too long; a process that wants none of that uses
// the zero value.
type Driver struct {
	pools *pool.Set[*srcPool]
	hs    *handles
}

var (
	_ engines.Driver = Driver{}
	_ engines.Closer = Driver{}
	_ engines.Engine = (*Engine)(nil)
)

// NewDriver returns a Driver with pools of its own.
func NewDriver() Driver { return newDriver(poolConfig, poolMaxLive) }

// newDriver returns a Driver with pools of its own and the given bounds.
func newDriver(cfg pool.Config, maxLive int64) Driver {
	return Driver{pools: pool.NewSet[*srcPool](), hs: &handles{cfg: cfg, maxLive: maxLive}}
}

// state returns the Driver's pools and handle count.
func (d Driver) state() (*pool.Set[*srcPool], *handles) {
	if d.pools == nil {
		return nil, unpooled
	}
	return d.pools, d.hs
}

// Close closes every idle read handle and keeps none from then on: a
// handle an engine still holds is closed with the engine. It returns once
// the idle handles are closed. Close of the zero Driver does nothing.
func (d Driver) Close() error {
	if d.pools == nil {
		return nil
	}
	return d.pools.Close()
}

// Validate checks that the source names an existing regular file by an
// absolute path. It does not open the file.
func (Driver) Validate(src engines.Source) (engines.SourceInfo, error) {
	path, ok := sourcePath(src.Path) // dsnurl.go: file: URIs
	if src.Kind != engines.SQLite || !ok {
		return engines.SourceInfo{}, engines.NewError(engines.CodeUnavailable, engines.ReasonBadConfig, nil)
	}
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return engines.SourceInfo{}, engines.NewError(engines.CodeUnavailable, engines.ReasonFileMissing, err)
	}
	return engines.SourceInfo{Database: "main", DefaultSchema: "main"}, nil
}

// Open validates the source and takes an idle read handle of its file,
// or opens one within SetupDeadline. The read-write handle is opened
// lazily by Write and Exec, and never for a read_only source.
func (d Driver) Open(ctx context.Context, src engines.Source) (engines.Engine, error) {
	if _, err := d.Validate(src); err != nil {
		return nil, err
	}
	src.Path, _ = sourcePath(src.Path)
	ctx, cancel := context.WithTimeout(ctx, engines.SetupDeadline)
	defer cancel()
	h, sp, err := d.take(ctx, src.Path)
	if err != nil {
		return nil, err
	}
	_, hs := d.state()
	return &Engine{src: src, hs: hs, home: sp, ro: h}, nil
}
