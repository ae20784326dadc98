package mysql

import (
	"context"
	"fmt"

	"github.com/dbeast/dbeast/engines"
)

// What one read may write to the server's temporary directory (issue 29,
// finding 6: a filesort wrote 1 GB in 8 s, about 4 GB within the
// deadline). MariaDB 10.11 has no per-session cap on temporary space
// (max_tmp_session_space_usage exists from 11.5 only, and MySQL 8 has
// none), so the engine bounds what it can with session settings and
// warns about the rest on the source's health (docs/safe-sql.md, "What
// one read may cost"):
//
//   - The statement's own ORDER BY: the read runs with sql_select_limit
//     one over its row limit (readSQL), the rows the result can hold
//     anyway. MariaDB then sorts in a priority queue in memory
//     (Sort_priority_queue_sorts) and writes no merge file; without it the
//     sort of a cross join spilled every row (Sort_merge_passes).
//   - Internal temporary tables (GROUP BY, DISTINCT, UNION, materialized
//     derived tables and CTEs): tmp_disk_table_size (MariaDB, per session,
//     per table) refuses the read once one grows past tempDiskTableSize
//     (ReasonTempSpace).
//   - Not bounded: the sorts of a window function, of a grouping done by
//     sorting, of a derived table with its own ORDER BY … LIMIT, and any
//     sort on MySQL 8 (no SET STATEMENT): only max_statement_time (the
//     30-second deadline) stops them. HealthWarnings says so.

// tempDiskTableSize is the session's tmp_disk_table_size for verified
// reads and table writes. A variable so that a test can lower it.
var tempDiskTableSize = 256 << 20

// readSQL is the statement a verified read runs: on MariaDB, stmt with
// sql_select_limit one over the result's row limit for that statement
// only, so its top-level ORDER BY sorts no more rows than the result can
// hold (an explicit LIMIT of the statement takes precedence, as on the
// server), and in the server's global time zone of the moment (the
// session SET may have been skipped: session.go).
func (f flavor) readSQL(stmt string, lim engines.Limits) string {
	if !f.mariadb {
		return stmt
	}
	rows := lim.MaxRows
	if rows <= 0 {
		rows = engines.DefaultMaxRows
	}
	return fmt.Sprintf("SET STATEMENT sql_select_limit = %d, %s FOR %s", rows+1, zoneSetting, stmt)
}

// HealthWarnings implements engines.HealthWarner: no MySQL or MariaDB
// server this engine supports caps a session's temporary files, so the
// warning needs no round trip.
func (e *Engine) HealthWarnings(context.Context) ([]engines.Reason, error) {
	return []engines.Reason{ReasonNoTempCap}, nil
}
