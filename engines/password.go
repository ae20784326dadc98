package engines

// PasswordSetter is an optional ability of a Driver: replacing only the
// password inside a source's DSN, in whatever form the person wrote it
// (a URL, a keyword string, the driver's own form). Each driver knows the
// forms its parser reads, so the edit lives with it rather than in the
// broker, which would otherwise have to parse every driver's syntax.
//
// DSNWithPassword returns dsn with its password replaced by password. It
// refuses (an *Error with ReasonBadConfig or ReasonPasswordNotSet, never
// carrying the DSN) unless the driver reads the result with exactly that
// password and the same network, host, port, user and database as dsn,
// so an edit of the password can never point the source elsewhere.
type PasswordSetter interface {
	DSNWithPassword(dsn, password string) (string, error)
}

// ReasonPasswordNotSet is why a PasswordSetter refuses an edited DSN the
// driver would read with another password or another server, user or
// database than before.
const ReasonPasswordNotSet Reason = "the driver would not read the new password from this DSN"
