//go:build linux

package tray

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestOpenBrowserKeepsTheCodeOutOfArgv runs openBrowser with a recording
// opener: the sign-in code must not be in any argument (every local user
// reads /proc/*/cmdline), the page the opener gets is this user's alone
// (0600) and leads to the link, and it is deleted afterwards.
func TestOpenBrowserKeepsTheCodeOutOfArgv(t *testing.T) {
	dir := t.TempDir()
	record := filepath.Join(dir, "record")
	opener := filepath.Join(dir, "opener")
	// The opener writes its arguments and the mode and text of the file
	// it was given.
	script := "#!/bin/sh\nprintf '%s\\n' \"$@\" > " + record + ".args\nstat -c %a \"$1\" > " + record + ".mode\ncat \"$1\" > " + record + ".page\n"
	if err := os.WriteFile(opener, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	runtimeDir := filepath.Join(dir, "run")
	if err := os.Mkdir(runtimeDir, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_RUNTIME_DIR", runtimeDir)
	oldCmd, oldLinger := openerCommand, redirectLinger
	openerCommand = func() ([]string, error) { return []string{opener}, nil }
	redirectLinger = time.Second
	t.Cleanup(func() { openerCommand, redirectLinger = oldCmd, oldLinger })

	const code = "dbo_SECRETcode0123456789abcdefABCDEF-_xyz"
	link := "http://127.0.0.1:4321/#code=" + code + "&request=req_1"
	if err := openBrowser(link); err != nil {
		t.Fatalf("openBrowser: %v", err)
	}
	waitFor(t, "the opener ran", func() bool { _, err := os.Stat(record + ".page"); return err == nil })
	time.Sleep(100 * time.Millisecond) // the script may still be writing
	args, _ := os.ReadFile(record + ".args")
	mode, _ := os.ReadFile(record + ".mode")
	page, _ := os.ReadFile(record + ".page")
	if strings.Contains(string(args), "dbo_") || strings.Contains(string(args), code) {
		t.Fatalf("the opener's argv holds the sign-in code: %q", args)
	}
	path := strings.TrimSpace(string(args))
	if filepath.Dir(path) != runtimeDir {
		t.Errorf("redirect page %q, want it in $XDG_RUNTIME_DIR %q", path, runtimeDir)
	}
	if strings.TrimSpace(string(mode)) != "600" {
		t.Errorf("redirect page mode %q, want 600", mode)
	}
	if !strings.Contains(string(page), `url=http://127.0.0.1:4321/#code=`+code+`&amp;request=req_1"`) {
		t.Errorf("redirect page does not lead to the link: %s", page)
	}
	waitFor(t, "the redirect page is deleted", func() bool { _, err := os.Stat(path); return os.IsNotExist(err) })

	// Without a private runtime directory the page goes into a new 0700
	// directory, deleted with it.
	t.Setenv("XDG_RUNTIME_DIR", "")
	os.Remove(record + ".page")
	if err := openBrowser(link); err != nil {
		t.Fatalf("openBrowser: %v", err)
	}
	waitFor(t, "the opener ran", func() bool { _, err := os.Stat(record + ".page"); return err == nil })
	args, _ = os.ReadFile(record + ".args")
	path = strings.TrimSpace(string(args))
	if strings.Contains(string(args), code) {
		t.Fatalf("the opener's argv holds the sign-in code: %q", args)
	}
	if fi, err := os.Stat(filepath.Dir(path)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("temporary directory of %q: %v, %v; want 0700", path, fi.Mode(), err)
	}
	waitFor(t, "the temporary directory is deleted", func() bool { _, err := os.Stat(filepath.Dir(path)); return os.IsNotExist(err) })
}
