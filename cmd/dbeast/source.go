package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/dbeast/dbeast/broker"
	"github.com/dbeast/dbeast/engines"
)

func init() {
	commands["source"] = command{summary: "add, list, test, edit or remove databases (sources) of the running broker", run: func(args []string) int {
		return runSource(args, stdIO())
	}}
}

var sourceSubs = map[string]subcommand{
	"add":  {"add a database and test its connection", sourceAdd},
	"list": {"list the sources and their last connection test", sourceList},
	"test": {"test a source's connection now", sourceTest},
	"edit": {"change a source's alias, DSN, path, password or read-only flag", sourceEdit},
	"rm":   {"remove a source with its sharing, grants and requests", sourceRemove},
}

func runSource(args []string, o cmdIO) int {
	return runGroup("source", sourceSubs, []string{"add", "list", "test", "edit", "rm"}, args, o)
}

// dsnForms is the help text listing the accepted source forms, one
// example each (the console's source form shows the same).
const dsnForms = `accepted forms:
  postgres   postgres://USER@HOST:5432/DB?sslmode=disable   (also postgresql://)
             host=HOST port=5432 user=USER dbname=DB         (keyword string)
  mysql      mysql://USER@HOST:3306/DB   mariadb://USER@HOST:3306/DB
             USER@tcp(HOST:3306)/DB                          (go-sql-driver form)
  sqlite     ./shop.db   /home/me/shop.db   file:/home/me/shop.db
The kind is taken from the form; --kind overrides it. Give the password
with --password (prompt), --password-stdin or --password-env NAME, never
in the DSN on the command line.
`

// guessKind infers a source's kind from the form of its DSN or path.
func guessKind(dsn string) engines.Kind {
	low := strings.ToLower(dsn)
	switch {
	case strings.HasPrefix(low, "postgres://"), strings.HasPrefix(low, "postgresql://"):
		return engines.Postgres
	case strings.HasPrefix(low, "mysql://"), strings.HasPrefix(low, "mariadb://"), strings.Contains(dsn, "@tcp("), strings.Contains(dsn, "@unix("):
		return engines.MySQL
	case strings.HasPrefix(low, "file:"):
		return engines.SQLite
	case strings.Contains(dsn, "=") && (strings.Contains(low, "dbname=") || strings.Contains(low, "host=") || strings.Contains(low, "user=")):
		return engines.Postgres
	}
	return engines.SQLite
}

// withDSNPassword puts password into dsn in the form's own syntax, by
// the kind's driver (engines.PasswordSetter), which refuses a result it
// would read with another server, user or database. It never echoes the
// DSN in an error.
func withDSNPassword(kind engines.Kind, dsn, password string) (string, error) {
	ps, ok := engineDrivers()[kind].(engines.PasswordSetter)
	if !ok {
		return "", errors.New("a " + string(kind) + " source has no password")
	}
	return ps.DSNWithPassword(dsn, password)
}

// newSourceFrom builds the API's NewSource from a DSN or path.
func newSourceFrom(kind, dsn, alias string, readOnly bool) (broker.NewSource, error) {
	k := engines.Kind(kind)
	if kind == "" {
		k = guessKind(dsn)
	}
	ns := broker.NewSource{Kind: k, Alias: alias, ReadOnly: readOnly}
	switch k {
	case engines.SQLite:
		p := dsn
		if !strings.HasPrefix(strings.ToLower(p), "file:") {
			// The broker may run in another directory.
			abs, err := filepath.Abs(p)
			if err != nil {
				return ns, errors.New("cannot make the path absolute")
			}
			p = abs
		}
		ns.Path = p
	case engines.Postgres, engines.MySQL:
		ns.DSN = dsn
	default:
		return ns, errors.New("--kind must be sqlite, postgres or mysql")
	}
	return ns, nil
}

