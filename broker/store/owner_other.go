//go:build !unix

package store

import "io/fs"

// oNoFollow is not available here; Load checks the opened file instead.
const oNoFollow = 0

// checkOwnerMode on platforms without Unix ownership relies on the user's
// profile directory ACLs, which already keep other users out.
func checkOwnerMode(fs.FileInfo, fs.FileMode) error { return nil }
