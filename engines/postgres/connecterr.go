package postgres

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dbeast/dbeast/engines"
)

// SQLSTATEs a failed connection setup is classified by.
const (
	sqlstateInvalidPassword = "28P01" // invalid_password
	sqlstateInvalidAuthSpec = "28000" // invalid_authorization_specification
	sqlstateNoDatabase      = "3D000" // invalid_catalog_name
	sqlstateNoPrivilege     = "42501" // insufficient_privilege (CONNECT)
)

// connectError classifies a failed connection setup (after the context
// cases) into a safe error with one static reason per thing the person
// can fix. It decides on the server's SQLSTATE and on typed net and TLS
// errors; the only text it looks at is the message of a 28000, which
// PostgreSQL uses for an unknown role, a pg_hba.conf rejection and a
// role that may not log in, and that text is never copied anywhere.
func connectError(err error) *engines.Error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case sqlstateInvalidPassword:
			return engines.NewError(engines.CodeUnavailable, engines.ReasonAuthFailed, err)
		case sqlstateNoDatabase:
			return engines.NewError(engines.CodeUnavailable, engines.ReasonDatabaseMissing, err)
		case sqlstateNoPrivilege:
			return engines.NewError(engines.CodeDenied, ReasonPrivilege, err)
		case sqlstateInvalidAuthSpec:
			msg := pgErr.Message
			switch {
			case strings.Contains(msg, "pg_hba.conf") && (strings.Contains(msg, "no encryption") || strings.Contains(msg, "SSL off")):
				return engines.NewError(engines.CodeUnavailable, engines.ReasonTLSRequired, err)
			case strings.Contains(msg, "pg_hba.conf"):
				return engines.NewError(engines.CodeUnavailable, engines.ReasonAuthFailed, err)
			case strings.Contains(msg, "does not exist"):
				return engines.NewError(engines.CodeUnavailable, engines.ReasonRoleUnknown, err)
			}
			// A role that may not log in, and whatever else 28000 covers.
			return engines.NewError(engines.CodeUnavailable, engines.ReasonConnect, err)
		}
		return engines.NewError(engines.CodeUnavailable, engines.ReasonConnect, err)
	}
	if isTLSError(err) {
		return engines.NewError(engines.CodeUnavailable, engines.ReasonTLSFailed, err)
	}
	return engines.NewError(engines.CodeUnavailable, engines.ReasonConnect, err)
}

// isTLSError reports whether err is a failed TLS handshake: a
// certificate the client did not accept, a TLS alert, or a server that
// refused TLS (pgconn reports that one as plain text, the only case
// decided on the error's text).
func isTLSError(err error) bool {
	var (
		cv   *tls.CertificateVerificationError
		ua   x509.UnknownAuthorityError
		hn   x509.HostnameError
		ci   x509.CertificateInvalidError
		rh   tls.RecordHeaderError
		al   tls.AlertError
		opEr *net.OpError
	)
	if errors.As(err, &cv) || errors.As(err, &ua) || errors.As(err, &hn) || errors.As(err, &ci) || errors.As(err, &rh) || errors.As(err, &al) {
		return true
	}
	if errors.As(err, &opEr) && opEr.Op == "remote error" {
		return true
	}
	return strings.Contains(err.Error(), "server refused TLS connection")
}
