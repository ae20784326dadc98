package postgres

import (
	"context"

	"github.com/dbeast/dbeast/engines"
)

// The temporary-file bound (issue 29, finding 8). A verified read's sorts,
// hashes and window buffers may spill to temporary files; the reading
// transaction sets temp_file_limit to 256 MB (catalogguard.go's
// catalogSteps) when the account may set it: a superuser, or, from
// PostgreSQL 15, a role granted SET on the parameter (GRANT SET ON
// PARAMETER temp_file_limit TO role). A server-wide or per-role limit
// that is already at most 256 MB is kept, never raised. Where the account
// can set none and the server sets none, the source's connection test
// carries a warning (HealthWarnings) saying what the administrator can do.

// grantedParameterMajor is the first major version with GRANT SET ON
// PARAMETER and has_parameter_privilege.
const grantedParameterMajor = 15

// tempFileLimitGranted is tempFileLimit for servers with parameter
// privileges. It reads only settings (no relation, so no lock the
// relation guard would see).
const tempFileLimitGranted = `SELECT pg_catalog.set_config('temp_file_limit', '256MB', true)
WHERE (pg_catalog.current_setting('is_superuser') = 'on' OR pg_catalog.has_parameter_privilege('temp_file_limit', 'SET'))
  AND pg_catalog.pg_size_bytes(pg_catalog.current_setting('temp_file_limit')) NOT BETWEEN 0 AND 268435456`

// tempFileLimitSQL returns the statement that sets the read's bound on
// this server.
func (e *Engine) tempFileLimitSQL() string {
	if major, ok := serverMajor(e.pg.ParameterStatus("server_version")); ok && major >= grantedParameterMajor {
		return tempFileLimitGranted
	}
	return tempFileLimit
}

// ReasonNoTempFileLimit is the health warning of a source whose reads
// have no bound on temporary files.
const ReasonNoTempFileLimit engines.Reason = "the account cannot set temp_file_limit and the server sets none, so one read's sorts may write temporary files up to the server's free disk; set temp_file_limit for the role (ALTER ROLE … SET temp_file_limit = '256MB') or grant it SET on the parameter (PostgreSQL 15+)"

// healthQuery reports whether reads get no temporary-file bound: the
// account cannot set one and the server's own is unlimited.
const healthQuery = `SELECT pg_catalog.current_setting('is_superuser') <> 'on' AND pg_catalog.current_setting('temp_file_limit') = '-1'`

// healthQueryGranted is healthQuery with parameter privileges.
const healthQueryGranted = `SELECT pg_catalog.current_setting('is_superuser') <> 'on'
  AND NOT pg_catalog.has_parameter_privilege('temp_file_limit', 'SET')
  AND pg_catalog.current_setting('temp_file_limit') = '-1'`

var _ engines.HealthWarner = (*Engine)(nil)

// HealthWarnings implements engines.HealthWarner.
func (e *Engine) HealthWarnings(ctx context.Context) ([]engines.Reason, error) {
	ctx, cancel := opContext(ctx)
	defer cancel()
	if err := e.start(ctx); err != nil {
		return nil, err
	}
	q := healthQuery
	if major, ok := serverMajor(e.pg.ParameterStatus("server_version")); ok && major >= grantedParameterMajor {
		q = healthQueryGranted
	}
	rows, err := e.query(ctx, q)
	if err != nil {
		return nil, mapErr(ctx, err)
	}
	e.reset(ctx)
	if len(rows) == 1 && isTrue(rows[0][0]) {
		return []engines.Reason{ReasonNoTempFileLimit}, nil
	}
	return nil, nil
}
