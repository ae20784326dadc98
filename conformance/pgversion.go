package conformance

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// pg16Numbers is the server_version_num from which PostgreSQL reads the
// numeric literal forms PostgreSQL 16 added.
const pg16Numbers = 160000

// errPre16Number is the static OriginalError of a case whose original
// text is not compared on a server older than PostgreSQL 16.
const errPre16Number = "not compared: PostgreSQL before 16 reads the text's 0x/0o/0b or 1_000 number differently " +
	"(0x1F as 0 AS x1F); only the printed text, which every version reads the same way, ever runs"

// hasPG16Number reports whether sql, scanned with pg_query's PostgreSQL 16
// lexer, holds a numeric constant written in a form PostgreSQL 16 added:
// a hexadecimal, octal or binary integer (0x1F, 0o17, 0b101) or a number
// with underscores (1_000). PostgreSQL 13 and 14 read 0x1F as the
// constant 0 with the column alias x1F, and 1_000 as 1 AS _000, so the
// original text means something else there than the verdict (which the
// verifier prints in decimal, read the same way by every version). A text
// the lexer cannot scan has no such constant for this purpose.
func hasPG16Number(sql string) bool {
	res, err := pg_query.Scan(sql)
	if err != nil {
		return false
	}
	for _, t := range res.Tokens {
		if t.Token != pg_query.Token_ICONST && t.Token != pg_query.Token_FCONST {
			continue
		}
		if t.Start < 0 || t.End > int32(len(sql)) || t.Start >= t.End {
			continue
		}
		lit := sql[t.Start:t.End]
		if strings.Contains(lit, "_") {
			return true
		}
		if len(lit) > 1 && lit[0] == '0' && strings.ContainsRune("xXoObB", rune(lit[1])) {
			return true
		}
	}
	return false
}
