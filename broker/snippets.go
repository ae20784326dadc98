package broker

import (
	"encoding/json"
	"strings"
)

// Snippet is a ready-to-paste client configuration for one MCP client.
// It is shown once, where the connection is created, and never logged.
//
// The token is kept out of every command line (another local user can
// read a process's arguments in /proc) and, wherever the client can
// expand a variable or prompt for a secret, out of the configuration
// file too, which people share and commit: Text then refers to the token
// (Claude Code's ${DBEAST_TOKEN}, Cursor's ${env:DBEAST_TOKEN}, VS Code's
// password prompt) and Secret carries it. Only where the client has no
// such expansion does Text hold the token, and HoldsToken says so.
type Snippet struct {
	// Client is a stable id: claude-code, claude-code-json, vscode,
	// cursor, claude-desktop or generic.
	Client string `json:"client"`
	// Title names the client for a person.
	Title string `json:"title"`
	// Where says where the text goes.
	Where string `json:"where"`
	// Format is "shell" (a command line) or "json" (a file's content).
	Format string `json:"format"`
	// Text is the snippet itself.
	Text string `json:"text"`
	// Secret is how the token reaches a client whose Text only refers to
	// it: a shell line setting the environment variable Text names (a
	// shell builtin, so the token is in no process's arguments), or, for
	// a client that prompts for it, the token itself. Empty when Text
	// holds the token.
	Secret string `json:"secret,omitempty"`
	// SecretWhere says where Secret goes; empty with Secret.
	SecretWhere string `json:"secret_where,omitempty"`
	// HoldsToken reports whether Text itself holds the token (the client
	// expands no variable there): the file is the person's alone and must
	// never be committed or shared.
	HoldsToken bool `json:"holds_token"`
}

// SnippetServerName is the server's name in every snippet.
const SnippetServerName = "dbeast"

// SnippetTokenVar is the environment variable the Claude Code and Cursor
// snippets take the agent token from: both expand it in a header when
// they connect (Claude Code writes ${VAR}, Cursor ${env:VAR}).
const SnippetTokenVar = "DBEAST_TOKEN"

// mcpRemoteAuthVar is the environment variable the Claude Desktop snippet
// passes the Authorization value in: mcp-remote expands ${VAR} in header
// arguments, which keeps the token out of its argument list (and the
// space of "Bearer <token>" with it: some hosts split arguments on
// spaces).
const mcpRemoteAuthVar = "DBEAST_AUTH"

// vscodeTokenInput is the id of the VS Code input that prompts for the
// token.
const vscodeTokenInput = "dbeast-token"

