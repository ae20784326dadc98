package mysql

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"net"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/dbeast/dbeast/engines"
)

// Reasons this engine adds to the shared ones. Each is static text: no
// driver message, name or value is ever part of a Reason.
const (
	ReasonNoDatabase        engines.Reason = "the source DSN must name a database"
	ReasonSystemDatabase    engines.Reason = "system databases cannot be read"
	ReasonNoSuchDatabase    engines.Reason = "the source's database does not exist, or the account cannot see it"
	ReasonOtherDatabase     engines.Reason = "only tables of the source's configured database can be read"
	ReasonView              engines.Reason = "views cannot be read on MySQL; only base tables"
	ReasonTableKind         engines.Reason = "only plain base tables can be read (not sequences, system-versioned or temporary tables)"
	ReasonEngine            engines.Reason = "only InnoDB tables can be read"
	ReasonPartitioned       engines.Reason = "partitioned tables are not supported"
	ReasonGeneratedColumn   engines.Reason = "tables with generated columns are not supported"
	ReasonNoLockPrivilege   engines.Reason = "the account lacks the LOCK TABLES privilege needed for a stable read"
	ReasonNoProcess         engines.Reason = "the account lacks the PROCESS privilege needed to read the InnoDB table identity"
	ReasonIdentityMissing   engines.Reason = "the InnoDB table identity could not be found"
	ReasonUnstable          engines.Reason = "the table changed while it was being proven"
	ReasonUnsupportedServer engines.Reason = "the server is not MySQL 8 or later, nor MariaDB 10.3 or later"
	ReasonAuth              engines.Reason = "the server refused the account or its credentials"
	ReasonPrivilege         engines.Reason = "the account lacks a privilege the statement needs"
	ReasonLockTimeout       engines.Reason = "a lock could not be obtained in time"
	ReasonSyntax            engines.Reason = "the server could not parse the statement"
	ReasonConnectionLost    engines.Reason = "the connection to the server was lost"
	ReasonBadVerdict        engines.Reason = "the request is not a verified statement of the right kind for this engine"
	ReasonReadOnlyTx        engines.Reason = "the statement tried to write inside a read-only transaction"
	// ReasonRelationGuard: the server resolved the statement to a table
	// its verdict does not list (see relguard.go).
	ReasonRelationGuard engines.Reason = "the server would read a table the verified statement does not name"
	// ReasonDefaultDatabase: the connection was given a default database
	// by something other than the engine (the server's init_connect, a
	// proxy, a pooled session), so an unqualified name could reach a base
	// table; see Engine.defaultDB.
	ReasonDefaultDatabase engines.Reason = "the connection to the server has a default database; reads need a connection without one"
	// ReasonTempSpace: an internal temporary table of the read grew past
	// tempDiskTableSize on the server's disk.
	ReasonTempSpace engines.Reason = "the statement needs more temporary disk space on the server than one read may use"
	// ReasonNoTempCap is the health warning of every MySQL and MariaDB
	// source (see tempDiskTableSize).
	ReasonNoTempCap engines.Reason = "the server has no per-session limit on the temporary files of a sort: a window function or a grouping sort in one read can write to the server's tmpdir for up to its 30-second deadline"
	// ReasonUnknownValue: the driver handed over a value of a Go type the
	// encoder does not know; it fails closed rather than guess.
	ReasonUnknownValue engines.Reason = "a value of an unsupported type was returned"
)

// MySQL and MariaDB error numbers the engine decides on. Only the number of
// a *mysql.MySQLError is used; its message is never copied.
const (
	errDBAccessDenied      = 1044 // ER_DBACCESS_DENIED_ERROR
	errAccessDenied        = 1045 // ER_ACCESS_DENIED_ERROR
	errBadDB               = 1049 // ER_BAD_DB_ERROR
	errBadField            = 1054 // ER_BAD_FIELD_ERROR
	errParse               = 1064 // ER_PARSE_ERROR
	errTableAccessDenied   = 1142 // ER_TABLEACCESS_DENIED_ERROR
	errColumnAccessDenied  = 1143 // ER_COLUMNACCESS_DENIED_ERROR
	errNoSuchTable         = 1146 // ER_NO_SUCH_TABLE
	errLockWaitTimeout     = 1205 // ER_LOCK_WAIT_TIMEOUT (InnoDB row locks and metadata locks)
	errSpecificAccess      = 1227 // ER_SPECIFIC_ACCESS_DENIED_ERROR (e.g. PROCESS)
	errQueryInterrupted    = 1317 // ER_QUERY_INTERRUPTED (our KILL)
	errReadOnlyTx          = 1792 // ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION
	errMariaStatementTime  = 1969 // MariaDB ER_STATEMENT_TIMEOUT (max_statement_time)
	errMySQLQueryTimeout   = 3024 // MySQL ER_QUERY_TIMEOUT (max_execution_time)
	errLockDeadlock        = 1213 // ER_LOCK_DEADLOCK
	errTableNotLockedRead  = 1099 // ER_TABLE_NOT_LOCKED_FOR_WRITE
	errUnknownTableInQuery = 1109 // ER_UNKNOWN_TABLE
	errServerShutdown      = 1053 // ER_SERVER_SHUTDOWN
	errConnectionKilled    = 1927 // ER_CONNECTION_KILLED (MariaDB; the session's own KILL)
	errRecordFileFull      = 1114 // ER_RECORD_FILE_FULL (a temporary table past tmp_disk_table_size)
)

