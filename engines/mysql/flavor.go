package mysql

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// flavor is the server family. Every behaviour that differs between MySQL 8
// and MariaDB is a method here, so the differences are listed in one place:
//
//   - identity table: MariaDB information_schema.INNODB_SYS_TABLES,
//     MySQL 8 information_schema.INNODB_TABLES (both need PROCESS; both
//     name a table "db/table" in the server's filename encoding);
//   - statement time limit: MariaDB max_statement_time (seconds, any
//     statement), MySQL 8 max_execution_time (milliseconds, SELECT only);
//   - generated columns: MariaDB has COLUMNS.IS_GENERATED = 'ALWAYS' and
//     EXTRA 'VIRTUAL GENERATED' / 'STORED GENERATED' (older: 'PERSISTENT
//     GENERATED'); MySQL 8 has only EXTRA 'VIRTUAL GENERATED' / 'STORED
//     GENERATED' and uses 'DEFAULT_GENERATED' for expression defaults, which
//     are not generated columns;
//   - JSON: MySQL 8 has a native JSON type (COLUMN_TYPE 'json'); MariaDB's
//     JSON is LONGTEXT with a CHECK (json_valid(`col`)) constraint, which
//     the proof reports as type "json";
//   - table kinds: MariaDB's TABLES.TABLE_TYPE also has 'SEQUENCE',
//     'SYSTEM VERSIONED' and 'TEMPORARY'; only 'BASE TABLE' is eligible on
//     either server.
//
// The zero flavor is MySQL.
type flavor struct {
	mariadb bool
	major   int
	minor   int
}

// detectFlavor reads the family from SELECT VERSION() and
// @@version_comment. MariaDB always names itself in one of them (its
// VERSION() ends in "-MariaDB…"). Servers older than MySQL 8 or MariaDB
// 10.3 are refused: they lack the identity table or the column metadata
// the proof relies on.
func detectFlavor(version, comment string) (flavor, bool) {
	f := flavor{
		mariadb: strings.Contains(strings.ToLower(version), "mariadb") ||
			strings.Contains(strings.ToLower(comment), "mariadb"),
	}
	if f.mariadb {
		// Some MariaDB servers prefix their version with "5.5.5-" for old
		// replication clients.
		version = strings.TrimPrefix(version, "5.5.5-")
	}
	parts := strings.SplitN(version, ".", 3)
	if len(parts) < 2 {
		return f, false
	}
	var err1, err2 error
	f.major, err1 = strconv.Atoi(parts[0])
	f.minor, err2 = strconv.Atoi(strings.TrimLeftFunc(parts[1], func(r rune) bool { return r < '0' || r > '9' }))
	if err1 != nil || err2 != nil {
		return f, false
	}
	if f.mariadb {
		// MariaDB 11+ or 10.3+.
		return f, f.major > 10 || (f.major == 10 && f.minor >= 3)
	}
	return f, f.major >= 8
}

// String names the flavor for tests and documentation.
func (f flavor) String() string {
	if f.mariadb {
		return "MariaDB"
	}
	return "MySQL"
}

// identityTable is the InnoDB dictionary view holding the persistent table
// id.
func (f flavor) identityTable() string {
	if f.mariadb {
		return "information_schema.INNODB_SYS_TABLES"
	}
	return "information_schema.INNODB_TABLES"
}

// identitySQL selects the identity row for one table by its InnoDB name
// (the single placeholder). TABLE_ID changes when the table is rebuilt or
// recreated; N_COLS also changes with an instant ADD/DROP COLUMN.
func (f flavor) identitySQL() string {
	return "SELECT TABLE_ID, N_COLS, SPACE, FLAG FROM " + f.identityTable() + " WHERE NAME = ?"
}

