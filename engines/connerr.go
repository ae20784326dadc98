package engines

import "context"

// Reasons of a failed connection setup, one per thing the person can fix.
// Engines classify their driver's typed errors (SQLSTATEs, error numbers,
// net and TLS errors) into these; like every Reason they are static text.
const (
	ReasonTLSRequired     Reason = "the server requires an encrypted (TLS) connection"
	ReasonTLSFailed       Reason = "the TLS handshake failed (the server does not offer TLS, or its certificate was not accepted)"
	ReasonAuthFailed      Reason = "the server refused the user name or password"
	ReasonRoleUnknown     Reason = "the user (role) does not exist on the server"
	ReasonDatabaseMissing Reason = "the database does not exist on the server"
	ReasonFileMissing     Reason = "the database file does not exist or is not a regular file"
)

// Problem is the stable code of a failed connection test: what the person
// has to fix, for the console, the CLI and scripts. The set is closed.
type Problem string

// Problems. ProblemOf derives one from an engine error's code and reason.
const (
	ProblemUnreachable Problem = "server_unreachable"
	ProblemTLSRequired Problem = "tls_required"
	ProblemTLSFailed   Problem = "tls_failed"
	ProblemAuth        Problem = "authentication_failed"
	ProblemRoleUnknown Problem = "role_unknown"
	ProblemNoDatabase  Problem = "database_missing"
	ProblemPrivilege   Problem = "insufficient_privilege"
	ProblemFileMissing Problem = "file_missing"
	ProblemTimeout     Problem = "setup_timeout"
	ProblemConfig      Problem = "bad_configuration"
	ProblemOther       Problem = "connection_failed"
)

// problems maps the shared reasons to their problem.
var problems = map[Reason]Problem{
	ReasonConnect:         ProblemUnreachable,
	ReasonSetupTimeout:    ProblemTimeout,
	ReasonBadConfig:       ProblemConfig,
	ReasonTLSRequired:     ProblemTLSRequired,
	ReasonTLSFailed:       ProblemTLSFailed,
	ReasonAuthFailed:      ProblemAuth,
	ReasonRoleUnknown:     ProblemRoleUnknown,
	ReasonDatabaseMissing: ProblemNoDatabase,
	ReasonFileMissing:     ProblemFileMissing,
}

// RegisterProblem adds an engine's own reason to the table ProblemOf
// reads. Engines call it from init only (the table is not locked).
func RegisterProblem(r Reason, p Problem) { problems[r] = p }

// ProblemOf is the problem of a failed connection test with code and
// reason: a shared or registered reason's own, CodeDenied (a privilege
// the account lacks, whose reason names it) insufficient_privilege, ""
// for no code (success), anything else connection_failed.
func ProblemOf(code Code, reason Reason) Problem {
	if code == "" {
		return ""
	}
	if p, ok := problems[reason]; ok {
		return p
	}
	if code == CodeDenied {
		return ProblemPrivilege
	}
	return ProblemOther
}

// AccessChecker is an optional ability of an Engine: checking, when a
// source is tested, the privileges its proofs will need (MySQL's PROCESS
// and LOCK TABLES), so a missing one is reported before any agent asks.
// A missing privilege is an *Error with CodeDenied and a reason naming it.
type AccessChecker interface {
	CheckAccess(ctx context.Context) error
}
