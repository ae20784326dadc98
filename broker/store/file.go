package store

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// Errors of the file backend. Their messages are static: they name the
// rule that failed, never the path or the content.
var (
	ErrNotOwner      = errors.New("store: the state file or directory is not owned by the current user")
	ErrMode          = errors.New("store: the state file is accessible to group or others, or its directory is writable by them")
	ErrNotRegular    = errors.New("store: the state file is not a regular file")
	errStoreTooLarge = errors.New("store: the state file is larger than 16 MiB")
)

// maxFileSize bounds what Load reads, so a replaced file cannot exhaust
// memory.
const maxFileSize = 16 << 20

// File is the file backend: Dir/mcp-v1.json, the directory mode 0700 and
// the file 0600, both owned by the current user. Load refuses a file or
// directory owned by someone else, a file with any group or other access
// and a directory writable by group or others, because another local user
// could then plant connections or read secrets. Save
// writes a temporary file in Dir and renames it over the old one.
//
// The zero value is not usable; use NewFile.
type File struct {
	dir string
	mu  sync.Mutex
}

// NewFile returns the file backend rooted at dir (the broker's state dir).
// It touches nothing on disk until Load or Save.
func NewFile(dir string) *File { return &File{dir: dir} }

// Path is the state file's path.
func (f *File) Path() string { return filepath.Join(f.dir, Service+".json") }

// Load reads the state file after checking its owner and mode, and those of
// its directory. The file holds secrets, so any group or other access
// (mode & 0077) is refused; the directory only must not be writable by
// them (mode & 0022), since that would let them replace the file.
func (f *File) Load() ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := checkDir(f.dir); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, ErrNotFound
		}
		return nil, err
	}
	fh, err := os.OpenFile(f.Path(), os.O_RDONLY|oNoFollow, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, ErrNotFound
		}
		return nil, fmt.Errorf("store: open state file: %w", err)
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return nil, fmt.Errorf("store: stat state file: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, ErrNotRegular
	}
	if err := checkOwnerMode(fi, 0o077); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(fh, maxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("store: read state file: %w", err)
	}
	if len(data) > maxFileSize {
		return nil, errStoreTooLarge
	}
	return data, nil
}

// Save writes data atomically (WriteFileAtomic): a new 0600 file in the
// same directory, synced, renamed over the old one, the directory synced.
func (f *File) Save(data []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := os.MkdirAll(f.dir, 0o700); err != nil {
		return fmt.Errorf("store: create state dir: %w", err)
	}
	if err := checkDir(f.dir); err != nil {
		return err
	}
	return WriteFileAtomic(f.dir, Service+".json", data)
}

// Delete removes the state file.
func (f *File) Delete() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := os.Remove(f.Path()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("store: remove state file: %w", err)
	}
	return nil
}

// checkDir refuses a state directory that another user owns or could write
// to (they could swap the file between our checks).
func checkDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("store: stat state dir: %w", err)
	}
	if !fi.IsDir() {
		return ErrNotRegular
	}
	return checkOwnerMode(fi, 0o022)
}

var _ Store = (*File)(nil)

// Describe says where the state is kept.
func (f *File) Describe() string { return "a 0600 file in the state directory (" + Service + ".json)" }
