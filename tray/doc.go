// Package tray is dbeast's tray app: a thin client of the console API of a
// running broker (the console listener of `dbeast serve`).
//
// The tray holds no approval policy. It shows how many requests wait for
// the person (icon, title and tooltip), lists them (alias and operation
// kind), opens the console page where they are decided, and forwards three
// commands the console API already offers: Stop all, start and stop the
// MCP server. Every menu click is one API call. The console token comes
// from a file written by `dbeast serve --console-token-file` and is sent
// only as an Authorization header; the page the tray opens in the person's
// browser carries a one-time sign-in code the broker issues for it, never
// the token (the browser keeps addresses in its history).
//
// Client is the testable part (plain HTTP); Run wires it to
// fyne.io/systray, which on Linux speaks D-Bus through godbus (pure Go,
// no cgo, no GTK) and on macOS uses Cocoa through cgo.
package tray
