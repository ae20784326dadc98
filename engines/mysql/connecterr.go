package mysql

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/dbeast/dbeast/engines"
)

// Error numbers of a failed connection setup.
const (
	errSecureTransport = 3159 // ER_SECURE_TRANSPORT_REQUIRED (require_secure_transport)
	// errAccessDeniedNoPassword: MariaDB's answer for some unknown users
	// (ER_ACCESS_DENIED_NO_PASSWORD_ERROR), depending on the fake
	// authentication plugin it picks for them.
	errAccessDeniedNoPassword = 1698
)

// classifyConnect maps a failed connection setup to a safe error with one
// static reason per thing the person can fix, from the server's error
// number and typed TLS errors. MySQL answers a wrong password and an
// unknown user with the same 1045 (deliberately: it does not tell which
// users exist), so both are authentication_failed.
func classifyConnect(err error) *engines.Error {
	switch mysqlNumber(err) {
	case errAccessDenied, errAccessDeniedNoPassword:
		return engines.NewError(engines.CodeUnavailable, engines.ReasonAuthFailed, err)
	case errDBAccessDenied:
		return engines.NewError(engines.CodeDenied, ReasonNoDatabaseAccess, err)
	case errBadDB:
		return engines.NewError(engines.CodeUnavailable, engines.ReasonDatabaseMissing, err)
	case errSecureTransport:
		return engines.NewError(engines.CodeUnavailable, engines.ReasonTLSRequired, err)
	case 0:
	default:
		return engines.NewError(engines.CodeUnavailable, engines.ReasonConnect, err)
	}
	var (
		cv *tls.CertificateVerificationError
		ua x509.UnknownAuthorityError
		hn x509.HostnameError
		rh tls.RecordHeaderError
		al tls.AlertError
	)
	if errors.Is(err, gomysql.ErrNoTLS) || errors.As(err, &cv) || errors.As(err, &ua) || errors.As(err, &hn) || errors.As(err, &rh) || errors.As(err, &al) {
		return engines.NewError(engines.CodeUnavailable, engines.ReasonTLSFailed, err)
	}
	return engines.NewError(engines.CodeUnavailable, engines.ReasonConnect, err)
}

// ReasonNoDatabaseAccess is the reason when the account exists but has
// no privilege on the source's database (1044 at connect).
const ReasonNoDatabaseAccess engines.Reason = "the account has no privilege on the source's database"

func init() {
	// connect's own check of the database (information_schema.SCHEMATA)
	// cannot tell a missing database from one the account cannot see.
	engines.RegisterProblem(ReasonNoSuchDatabase, engines.ProblemNoDatabase)
	engines.RegisterProblem(ReasonNoDatabase, engines.ProblemConfig)
	engines.RegisterProblem(ReasonSystemDatabase, engines.ProblemConfig)
}

var _ engines.AccessChecker = (*Engine)(nil)

// CheckAccess checks the two privileges every proof needs, so a source
// test reports them before an agent asks: PROCESS (the proof reads the
// InnoDB table identity) by reading the flavor's identity table, and
// LOCK TABLES (the proof's lock probe) by locking one base table of the
// database for read and unlocking it at once, when it has one. Only a
// refused privilege is an error: anything else (a lock that is not
// granted within 5 seconds, a table dropped meanwhile) says nothing
// about the account, and the connection itself already worked. The
// connection is not returned to the pool (run leaves it unclean), so the
// session setting it changes goes with it.
func (e *Engine) CheckAccess(ctx context.Context) error {
	return e.run(ctx, nil, func(ctx context.Context) error {
		denied := func(err error) bool {
			switch mysqlNumber(err) {
			case errDBAccessDenied, errTableAccessDenied, errSpecificAccess:
				return true
			}
			return false
		}
		var n int
		err := e.conn.QueryRowContext(ctx, fmt.Sprintf("SELECT COUNT(*) FROM (SELECT 1 FROM %s LIMIT 1) x", e.fl.identityTable())).Scan(&n)
		if denied(err) {
			return engines.NewError(engines.CodeDenied, ReasonNoProcess, err)
		}
		var table string
		err = e.conn.QueryRowContext(ctx, "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME LIMIT 1", e.cfg.DBName).Scan(&table)
		if err != nil {
			// No table to lock: nothing to read yet, nothing to check.
			return nil
		}
		if err := e.exec(ctx, "SET SESSION lock_wait_timeout = 5"); err != nil {
			return nil
		}
		if err := e.exec(ctx, "LOCK TABLES "+qualified(e.cfg.DBName, table)+" READ"); err != nil {
			if denied(err) {
				return engines.NewError(engines.CodeDenied, ReasonNoLockPrivilege, err)
			}
			return nil
		}
		_ = e.exec(ctx, "UNLOCK TABLES")
		return nil
	})
}
