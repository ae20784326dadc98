//go:build !unix

package store

import "io/fs"

// oNoFollow is not available here; Load checks the opened file instead.
const oNoFollow = 0

// checkOwnerMode on platforms without Unix ownership relies on the user's
// profile directory ACLs, which already keep other users out.
func checkOwnerMode(fs.FileInfo, fs.FileMode) error { return nil }

// isDirSyncUnsupported reports whether err from syncing a directory means
// the platform cannot: Windows cannot sync a directory handle at all,
// and a rename there is as durable as the platform makes it.
func isDirSyncUnsupported(error) bool { return true }
