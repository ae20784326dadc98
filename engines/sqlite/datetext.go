package sqlite

import (
	"context"
	"database/sql"
	"strconv"
	"strings"

	msqlite "modernc.org/sqlite"

	"github.com/dbeast/dbeast/engines"
)

// modernc.org/sqlite turns TEXT read from a result column whose declared
// type is DATE, DATETIME or TIMESTAMP into time.Time, with no option to
// switch it off, and the original text cannot be rebuilt exactly from the
// time ("…:00.500" and "…:00.5" parse alike). The declared type follows a
// column through subqueries and CTEs but not through an expression, so a
// result with such a column is read through a wrapper whose only change is
// SQLite's no-op unary plus on every column:
//
//	WITH "dbeast_q"("c1", …) AS (<NormalizedSQL>) SELECT +"c1", … FROM "dbeast_q"
//
// The explicit CTE column list avoids name clashes, the result keeps the
// inner statement's column names, and a plain SELECT over one CTE keeps
// the inner ORDER BY. Statements without such columns run unchanged.

// timeDeclTypes are the declared types (upper-cased) the driver converts.
var timeDeclTypes = map[string]bool{"DATE": true, "DATETIME": true, "TIMESTAMP": true}

// resultShape prepares query without running it and returns its column
// names and whether any column has a declared type the driver converts.
func resultShape(ctx context.Context, conn *sql.Conn, query string) (names []string, timeCols bool, err error) {
	err = conn.Raw(func(dc any) error {
		ci, ok := dc.(columnInfoer)
		if !ok {
			return engines.NewError(engines.CodeFailed, engines.ReasonExecution, nil)
		}
		info, err := ci.ColumnInfo(query)
		if err != nil {
			return err
		}
		names, timeCols = shapeOf(info)
		return nil
	})
	return names, timeCols, err
}

func shapeOf(info []msqlite.ColumnInfo) (names []string, timeCols bool) {
	names = make([]string, len(info))
	for i, c := range info {
		names[i] = c.Name
		if timeDeclTypes[strings.ToUpper(c.DeclType)] {
			timeCols = true
		}
	}
	return names, timeCols
}

// wrapPlain returns the unary-plus wrapper of a read with n columns.
func wrapPlain(query string, n int) string {
	var b strings.Builder
	b.WriteString(`WITH "dbeast_q"(`)
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteString(", ")
		}
		b.WriteString(`"c` + strconv.Itoa(i) + `"`)
	}
	b.WriteString(") AS (")
	b.WriteString(strings.TrimRight(strings.TrimSpace(query), ";"))
	b.WriteString("\n) SELECT ")
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteString(", ")
		}
		b.WriteString(`+"c` + strconv.Itoa(i) + `"`)
	}
	b.WriteString(` FROM "dbeast_q"`)
	return b.String()
}
