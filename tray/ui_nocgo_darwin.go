//go:build darwin && !cgo

package tray

import "errors"

// On macOS fyne.io/systray needs cgo (Cocoa). Built without cgo — as CI
// does, to type-check the tray for darwin on Linux — the tray has these
// stand-ins and Run reports errNoCgo.

var errNoCgo = errors.New("tray: this dbeast-tray was built without cgo; on macOS the tray icon needs cgo")

type menuItem struct{ ClickedCh chan struct{} }

func (m *menuItem) AddSubMenuItem(string, string) *menuItem {
	return &menuItem{ClickedCh: make(chan struct{})}
}
func (m *menuItem) SetTitle(string)   {}
func (m *menuItem) SetTooltip(string) {}
func (m *menuItem) Show()             {}
func (m *menuItem) Hide()             {}
func (m *menuItem) Enable()           {}
func (m *menuItem) Disable()          {}

func uiRun(func()) error { return errNoCgo }

func uiSetIcon([]byte)                       {}
func uiSetTitle(string)                      {}
func uiSetTooltip(string)                    {}
func uiAddSeparator()                        {}
func uiQuit()                                {}
func uiAddMenuItem(string, string) *menuItem { return &menuItem{ClickedCh: make(chan struct{})} }
