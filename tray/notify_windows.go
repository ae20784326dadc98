//go:build windows

package tray

// Windows has no notifier yet: the tray icon and menu only.
func newNotifier() (Notifier, error) { return noNotifier{}, nil }