// timeoutSQL returns the session statements bounding one operation of at
// most d: the statement time limit (flavor-specific), and the metadata and
// InnoDB row lock waits (same names on both).
func (f flavor) timeoutSQL(d time.Duration) []string {
	secs := int((d + time.Second - 1) / time.Second)
	if secs < 1 {
		secs = 1
	}
	var limit string
	if f.mariadb {
		// Seconds, a double; applies to every statement.
		limit = fmt.Sprintf("SET SESSION max_statement_time = %d", secs)
	} else {
		// Milliseconds; MySQL applies it to read-only SELECT statements only.
		limit = fmt.Sprintf("SET SESSION max_execution_time = %d", secs*1000)
	}
	return []string{
		limit,
		fmt.Sprintf("SET SESSION lock_wait_timeout = %d", secs),
		fmt.Sprintf("SET SESSION innodb_lock_wait_timeout = %d", secs),
	}
}

// columnsSQL lists a table's columns (schema and table placeholders) in
// ordinal order: name, ordinal, COLUMN_TYPE, IS_NULLABLE, charset,
// collation, EXTRA and, on MariaDB, IS_GENERATED (empty on MySQL).
func (f flavor) columnsSQL() string {
	gen := "''"
	if f.mariadb {
		gen = "COALESCE(IS_GENERATED, '')"
	}
	return "SELECT COLUMN_NAME, ORDINAL_POSITION, COLUMN_TYPE, IS_NULLABLE, " +
		"COALESCE(CHARACTER_SET_NAME, ''), COALESCE(COLLATION_NAME, ''), COALESCE(EXTRA, ''), " + gen +
		" FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION"
}

// isGenerated reports whether a column is generated, from its EXTRA and
// (MariaDB) IS_GENERATED values.
func (f flavor) isGenerated(extra, isGenerated string) bool {
	e := strings.ToUpper(extra)
	if strings.Contains(e, "VIRTUAL GENERATED") || strings.Contains(e, "STORED GENERATED") {
		return true
	}
	if f.mariadb {
		return strings.EqualFold(isGenerated, "ALWAYS") || strings.Contains(e, "PERSISTENT GENERATED")
	}
	return false
}

// jsonChecksSQL lists, on MariaDB, the CHECK clauses of a table (schema and
// table placeholders) so that LONGTEXT columns constrained by
// json_valid(`col`) are reported as JSON. Empty on MySQL, whose JSON type
// is native.
func (f flavor) jsonChecksSQL() string {
	if !f.mariadb {
		return ""
	}
	return "SELECT CHECK_CLAUSE FROM information_schema.CHECK_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = ? AND TABLE_NAME = ?"
}

// jsonCheckColumn returns the column a MariaDB CHECK clause of the exact
// form json_valid(`col`) constrains.
func jsonCheckColumn(clause string) (string, bool) {
	const pre, post = "json_valid(`", "`)"
	if !strings.HasPrefix(clause, pre) || !strings.HasSuffix(clause, post) {
		return "", false
	}
	col := clause[len(pre) : len(clause)-len(post)]
	return strings.ReplaceAll(col, "``", "`"), true
}

// systemDatabases are never readable, whatever the configuration says.
var systemDatabases = map[string]bool{
	"mysql": true, "information_schema": true, "performance_schema": true, "sys": true,
}

// isSystemDatabase reports whether name is a system database. Names are
// compared case-insensitively, since lower_case_table_names may fold them.
func isSystemDatabase(name string) bool { return systemDatabases[strings.ToLower(name)] }

// innodbName returns the InnoDB dictionary name "db/table" in the server's
// filename encoding. Letters, digits and '_' stay; other ASCII characters
// become @ and four lower-case hex digits. Non-ASCII names use code tables
// this function does not reproduce, so they report false and the proof
// refuses (fail closed) rather than guessing.
func innodbName(db, table string) (string, bool) {
	a, ok1 := filenameEncode(db)
	b, ok2 := filenameEncode(table)
	return a + "/" + b, ok1 && ok2
}

func filenameEncode(s string) (string, bool) {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
			b.WriteRune(r)
		case r > 0 && r < 0x80:
			fmt.Fprintf(&b, "@%04x", r)
		default:
			return "", false
		}
	}
	return b.String(), true
}
