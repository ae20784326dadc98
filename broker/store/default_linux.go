package store

import (
	"errors"
	"io/fs"
	"os"
)

// Default returns the preferred backend on Linux: the desktop's Secret
// Service when one is running with an unlocked default collection, else
// the state file. It never splits the state between them: a Secret
// Service that already holds dbeast's state wins; otherwise an existing
// state file keeps being used; otherwise a new state goes to the Secret
// Service when it can. When the state lives in the Secret Service and the
// service is not available at a later start, the file has no state, and
// the broker refuses to start (config.json says state was saved) rather
// than starting empty. Describe says which one is used.
func Default(stateDir string) Store {
	file := NewFile(stateDir)
	ss, err := OpenSecretService(stateDir)
	if err != nil {
		return file
	}
	if items, err := ss.items(); err == nil && len(items) > 0 {
		return ss
	}
	if _, err := os.Lstat(file.Path()); !errors.Is(err, fs.ErrNotExist) {
		ss.Close()
		return file
	}
	return ss
}
