//go:build !linux

package broker

// openNoSymlinks has no one-call equivalent here: openDocFile checks the
// resolution itself.
func openNoSymlinks(string, int) (int, error) { return -1, errNoOpenat2 }
