package broker

import (
	"fmt"
	"path/filepath"
	"strings"
)

// problemProtected is why a path is refused at open: it is dbeast's own
// state. A text holding one of dbeast's secrets is problemSecret.
const problemProtected docProblem = "the file belongs to dbeast itself and cannot be opened as a document"

// resolveDocPath is the path a document is kept under: absolute, clean
// and with every symbolic link resolved, so that the watcher follows the
// real file's directory and any link later put in the path is refused.
// Paths in dbeast's state directory are refused.
func (b *Broker) resolveDocPath(path string) (string, error) {
	bad := func(p docProblem) error { return fmt.Errorf("%w: %w", ErrBadDocument, p) }
	if !filepath.IsAbs(path) {
		return "", bad(problemUnreadable)
	}
	real, err := filepath.EvalSymlinks(filepath.Clean(path))
	if err != nil || !filepath.IsAbs(real) {
		return "", bad(problemUnreadable)
	}
	if b.protectedPath(real) {
		return "", bad(problemProtected)
	}
	return real, nil
}

// protectedPath reports whether real (a resolved path) is in the
// broker's state directory.
func (b *Broker) protectedPath(real string) bool {
	dir, err := filepath.Abs(b.cfg.StateDir)
	if err != nil {
		return true
	}
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	return real == dir || strings.HasPrefix(real, dir+string(filepath.Separator))
}
