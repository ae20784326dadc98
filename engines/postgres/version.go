package postgres

import (
	"context"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/dbeast/dbeast/engines"
)

// minServerMajor is the oldest PostgreSQL major version the engine is
// tested with: make matrix (conformance/matrix/run.sh) runs the contract
// suite and the conformance slice on 13, 14, 15, 16, 17 and 18. The
// proof's catalog queries, the function guard's reading of EXPLAIN and
// the write detector (pg_current_xact_id_if_assigned, new in 13) are
// unverified before that, so an older server is refused rather than
// trusted.
const minServerMajor = 13

// checkServerVersion refuses, and closes, a connection to a server older
// than minServerMajor or one that does not say which version it is. It
// reads the server_version the server reports at startup, so it costs no
// round trip.
func checkServerVersion(ctx context.Context, conn *pgx.Conn) error {
	if major, ok := serverMajor(conn.PgConn().ParameterStatus("server_version")); ok && major >= minServerMajor {
		return nil
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), closeTimeout)
	defer cancel()
	_ = conn.Close(cctx)
	return engines.NewError(engines.CodeUnavailable, ReasonServerVersion, nil)
}

// serverMajor reads the major version from a server_version value such as
// "13.23", "18.4 (Debian 18.4-1.pgdg120+1)", "17beta1" or "9.6.24" (whose
// major, for this purpose, is 9). ok is false when the value does not
// start with a number.
func serverMajor(v string) (major int, ok bool) {
	n := 0
	for n < len(v) && v[n] >= '0' && v[n] <= '9' {
		n++
	}
	if n == 0 || n > 4 {
		return 0, false
	}
	major, err := strconv.Atoi(v[:n])
	return major, err == nil
}

// extractMajor is the first major version with a function named extract:
// before 14, EXTRACT(field FROM x) calls date_part (and the plan prints
// it so), so on those servers the verdict's extract stands for date_part,
// a built-in of the same family and volatility.
const extractMajor = 14

// serverFunction is the pg_proc name the server calls for the verdict
// function name n.
func (e *Engine) serverFunction(n string) string {
	if n == "extract" {
		if major, ok := serverMajor(e.pg.ParameterStatus("server_version")); ok && major < extractMajor {
			return "date_part"
		}
	}
	return n
}
