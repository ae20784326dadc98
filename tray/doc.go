// Package tray is dbeast's tray app: a thin client of the console API of a
// running broker (the console listener of `dbeast serve`).
//
// The tray holds no approval policy; the broker's console API decides.
// It shows how many requests wait for the person (the dbeast mark as
// icon, amber with a badge while requests wait; title and tooltip),
// lists each in a submenu (the person-named connection, the agent's own
// label marked as not verified, the operation, the tables, the
// statement's first lines, its age and time left), raises a desktop
// notification when requests start waiting (coalesced: one on screen, at
// most one per notifyQuiet; it names clock times, not a countdown, and is
// withdrawn once none of its requests waits, wherever they were decided),
// and forwards the console API's commands: Stop all, start or stop the
// MCP server (whichever applies), and — for a one-time read shown whole —
// Allow once and Deny. A write, full SQL, a statement longer than the
// tray shows and every session-wide scope are decided in the console,
// which Review opens at the request; the menu and the notification say
// which reason applies (ReviewReason).
//
// The menu is a menu value (menu.go): one method per item and one event
// loop that handles a click or a poll at a time.
//
// The console token comes from a file written by `dbeast serve
// --console-token-file` (dbeast-tray's --console-token-file, by default
// $DBEAST_CONSOLE_TOKEN_FILE as for the dbeast CLI) and is sent only as
// an Authorization header; the
// broker makes a new one at each start and the client reads the file
// again when the console refuses the one it holds. The page the tray
// opens in the person's browser carries a one-time sign-in code the
// broker issues for it, never the token (the browser keeps addresses in
// its history). What the tray does and why it cannot reach the console
// is logged (dbeast-tray logs to stderr).
//
// Client is the testable part (plain HTTP); Run wires it to
// fyne.io/systray, which on Linux speaks D-Bus through godbus (pure Go,
// no cgo, no GTK) and on macOS uses Cocoa through cgo. Notifications go
// to org.freedesktop.Notifications over D-Bus (Linux and other unixes)
// and to the macOS notification center through osascript (no buttons
// there). macOS code is only type-checked here, never built with Apple's
// toolchain nor run on a Mac: .ci/run runs internal/darwincheck (the
// module for darwin/arm64 with cgo on and C faked, so the Cocoa side of
// systray and the Keychain store are checked) and a GOOS=darwin
// CGO_ENABLED=0 build, where ui_nocgo_darwin.go stands in for systray.
package tray
