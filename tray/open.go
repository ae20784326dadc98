package tray

import (
	"errors"
	"os/exec"
	"runtime"
)

// errNoOpener is returned where no browser opener is known.
var errNoOpener = errors.New("tray: no way to open a browser on this system")

// openURL opens the console page for the menu. It is openBrowser; tests
// replace it (before Run) to record the URL instead of starting a browser.
var openURL = openBrowser

// openBrowser opens url in the person's browser with the system opener
// (open on macOS, xdg-open elsewhere). The URL is one argument of exec,
// never shell text. It does not wait for the browser.
func openBrowser(url string) error {
	var name string
	switch runtime.GOOS {
	case "darwin":
		name = "open"
	case "windows":
		return errNoOpener
	default:
		name = "xdg-open"
	}
	cmd := exec.Command(name, url)
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait() // reap it
	return nil
}
