//go:build !linux

package docfile

// openNoSymlinks has no one-call equivalent here: Open checks the
// resolution itself.
func openNoSymlinks(string, int) (int, error) { return -1, errNoOpenat2 }
