package sqlite

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/engines/enginetest"
	"github.com/dbeast/dbeast/verifier"
)

func TestContract(t *testing.T) {
	path := filepath.Join(t.TempDir(), "contract.db")
	file := func(*testing.T) string { return path }
	enginetest.Run(t, enginetest.Harness{
		Driver:  Driver{},
		Dialect: verifier.SQLite,
		Schema:  "main",
		Source: func(t *testing.T, readOnly bool) engines.Source {
			return engines.Source{Kind: engines.SQLite, Path: file(t), ReadOnly: readOnly}
		},
		Admin: func(t *testing.T, stmts ...string) { admin(t, file(t), stmts...) },
		Quote: func(id string) string { return `"` + strings.ReplaceAll(id, `"`, `""`) + `"` },
		Setup: []string{
			`DROP TABLE IF EXISTS et_items`,
			`DROP TABLE IF EXISTS et_other`,
			`CREATE TABLE et_items (id INTEGER PRIMARY KEY, name TEXT, big INTEGER)`,
			`INSERT INTO et_items VALUES (1, 'one', 9223372036854775807), (2, 'two', NULL), (3, 'three', -1)`,
			`CREATE TABLE et_other (id INTEGER)`,
			`INSERT INTO et_other VALUES (1)`,
		},
	})
}