func sourceAdd(args []string, o cmdIO) int {
	var (
		af                          apiFlags
		pw                          passwordFlags
		kind, alias                 string
		readOnly, noTest, keepAfter bool
	)
	fs := newFlagSet("source add", "source add [--kind K] [--alias A] [--read-only] [--password|--password-stdin|--password-env NAME] DSN|PATH", dsnForms+`
  dbeast source add --alias shop postgres://me@127.0.0.1:5432/shop --password-env PGPASSWORD
  dbeast source add mysql://app@127.0.0.1:3306/orders --password
  dbeast source add --read-only ./shop.db
`, o)
	af.register(fs)
	pw.register(fs)
	fs.StringVar(&kind, "kind", "", "sqlite, postgres or mysql (default: from the DSN's form)")
	fs.StringVar(&alias, "alias", "", "the name agents see (default: <Kind> source N)")
	fs.BoolVar(&readOnly, "read-only", false, "never run writes or full SQL on this source")
	fs.BoolVar(&noTest, "no-test", false, "do not test the connection after adding")
	fs.BoolVar(&keepAfter, "keep-on-failure", false, "keep the source when its connection test fails (default: remove it again)")
	pos, code, ok := parseArgs(fs, args, o)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return o.usageError("source add", "want exactly one DSN or PATH")
	}
	ns, err := newSourceFrom(kind, pos[0], alias, readOnly)
	if err != nil {
		return o.usageError("source add", err.Error())
	}
	if dsnHasPassword(ns.DSN) {
		fmt.Fprintln(o.stderr, "dbeast source add: warning: the DSN on the command line holds a password, which other users can see in the process list and the shell keeps in its history; use --password, --password-stdin or --password-env next time")
	}
	if pw.set() {
		p, err := pw.read(o)
		if err != nil {
			return o.usageError("source add", err.Error())
		}
		if ns.DSN, err = withDSNPassword(ns.Kind, ns.DSN, p); err != nil {
			return o.usageError("source add", err.Error())
		}
	}
	c, err := af.client()
	if err != nil {
		return o.usageError("source add", err.Error())
	}
	var added struct {
		ID string `json:"source_id"`
	}
	raw, err := c.call("POST", "/api/sources", ns, &added)
	if err != nil {
		return o.fail("source add", err)
	}
	if noTest {
		if af.json {
			o.printJSON(raw)
		} else {
			fmt.Fprintf(o.stdout, "Added source %s (not tested).\n", added.ID)
		}
		return exitOK
	}
	h, hraw, err := testSource(c, added.ID)
	if err != nil {
		return o.fail("source add", err)
	}
	if !h.OK && !keepAfter {
		// A source that cannot connect is not what the person asked for;
		// removing it keeps the next attempt from adding a duplicate.
		if _, err := c.call("DELETE", "/api/sources/"+added.ID, nil, nil); err != nil {
			return o.fail("source add", err)
		}
	}
	if af.json {
		o.printJSON(jsonObject(map[string]any{"source_id": added.ID, "health": json.RawMessage(hraw), "kept": h.OK || keepAfter}))
	} else if h.OK {
		fmt.Fprintf(o.stdout, "Added source %s; the connection test passed.\n", added.ID)
		fmt.Fprintf(o.stdout, "Share it: dbeast share --all %s read   (or CONNECTION instead of --all)\n", added.ID)
	} else {
		fmt.Fprintf(o.stderr, "dbeast source add: the connection test failed: %s: %s\n", h.Problem, h.Reason)
		if keepAfter {
			fmt.Fprintf(o.stderr, "The source %s was kept (--keep-on-failure); fix it with dbeast source edit.\n", added.ID)
		} else {
			fmt.Fprintln(o.stderr, "The source was not kept.")
		}
	}
	if !h.OK {
		return exitTestFailed
	}
	return exitOK
}

// health is the console API's answer to a connection test.
type health struct {
	OK      bool   `json:"ok"`
	Code    string `json:"code"`
	Reason  string `json:"reason"`
	Problem string `json:"problem"`
}

func testSource(c *apiClient, id string) (health, []byte, error) {
	var h health
	raw, err := c.call("POST", "/api/sources/"+url.PathEscape(id)+"/test", nil, &h)
	return h, raw, err
}

// jsonObject marshals v, which cannot fail for the maps used here.
func jsonObject(v any) []byte {
	raw, _ := json.Marshal(v)
	return raw
}

// resolveSource returns the id of the source named by id or alias.
func resolveSource(c *apiClient, name string) (string, error) {
	var srcs []broker.Source
	if _, err := c.call("GET", "/api/sources", nil, &srcs); err != nil {
		return "", err
	}
	var hits []string
	for _, s := range srcs {
		if s.ID == name {
			return s.ID, nil
		}
		if s.Alias == name {
			hits = append(hits, s.ID)
		}
	}
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
		return "", &apiError{Status: 404, Msg: "no source has this id or alias"}
	}
	return "", &apiError{Status: 400, Msg: "several sources have this alias; give the source id"}
}

func sourceList(args []string, o cmdIO) int {
	var af apiFlags
	fs := newFlagSet("source list", "source list [--json]", "", o)
	af.register(fs)
	pos, code, ok := parseArgs(fs, args, o)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		return o.usageError("source list", "takes no arguments")
	}
	c, err := af.client()
	if err != nil {
		return o.usageError("source list", err.Error())
	}
	var srcs []struct {
		broker.Source
		Managed bool `json:"managed"`
	}
	raw, err := c.call("GET", "/api/sources", nil, &srcs)
	if err != nil {
		return o.fail("source list", err)
	}
	if af.json {
		o.printJSON(raw)
		return exitOK
	}
	if len(srcs) == 0 {
		fmt.Fprintln(o.stdout, "No sources. Add one: dbeast source add DSN|PATH")
		return exitOK
	}
	for _, s := range srcs {
		state := "untested"
		if s.Health != nil {
			state = "ok"
			if !s.Health.OK {
				state = string(s.Health.Code) + ": " + string(s.Health.Reason)
			}
		}
		flags := ""
		if s.ReadOnly {
			flags += " read-only"
		}
		if s.Managed {
			flags += " managed-by-config"
		}
		fmt.Fprintf(o.stdout, "%s  %-8s %q%s  (%s)\n", s.ID, s.Kind, s.Alias, flags, state)
	}
	return exitOK
}