// Snippets returns the client configurations for the MCP endpoint url and
// an agent token, in the format each client documents:
//
//   - Claude Code: `claude mcp add --transport http NAME URL --header …`
//     and a project .mcp.json entry with "type": "http", both with
//     "Bearer ${DBEAST_TOKEN}", which Claude Code expands when it
//     connects (the command line single-quotes it, so the shell passes
//     it through unexpanded);
//   - VS Code: .vscode/mcp.json, whose top-level key is "servers", with a
//     promptString input (password: true) for the token: VS Code asks
//     once and keeps it in its secret storage;
//   - Cursor: mcp.json with "mcpServers" and url + headers, with
//     "Bearer ${env:DBEAST_TOKEN}";
//   - Claude Desktop: claude_desktop_config.json takes only local
//     (stdio) servers, so it runs the mcp-remote bridge through npx with
//     the header as --header "Authorization:${DBEAST_AUTH}" and the value
//     in the server's env block: the token is in that private file and in
//     mcp-remote's environment, never in its arguments;
//   - generic: "mcpServers" with url + headers holding the token, which
//     most clients read; where a client expands nothing, the file holds
//     the token and must stay private.
func Snippets(url, token string) []Snippet {
	auth := "Bearer " + token
	type httpServer struct {
		Type    string            `json:"type,omitempty"`
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
	}
	type stdioServer struct {
		Command string            `json:"command"`
		Args    []string          `json:"args"`
		Env     map[string]string `json:"env"`
	}
	type input struct {
		Type        string `json:"type"`
		ID          string `json:"id"`
		Description string `json:"description"`
		Password    bool   `json:"password"`
	}
	file := func(key string, server any) string {
		raw, _ := json.MarshalIndent(map[string]map[string]any{key: {SnippetServerName: server}}, "", "  ")
		return string(raw)
	}
	bearer := func(ref string) map[string]string { return map[string]string{"Authorization": "Bearer " + ref} }
	claudeRef := "${" + SnippetTokenVar + "}"
	vscode, _ := json.MarshalIndent(struct {
		Inputs  []input               `json:"inputs"`
		Servers map[string]httpServer `json:"servers"`
	}{
		Inputs:  []input{{Type: "promptString", ID: vscodeTokenInput, Description: "dbeast agent token (dbc_…)", Password: true}},
		Servers: map[string]httpServer{SnippetServerName: {Type: "http", URL: url, Headers: bearer("${input:" + vscodeTokenInput + "}")}},
	}, "", "  ")
	// export is a shell builtin: the token is in no process's arguments.
	export := "export " + SnippetTokenVar + "=" + shellQuote(token)
	const exportWhere = "set " + SnippetTokenVar + " where the client starts: run this in that shell, or add it to a shell start-up file private to you (never one you commit)"
	return []Snippet{
		{Client: "claude-code", Title: "Claude Code (command line)", Where: "run in a terminal; the token is not in the command: Claude Code reads " + SnippetTokenVar + " when it connects", Format: "shell",
			Text:   "claude mcp add --transport http " + SnippetServerName + " " + shellQuote(url) + " --header " + shellQuote("Authorization: Bearer "+claudeRef),
			Secret: export, SecretWhere: exportWhere},
		{Client: "claude-code-json", Title: "Claude Code (.mcp.json)", Where: ".mcp.json in the project's root (safe to commit: it names " + SnippetTokenVar + ", not the token)", Format: "json",
			Text:   file("mcpServers", httpServer{Type: "http", URL: url, Headers: bearer(claudeRef)}),
			Secret: export, SecretWhere: exportWhere},
		{Client: "vscode", Title: "VS Code", Where: ".vscode/mcp.json in the workspace (safe to commit: VS Code asks for the token)", Format: "json",
			Text:   string(vscode),
			Secret: token, SecretWhere: "paste this token when VS Code asks for the dbeast agent token (the first time it starts the server); VS Code keeps it in its secret storage"},
		{Client: "cursor", Title: "Cursor", Where: "~/.cursor/mcp.json, or .cursor/mcp.json in the project (safe to commit: it names " + SnippetTokenVar + ", not the token)", Format: "json",
			Text:   file("mcpServers", httpServer{URL: url, Headers: bearer("${env:" + SnippetTokenVar + "}")}),
			Secret: export, SecretWhere: exportWhere},
		{Client: "claude-desktop", Title: "Claude Desktop (through mcp-remote)", Where: "claude_desktop_config.json (Settings > Developer > Edit Config); needs Node's npx. The token is in its env block: the file is yours alone, never commit or share it", Format: "json",
			Text: file("mcpServers", stdioServer{
				Command: "npx",
				Args:    []string{"-y", "mcp-remote", url, "--header", "Authorization:${" + mcpRemoteAuthVar + "}"},
				Env:     map[string]string{mcpRemoteAuthVar: auth},
			}),
			HoldsToken: true},
		{Client: "generic", Title: "Other MCP clients (Streamable HTTP)", Where: "the client's MCP server configuration. The token is in the headers: keep the file private, never commit or share it (if your client expands environment variables, put a reference to one there instead)", Format: "json",
			Text:       file("mcpServers", httpServer{URL: url, Headers: map[string]string{"Authorization": auth}}),
			HoldsToken: true},
	}
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
