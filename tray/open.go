package tray

import (
	"errors"
	"fmt"
	"html"
	"os"
	"os/exec"
	"runtime"
	"time"
)

// errNoOpener is returned where no browser opener is known.
var errNoOpener = errors.New("tray: no way to open a browser on this system")

// openURL opens the console page for the menu. It is openBrowser; tests
// replace it (before Run) to record the URL instead of starting a browser.
var openURL = openBrowser

// openerCommand is the system opener (open on macOS, xdg-open elsewhere)
// and any arguments before the path it opens; tests replace it with a
// program that records what it was given.
var openerCommand = func() ([]string, error) {
	switch runtime.GOOS {
	case "darwin":
		return []string{"open"}, nil
	case "windows":
		return nil, errNoOpener
	default:
		return []string{"xdg-open"}, nil
	}
}

// redirectLinger is how long a sign-in redirect file stays before it is
// deleted: long enough for a browser that is still starting to read it.
var redirectLinger = 30 * time.Second

// openBrowser opens url, a console link whose fragment holds a one-time
// sign-in code, in the person's browser. The code must never be an
// argument of a process: any local user reads every process's argv in
// /proc/*/cmdline and could trade the code for the console token first.
// So the link goes into a redirect page only this user can read (0600,
// in $XDG_RUNTIME_DIR or a new 0700 temporary directory), the opener is
// given that file's path, and the file is deleted after redirectLinger.
// The path is one argument of exec, never shell text. It does not wait
// for the browser.
func openBrowser(url string) error {
	argv, err := openerCommand()
	if err != nil {
		return err
	}
	path, cleanup, err := writeRedirect(url)
	if err != nil {
		return err
	}
	cmd := exec.Command(argv[0], append(argv[1:], path)...)
	if err := cmd.Start(); err != nil {
		cleanup()
		return err
	}
	go cmd.Wait() // reap it
	time.AfterFunc(redirectLinger, cleanup)
	return nil
}

// writeRedirect writes a page that sends the browser to url and returns
// its path and the function that deletes it (and its directory, when it
// made one).
func writeRedirect(url string) (path string, cleanup func(), err error) {
	dir, made := os.Getenv("XDG_RUNTIME_DIR"), false
	if fi, err := os.Stat(dir); dir == "" || err != nil || !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 {
		// No private runtime directory: a new one, 0700.
		if dir, err = os.MkdirTemp("", "dbeast-tray-"); err != nil {
			return "", nil, fmt.Errorf("tray: redirect page: %w", err)
		}
		made = true
	}
	f, err := os.CreateTemp(dir, "dbeast-console-*.html") // 0600
	if err != nil {
		if made {
			os.RemoveAll(dir)
		}
		return "", nil, fmt.Errorf("tray: redirect page: %w", err)
	}
	cleanup = func() {
		os.Remove(f.Name())
		if made {
			os.RemoveAll(dir)
		}
	}
	u := html.EscapeString(url)
	page := "<!doctype html><meta charset=\"utf-8\"><meta name=\"referrer\" content=\"no-referrer\">" +
		"<meta http-equiv=\"refresh\" content=\"0;url=" + u + "\"><title>dbeast console</title>" +
		"<p><a href=\"" + u + "\">Open the dbeast console</a></p>\n"
	err = f.Chmod(0o600)
	if err == nil {
		_, err = f.WriteString(page)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		cleanup()
		return "", nil, fmt.Errorf("tray: redirect page: %w", err)
	}
	return f.Name(), cleanup, nil
}
