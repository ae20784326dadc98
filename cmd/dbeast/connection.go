package main

import (
	"encoding/json"
	"fmt"
	"net/url"

	"github.com/dbeast/dbeast/broker"
)

func init() {
	commands["connection"] = command{summary: "add, list or revoke agent connections of the running broker", run: func(args []string) int {
		return runConnection(args, stdIO())
	}}
}

var connectionSubs = map[string]subcommand{
	"add":    {"create an agent connection and print its client configurations (the token is shown only then)", connectionAdd},
	"list":   {"list the agent connections (never their tokens)", connectionList},
	"revoke": {"revoke a connection: its token stops working and its sessions end", connectionRevoke},
}

func runConnection(args []string, o cmdIO) int {
	return runGroup("connection", connectionSubs, []string{"add", "list", "revoke"}, args, o)
}

// createdConnection is the console API's one-time answer to POST
// /api/connections.
type createdConnection struct {
	broker.NewConnection
	Snippets []broker.Snippet `json:"snippets"`
}

func connectionAdd(args []string, o cmdIO) int {
	var (
		af        apiFlags
		tokenFile string
	)
	fs := newFlagSet("connection add", "connection add [--token-file FILE] [--json] LABEL",
		"  dbeast connection add \"Claude Code\"\n  dbeast connection add --token-file ~/.config/agent.token ci-agent\n", o)
	af.register(fs)
	fs.StringVar(&tokenFile, "token-file", "", "write the token to FILE (mode 0600) instead of printing the client configurations")
	pos, code, ok := parseArgs(fs, args, o)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return o.usageError("connection add", "want exactly one LABEL")
	}
	c, err := af.client()
	if err != nil {
		return o.usageError("connection add", err.Error())
	}
	var nc createdConnection
	raw, err := c.call("POST", "/api/connections", map[string]string{"label": pos[0]}, &nc)
	if err != nil {
		return o.fail("connection add", err)
	}
	if tokenFile != "" {
		if err := writeSecretFile(tokenFile, nc.Token+"\n"); err != nil {
			// The connection exists but its token is lost: revoke it
			// rather than leave an orphan nobody can use.
			c.call("DELETE", "/api/connections/"+url.PathEscape(nc.ID), nil, nil)
			return o.fail("connection add", fmt.Errorf("cannot write the token file; the connection was revoked"))
		}
		if af.json {
			o.printJSON(jsonObject(map[string]string{"connection_id": nc.ID, "token_file": tokenFile}))
		} else {
			fmt.Fprintf(o.stdout, "Created the agent connection %q (%s); its token is in %s.\n", pos[0], nc.ID, tokenFile)
		}
		return exitOK
	}
	if af.json {
		o.printJSON(raw)
		return exitOK
	}
	fmt.Fprintf(o.stdout, "Created the agent connection %q (%s); its token is shown only here.\n", pos[0], nc.ID)
	for _, s := range nc.Snippets {
		fmt.Fprintf(o.stdout, "\n%s — %s:\n%s\n", s.Title, s.Where, s.Text)
	}
	fmt.Fprintln(o.stdout)
	return exitOK
}

// resolveConnection returns the id of the connection named by id or
// label.
func resolveConnection(c *apiClient, name string) (string, error) {
	var conns []broker.Connection
	if _, err := c.call("GET", "/api/connections", nil, &conns); err != nil {
		return "", err
	}
	var hits []string
	for _, cn := range conns {
		if cn.ID == name {
			return cn.ID, nil
		}
		if cn.Label == name {
			hits = append(hits, cn.ID)
		}
	}
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
		return "", &apiError{Status: 404, Msg: "no connection has this id or label"}
	}
	return "", &apiError{Status: 400, Msg: "several connections have this label; give the connection id"}
}

func connectionList(args []string, o cmdIO) int {
	var af apiFlags
	fs := newFlagSet("connection list", "connection list [--json]", "", o)
	af.register(fs)
	pos, code, ok := parseArgs(fs, args, o)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		return o.usageError("connection list", "takes no arguments")
	}
	c, err := af.client()
	if err != nil {
		return o.usageError("connection list", err.Error())
	}
	var conns []struct {
		broker.Connection
		Managed bool `json:"managed"`
	}
	raw, err := c.call("GET", "/api/connections", nil, &conns)
	if err != nil {
		return o.fail("connection list", err)
	}
	if af.json {
		o.printJSON(raw)
		return exitOK
	}
	if len(conns) == 0 {
		fmt.Fprintln(o.stdout, "No agent connections. Add one: dbeast connection add LABEL")
	}
	for _, cn := range conns {
		m := ""
		if cn.Managed {
			m = " managed-by-config"
		}
		fmt.Fprintf(o.stdout, "%s  %q  created %s%s\n", cn.ID, cn.Label, cn.CreatedAt.Format("2006-01-02 15:04"), m)
	}
	return exitOK
}

func connectionRevoke(args []string, o cmdIO) int {
	var af apiFlags
	fs := newFlagSet("connection revoke", "connection revoke CONNECTION", "  dbeast connection revoke ci-agent\n", o)
	af.register(fs)
	pos, code, ok := parseArgs(fs, args, o)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return o.usageError("connection revoke", "want exactly one CONNECTION (id or label)")
	}
	c, err := af.client()
	if err != nil {
		return o.usageError("connection revoke", err.Error())
	}
	id, err := resolveConnection(c, pos[0])
	if err != nil {
		return o.fail("connection revoke", err)
	}
	raw, err := c.call("DELETE", "/api/connections/"+url.PathEscape(id), nil, nil)
	if err != nil {
		return o.fail("connection revoke", err)
	}
	if af.json {
		o.printJSON(json.RawMessage(raw))
	} else {
		fmt.Fprintf(o.stdout, "Revoked connection %s.\n", id)
	}
	return exitOK
}
