package broker

import (
	"encoding/json"
	"strings"
)

// Snippet is a ready-to-paste client configuration for one MCP client.
// Text holds the agent's token: a snippet is shown once, where the
// connection is created, and never logged.
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
}

// SnippetServerName is the server's name in every snippet.
const SnippetServerName = "dbeast"

// mcpRemoteAuthVar is the environment variable the Claude Desktop snippet
// passes the Authorization value in: mcp-remote expands ${VAR} in header
// arguments, which keeps the space of "Bearer <token>" out of the argument
// list (some hosts split arguments on spaces).
const mcpRemoteAuthVar = "DBEAST_AUTH"

// Snippets returns the client configurations for the MCP endpoint url and
// an agent token, in the format each client documents:
//
//   - Claude Code: `claude mcp add --transport http NAME URL --header …`
//     and a project .mcp.json entry with "type": "http";
//   - VS Code: .vscode/mcp.json, whose top-level key is "servers";
//   - Cursor: mcp.json with "mcpServers" and url + headers;
//   - Claude Desktop: claude_desktop_config.json takes only local
//     (stdio) servers, so it runs the mcp-remote bridge through npx;
//   - generic: "mcpServers" with url + headers, which most clients read.
func Snippets(url, token string) []Snippet {
	auth := "Bearer " + token
	headers := map[string]string{"Authorization": auth}
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
	file := func(key string, server any) string {
		raw, _ := json.MarshalIndent(map[string]map[string]any{key: {SnippetServerName: server}}, "", "  ")
		return string(raw)
	}
	typed := httpServer{Type: "http", URL: url, Headers: headers}
	plain := httpServer{URL: url, Headers: headers}
	return []Snippet{
		{Client: "claude-code", Title: "Claude Code (command line)", Where: "run in a terminal", Format: "shell",
			Text: "claude mcp add --transport http " + SnippetServerName + " " + shellQuote(url) + " --header " + shellQuote("Authorization: "+auth)},
		{Client: "claude-code-json", Title: "Claude Code (.mcp.json)", Where: ".mcp.json in the project's root", Format: "json",
			Text: file("mcpServers", typed)},
		{Client: "vscode", Title: "VS Code", Where: ".vscode/mcp.json in the workspace", Format: "json",
			Text: file("servers", typed)},
		{Client: "cursor", Title: "Cursor", Where: "~/.cursor/mcp.json, or .cursor/mcp.json in the project", Format: "json",
			Text: file("mcpServers", plain)},
		{Client: "claude-desktop", Title: "Claude Desktop (through mcp-remote)", Where: "claude_desktop_config.json (Settings > Developer > Edit Config); needs Node's npx", Format: "json",
			Text: file("mcpServers", stdioServer{
				Command: "npx",
				Args:    []string{"-y", "mcp-remote", url, "--header", "Authorization:${" + mcpRemoteAuthVar + "}"},
				Env:     map[string]string{mcpRemoteAuthVar: auth},
			})},
		{Client: "generic", Title: "Other MCP clients (Streamable HTTP)", Where: "the client's MCP server configuration", Format: "json",
			Text: file("mcpServers", plain)},
	}
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