func sourceTest(args []string, o cmdIO) int {
	var af apiFlags
	fs := newFlagSet("source test", "source test [--json] SOURCE", "  dbeast source test shop\n", o)
	af.register(fs)
	pos, code, ok := parseArgs(fs, args, o)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return o.usageError("source test", "want exactly one SOURCE (id or alias)")
	}
	c, err := af.client()
	if err != nil {
		return o.usageError("source test", err.Error())
	}
	id, err := resolveSource(c, pos[0])
	if err != nil {
		return o.fail("source test", err)
	}
	h, raw, err := testSource(c, id)
	if err != nil {
		return o.fail("source test", err)
	}
	if af.json {
		o.printJSON(raw)
	} else if h.OK {
		fmt.Fprintln(o.stdout, "ok: the connection test passed")
	} else {
		fmt.Fprintf(o.stdout, "%s: %s\n", h.Problem, h.Reason)
	}
	if !h.OK {
		return exitTestFailed
	}
	return exitOK
}

func sourceEdit(args []string, o cmdIO) int {
	var (
		af                 apiFlags
		pw                 passwordFlags
		alias, dsn, path   string
		readOnly, readable bool
	)
	fs := newFlagSet("source edit", "source edit SOURCE [--alias A] [--dsn DSN | --path PATH] [--read-only | --writable] [--password|--password-stdin|--password-env NAME]",
		"  dbeast source edit shop --password-env PGPASSWORD\n  dbeast source edit shop --alias shop-prod --read-only\n", o)
	af.register(fs)
	pw.register(fs)
	fs.StringVar(&alias, "alias", "", "a new alias")
	fs.StringVar(&dsn, "dsn", "", "a new DSN (postgres, mysql)")
	fs.StringVar(&path, "path", "", "a new file (sqlite)")
	fs.BoolVar(&readOnly, "read-only", false, "make the source read-only")
	fs.BoolVar(&readable, "writable", false, "allow writes again (not read-only)")
	pos, code, ok := parseArgs(fs, args, o)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return o.usageError("source edit", "want exactly one SOURCE (id or alias)")
	}
	if readOnly && readable {
		return o.usageError("source edit", "choose --read-only or --writable")
	}
	var ed broker.SourceEdit
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["alias"] {
		ed.Alias = &alias
	}
	if set["dsn"] {
		ed.DSN = &dsn
	}
	if set["path"] {
		abs := path
		if !strings.HasPrefix(strings.ToLower(path), "file:") {
			var err error
			if abs, err = filepath.Abs(path); err != nil {
				return o.usageError("source edit", "cannot make the path absolute")
			}
		}
		ed.Path = &abs
	}
	if readOnly || readable {
		ed.ReadOnly = &readOnly
	}
	if pw.set() {
		p, err := pw.read(o)
		if err != nil {
			return o.usageError("source edit", err.Error())
		}
		ed.Password = &p
	}
	c, err := af.client()
	if err != nil {
		return o.usageError("source edit", err.Error())
	}
	id, err := resolveSource(c, pos[0])
	if err != nil {
		return o.fail("source edit", err)
	}
	raw, err := c.call("PATCH", "/api/sources/"+url.PathEscape(id), ed, nil)
	if err != nil {
		return o.fail("source edit", err)
	}
	if af.json {
		o.printJSON(raw)
	} else {
		fmt.Fprintf(o.stdout, "Changed source %s.\n", id)
	}
	return exitOK
}

func sourceRemove(args []string, o cmdIO) int {
	var af apiFlags
	fs := newFlagSet("source rm", "source rm SOURCE", "  dbeast source rm shop\n", o)
	af.register(fs)
	pos, code, ok := parseArgs(fs, args, o)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return o.usageError("source rm", "want exactly one SOURCE (id or alias)")
	}
	c, err := af.client()
	if err != nil {
		return o.usageError("source rm", err.Error())
	}
	id, err := resolveSource(c, pos[0])
	if err != nil {
		return o.fail("source rm", err)
	}
	raw, err := c.call("DELETE", "/api/sources/"+url.PathEscape(id), nil, nil)
	if err != nil {
		return o.fail("source rm", err)
	}
	if af.json {
		o.printJSON(raw)
	} else {
		fmt.Fprintf(o.stdout, "Removed source %s.\n", id)
	}
	return exitOK
}

// dsnHasPassword reports whether a DSN given on the command line carries
// a password (a URL's userinfo, a keyword string's password=, the
// driver form's user:password@).
func dsnHasPassword(dsn string) bool {
	if strings.Contains(dsn, "://") {
		u, err := url.Parse(dsn)
		if err != nil {
			return false
		}
		_, set := u.User.Password()
		return set || u.Query().Has("password")
	}
	if cfg, err := gomysql.ParseDSN(dsn); err == nil && strings.Contains(dsn, "@") {
		return cfg.Passwd != ""
	}
	return strings.Contains(dsn, "password=")
}
