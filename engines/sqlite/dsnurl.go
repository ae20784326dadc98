package sqlite

import (
	"net/url"
	"path/filepath"
	"strings"
)

// sourcePath returns the file a SQLite source's Path names: an absolute
// path as is, or a file: URI (file:/abs/path, file:///abs/path,
// file://localhost/abs/path, percent-escapes decoded) as its path. The
// URI's query (mode=ro, cache=shared, …) is dropped: the engine opens the
// file with its own fixed options (read-only for reads). ok is false for
// anything else, a relative path included: the broker does not run in
// the directory the person typed it in.
func sourcePath(p string) (path string, ok bool) {
	if len(p) >= 5 && strings.EqualFold(p[:5], "file:") {
		u, err := url.Parse(p)
		if err != nil || u.Opaque != "" || (u.Host != "" && u.Host != "localhost") || u.Fragment != "" {
			return "", false
		}
		p = u.Path
	}
	if p == "" || !filepath.IsAbs(p) {
		return "", false
	}
	return filepath.Clean(p), true
}