// serverError maps an error from a statement to a safe *engines.Error.
// ctxErr is the operation context's error, which wins: once the operation
// was cancelled, whatever the driver reports is a consequence of it.
func serverError(err error, ctxErr error) *engines.Error {
	if err == nil {
		return nil
	}
	var ee *engines.Error
	if errors.As(err, &ee) {
		return ee
	}
	if ctxErr != nil {
		return ctxError(ctxErr, err)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return engines.NewError(engines.CodeTimeout, engines.ReasonTimeout, err)
	}
	if errors.Is(err, context.Canceled) {
		return engines.NewError(engines.CodeCancelled, engines.ReasonCancelled, err)
	}
	var me *gomysql.MySQLError
	if errors.As(err, &me) {
		switch me.Number {
		case errDBAccessDenied, errTableAccessDenied, errColumnAccessDenied, errSpecificAccess:
			return engines.NewError(engines.CodeDenied, ReasonPrivilege, err)
		case errAccessDenied:
			return engines.NewError(engines.CodeDenied, ReasonAuth, err)
		case errNoSuchTable, errBadDB, errUnknownTableInQuery:
			return engines.NewError(engines.CodeFailed, engines.ReasonNotFound, err)
		case errBadField:
			return engines.NewError(engines.CodeFailed, engines.ReasonColumnMissing, err)
		case errParse:
			return engines.NewError(engines.CodeFailed, ReasonSyntax, err)
		case errLockWaitTimeout, errLockDeadlock:
			return engines.NewError(engines.CodeTimeout, ReasonLockTimeout, err)
		case errMariaStatementTime, errMySQLQueryTimeout:
			return engines.NewError(engines.CodeTimeout, engines.ReasonTimeout, err)
		case errQueryInterrupted:
			return engines.NewError(engines.CodeCancelled, engines.ReasonCancelled, err)
		case errServerShutdown, errConnectionKilled:
			// The session ends with whatever the statement had done by
			// then (a procedure may have committed): a lost connection,
			// which run makes outcome_unknown once a write was sent.
			return engines.NewError(engines.CodeFailed, ReasonConnectionLost, err)
		case errReadOnlyTx, errTableNotLockedRead:
			return engines.NewError(engines.CodeDenied, ReasonReadOnlyTx, err)
		case errRecordFileFull:
			return engines.NewError(engines.CodeLimit, ReasonTempSpace, err)
		}
		return engines.NewError(engines.CodeFailed, engines.ReasonExecution, err)
	}
	if isConnectionError(err) {
		return engines.NewError(engines.CodeFailed, ReasonConnectionLost, err)
	}
	return engines.NewError(engines.CodeFailed, engines.ReasonExecution, err)
}

// ctxError maps a finished operation context to cancelled or timeout.
func ctxError(ctxErr, cause error) *engines.Error {
	if cause == nil {
		cause = ctxErr
	}
	if errors.Is(ctxErr, context.DeadlineExceeded) {
		return engines.NewError(engines.CodeTimeout, engines.ReasonTimeout, cause)
	}
	return engines.NewError(engines.CodeCancelled, engines.ReasonCancelled, cause)
}

// isConnectionError reports whether err means the connection is gone.
func isConnectionError(err error) bool {
	var ne net.Error
	return errors.Is(err, driver.ErrBadConn) || errors.Is(err, gomysql.ErrInvalidConn) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &ne) ||
		errors.Is(err, net.ErrClosed)
}

// mysqlNumber returns the server error number of err, or 0.
func mysqlNumber(err error) uint16 {
	var me *gomysql.MySQLError
	if errors.As(err, &me) {
		return me.Number
	}
	return 0
}
