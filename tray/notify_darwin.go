//go:build darwin

package tray

import (
	"os/exec"
	"strings"
)

// On macOS the tray posts to the user notification center through
// osascript's "display notification": pure Go (no cgo), and it works for
// an unbundled binary, which UNUserNotificationCenter does not. Such a
// notification has no action buttons, so on macOS a notification only
// tells; the person decides in the tray menu or the console. Only type-
// checked in CI (no macOS machine is available).
type osascriptNotifier struct{}

func newNotifier() (Notifier, error) { return osascriptNotifier{}, nil }

// Show passes the texts as arguments of the script (argv), never as
// script text, so a statement cannot become AppleScript.
func (osascriptNotifier) Show(n Note) error {
	body := strings.Join(n.Body, "\n")
	cmd := exec.Command("osascript",
		"-e", "on run argv",
		"-e", "display notification (item 2 of argv) with title (item 1 of argv)",
		"-e", "end run",
		n.Summary, body) // the summary always starts with "dbeast:", never with "-"
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait() // reap it
	return nil
}

// Withdraw does nothing: osascript cannot take a notification back, and
// one without buttons decides nothing.
func (osascriptNotifier) Withdraw() error { return nil }

func (osascriptNotifier) Invoked() <-chan string { return nil }
func (osascriptNotifier) Close() error           { return nil }
