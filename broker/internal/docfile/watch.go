package docfile

import (
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Quiet is how long a file must stay quiet after a change before it is
// reported: an editor's save is often several writes, or a write to a
// temporary file and a rename.
const Quiet = 300 * time.Millisecond

// MaxWait bounds how long a burst of changes can postpone the report: a
// file written every 100 ms never stays quiet, and the old version must
// not stay current meanwhile.
const MaxWait = 2 * time.Second

// PollEvery is how often the files are also stat'ed, as a backstop for
// changes the watcher cannot see (a lost watch, a network file system)
// and to re-add the watch of a directory that was moved or removed.
const PollEvery = 2 * time.Second

// Watcher follows a set of files, each under an id the caller chose. It
// watches each file's directory, not the file, because editors replace
// files by renaming a new one over them, which ends a watch on the file
// itself. Its mu is a leaf: onChange runs with it released, so the
// caller may call onChange's work under its own locks and call the
// Watcher's methods under them too.
type Watcher struct {
	// onChange is called, from a goroutine of the Watcher and with no
	// lock of it held, when the file of id changed and then stayed
	// quiet for Quiet (or MaxWait passed).
	onChange func(id string)

	mu     sync.Mutex
	fw     *fsnotify.Watcher
	closed bool
	files  map[string]string      // id → path
	events map[string]uint64      // id → change events seen for its file
	dirs   map[string]int         // watched directory → files in it
	timers map[string]*time.Timer // id → pending report
	// first is when the pending report's burst of events began.
	first map[string]time.Time
	// lost holds the directories whose watch ended (the directory was
	// moved or removed); the poll re-adds them when they are back.
	lost map[string]bool
	// seen is each file as the last poll found it.
	seen map[string]fileStamp
	// dirIDs is each watched directory's identity when its watch was
	// added: a directory moved away under the watch (by a rename of one of
	// its parents) is found by the poll and its watch re-added.
	dirIDs map[string]fileStamp
	stop   chan struct{}
}

// NewWatcher starts a Watcher that calls onChange(id) after a change of
// the file added under id. It fails when the platform cannot watch
// files; the caller then refreshes by hand.
func NewWatcher(onChange func(id string)) (*Watcher, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	w := &Watcher{onChange: onChange, fw: fw, files: map[string]string{}, events: map[string]uint64{},
		dirs: map[string]int{}, timers: map[string]*time.Timer{}, first: map[string]time.Time{},
		lost: map[string]bool{}, seen: map[string]fileStamp{}, dirIDs: map[string]fileStamp{}, stop: make(chan struct{})}
	go w.watchLoop()
	go w.pollLoop()
	return w, nil
}

// Add starts following the file at path (absolute and resolved) under
// id. Adding an id again is a no-op.
func (w *Watcher) Add(id, path string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	if _, ok := w.files[id]; ok {
		return
	}
	w.files[id] = path
	dir := filepath.Dir(path)
	w.dirs[dir]++
	if w.dirs[dir] == 1 {
		st := stampOf(dir)
		if err := w.fw.Add(dir); err != nil {
			// Not there (yet): the poll adds the watch when it is.
			w.lost[dir] = true
		} else {
			w.dirIDs[dir] = st
		}
	}
}

// Remove stops following the file of id.
func (w *Watcher) Remove(id string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	path, ok := w.files[id]
	if !ok {
		return
	}
	delete(w.files, id)
	delete(w.events, id)
	if t := w.timers[id]; t != nil {
		t.Stop()
		delete(w.timers, id)
	}
	delete(w.first, id)
	delete(w.seen, id)
	dir := filepath.Dir(path)
	if w.dirs[dir]--; w.dirs[dir] <= 0 {
		delete(w.dirs, dir)
		if !w.lost[dir] && !w.closed {
			w.fw.Remove(dir)
		}
		delete(w.lost, dir)
		delete(w.dirIDs, dir)
	}
}

// Followed reports whether changes of id's file are picked up as they
// happen: it is added and its directory's watch is not lost.
func (w *Watcher) Followed(id string) bool {
	if w == nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	path, ok := w.files[id]
	return ok && !w.closed && !w.lost[filepath.Dir(path)]
}

// Events counts the change events seen for id's file. A caller that
// reads the file after onChange compares the count before and after the
// read: a new event meanwhile means the read may have seen a
// half-written file.
func (w *Watcher) Events(id string) uint64 {
	if w == nil {
		return 0
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.events[id]
}

// watchLoop turns file events into delayed reports. A lost event (the
// kernel queue overflowed) reports every file.
func (w *Watcher) watchLoop() {
	for {
		select {
		case ev, ok := <-w.fw.Events:
			if !ok {
				return
			}
			name := filepath.Clean(ev.Name)
			if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
				w.dirGone(name)
			}
			w.fileChanged(name)
		case _, ok := <-w.fw.Errors:
			if !ok {
				return
			}
			w.fileChanged("")
		}
	}
}

// fileChanged schedules a report of the files at path or in the
// directory path (all of them when path is empty) after the quiet
// period, restarting the wait on every new event.
func (w *Watcher) fileChanged(path string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	for id, p := range w.files {
		if path != "" && p != path && filepath.Dir(p) != path {
			continue
		}
		w.events[id]++
		if t := w.timers[id]; t != nil {
			wait := Quiet
			if left := time.Until(w.first[id].Add(MaxWait)); left < wait {
				wait = max(left, 0)
			}
			t.Reset(wait)
			continue
		}
		w.first[id] = time.Now()
		var t *time.Timer
		t = time.AfterFunc(Quiet, func() {
			w.mu.Lock()
			mine := w.timers[id] == t
			if mine {
				delete(w.timers, id)
				delete(w.first, id)
			}
			closed := w.closed
			w.mu.Unlock()
			if !closed {
				w.onChange(id)
			}
		})
		w.timers[id] = t
	}
}

// dirGone handles the end of a watched directory's own watch (it was
// moved or removed; fsnotify drops the watch): its files are no longer
// followed until the poll finds the directory again and re-adds the
// watch. fileChanged then reports them.
func (w *Watcher) dirGone(dir string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || w.dirs[dir] == 0 || w.lost[dir] {
		return
	}
	w.fw.Remove(dir)
	w.lost[dir] = true
}

// Close stops following files. Closing the fsnotify watcher happens with
// mu released: it waits for its reader, which may be waiting to hand an
// event to watchLoop, which may wait for mu.
func (w *Watcher) Close() {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return
	}
	w.closed = true
	close(w.stop)
	for _, t := range w.timers {
		t.Stop()
	}
	w.mu.Unlock()
	w.fw.Close()
}
