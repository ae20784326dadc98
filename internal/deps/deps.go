//go:build deps

// Package deps pins the project's dependencies while the packages that use
// them are being written; it is never built (the deps tag is never set).
package deps

import (
	_ "fyne.io/systray"
	_ "github.com/chromedp/chromedp"
	_ "github.com/go-sql-driver/mysql"
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/google/uuid"
	_ "github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/pgconn"
	_ "github.com/keybase/go-keychain"
	_ "github.com/leanovate/gopter"
	_ "github.com/modelcontextprotocol/go-sdk/mcp"
	_ "github.com/pganalyze/pg_query_go/v5"
	_ "github.com/pingcap/tidb/pkg/parser"
	_ "github.com/pingcap/tidb/pkg/parser/ast"
	_ "github.com/pingcap/tidb/pkg/parser/format"
	_ "github.com/pingcap/tidb/pkg/parser/test_driver"
	_ "github.com/testcontainers/testcontainers-go"
	_ "github.com/testcontainers/testcontainers-go/modules/mysql"
	_ "github.com/testcontainers/testcontainers-go/modules/postgres"
	_ "golang.org/x/time/rate"
	_ "modernc.org/sqlite"
)
