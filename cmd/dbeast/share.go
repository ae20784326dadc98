package main

import (
	"fmt"
	"strings"

	"github.com/dbeast/dbeast/broker"
)

func init() {
	commands["share"] = command{summary: "set what one agent connection (or all of them) may do on a source", run: func(args []string) int {
		return runShare(args, stdIO())
	}}
}

// tableFlags collect repeated --table schema.name=LEVEL flags.
type tableFlags []broker.TableShare

func (t *tableFlags) String() string { return "" }

// Set parses schema.name=LEVEL; the schema is everything before the
// first dot (main for SQLite, the database for MySQL).
func (t *tableFlags) Set(v string) error {
	name, level, ok := strings.Cut(v, "=")
	schema, table, dot := strings.Cut(name, ".")
	if !ok || !dot || schema == "" || table == "" || level == "" {
		return fmt.Errorf("want schema.name=LEVEL")
	}
	*t = append(*t, broker.TableShare{Schema: schema, Name: table, Access: broker.TableAccess(level)})
	return nil
}

// shareExamples show both forms of share.
const shareExamples = `  dbeast share --all shop read
  dbeast share "Claude Code" shop ask --table public.orders=read
  dbeast share ci-agent orders none          # stop sharing (revokes grants and requests)
levels: none, ask (every access needs your approval), read, read_write;
table access: read or read_write. Narrowing revokes the affected sessions'
grants and requests on the source, as in the console.
`

func runShare(args []string, o cmdIO) int {
	var (
		af     apiFlags
		all    bool
		tables tableFlags
	)
	fs := newFlagSet("share", "share [--all] [CONNECTION] SOURCE LEVEL [--table schema.name=LEVEL]...", shareExamples, o)
	af.register(fs)
	fs.BoolVar(&all, "all", false, "set the All agents entry instead of one connection's")
	fs.Var(&tables, "table", "per-table access `schema.name=LEVEL` (repeatable)")
	pos, code, ok := parseArgs(fs, args, o)
	if !ok {
		return code
	}
	want := 3
	if all {
		want = 2
	}
	if len(pos) != want {
		return o.usageError("share", "want CONNECTION SOURCE LEVEL, or --all SOURCE LEVEL")
	}
	c, err := af.client()
	if err != nil {
		return o.usageError("share", err.Error())
	}
	e := broker.SharingEntry{ConnectionID: broker.AllConnections, Tables: []broker.TableShare(tables)}
	if e.Tables == nil {
		e.Tables = []broker.TableShare{}
	}
	if !all {
		if e.ConnectionID, err = resolveConnection(c, pos[0]); err != nil {
			return o.fail("share", err)
		}
		pos = pos[1:]
	}
	if e.SourceID, err = resolveSource(c, pos[0]); err != nil {
		return o.fail("share", err)
	}
	e.DatabaseLevel = broker.Level(pos[1])
	raw, err := c.call("PUT", "/api/sharing", e, nil)
	if err != nil {
		return o.fail("share", err)
	}
	if af.json {
		o.printJSON(raw)
		return exitOK
	}
	who := "all agents"
	if !all {
		who = "connection " + e.ConnectionID
	}
	fmt.Fprintf(o.stdout, "Shared source %s with %s: %s", e.SourceID, who, e.DatabaseLevel)
	for _, t := range e.Tables {
		fmt.Fprintf(o.stdout, ", %s.%s %s", t.Schema, t.Name, t.Access)
	}
	fmt.Fprintln(o.stdout)
	return exitOK
}
