package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// WriteFileAtomic replaces dir/name with data so that no crash leaves a
// mix: a new 0600 file in dir (never elsewhere, so the rename cannot
// cross file systems and the content never sits in a shared temporary
// directory), written and synced, renamed over the old one, and dir
// synced so the rename itself survives a power cut. On error the old file
// is untouched and the temporary file removed; a kill half-way leaves
// the temporary file, which RemoveStaleTemps removes at the next start.
// Errors say which step failed, never the path or the content.
func WriteFileAtomic(dir, name string, data []byte) error {
	tmp, err := os.CreateTemp(dir, tempPrefix(name)+"*.tmp") // mode 0600
	if err != nil {
		return fmt.Errorf("store: create temporary file: %w", err)
	}
	tmpName := tmp.Name()
	defer os.Remove(tmpName) // a no-op after a successful rename
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("store: chmod temporary file: %w", err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("store: write temporary file: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("store: sync temporary file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("store: close temporary file: %w", err)
	}
	if err := os.Rename(tmpName, filepath.Join(dir, name)); err != nil {
		return fmt.Errorf("store: replace file: %w", err)
	}
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("store: sync directory: %w", err)
	}
	return nil
}

// tempPrefix is the start of WriteFileAtomic's temporary names for name:
// "mcp-v1.json" → ".mcp-v1-", as earlier versions named them, so that
// RemoveStaleTemps also finds what they left.
func tempPrefix(name string) string {
	return "." + strings.TrimSuffix(name, filepath.Ext(name)) + "-"
}

// RemoveStaleTemps removes the temporary files WriteFileAtomic left in
// dir for each of names (and for the file backend's state file) when a
// save was killed half-way: each may hold a whole copy of the state,
// passwords included, that nothing else would ever remove. Call it only
// while holding dir's lock (LockDir), or it could remove the file of
// another broker's save in progress. Only regular files are removed.
func RemoveStaleTemps(dir string, names ...string) error {
	var errs []error
	for _, name := range append([]string{Service + ".json"}, names...) {
		matches, err := filepath.Glob(filepath.Join(dir, tempPrefix(name)+"*.tmp"))
		if err != nil {
			return err
		}
		for _, m := range matches {
			if fi, err := os.Lstat(m); err != nil || !fi.Mode().IsRegular() {
				continue
			}
			if err := os.Remove(m); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, fmt.Errorf("store: remove a stale temporary file: %w", err))
			}
		}
	}
	return errors.Join(errs...)
}

// syncDir makes a rename in dir durable. Platforms that cannot sync a
// directory (Windows) report an error that is not one here.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, errors.ErrUnsupported) && !isDirSyncUnsupported(err) {
		return err
	}
	return nil
}
