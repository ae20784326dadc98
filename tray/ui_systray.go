//go:build !darwin || cgo

package tray

import "fyne.io/systray"

// The tray's use of fyne.io/systray goes through these names, so that the
// rest of the package builds (and is type-checked in CI) for macOS
// without cgo, where systray cannot build; see ui_nocgo_darwin.go.

type menuItem = systray.MenuItem

func uiRun(onReady func()) error { systray.Run(onReady, nil); return nil }

var (
	uiSetIcon      = systray.SetIcon
	uiSetTitle     = systray.SetTitle
	uiSetTooltip   = systray.SetTooltip
	uiAddMenuItem  = systray.AddMenuItem
	uiAddSeparator = systray.AddSeparator
	uiQuit         = systray.Quit
)
