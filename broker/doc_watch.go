package broker

import (
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// docQuiet is how long a file must stay quiet after a change before it
// is snapshotted again: an editor's save is often several writes, or a
// write to a temporary file and a rename.
const docQuiet = 300 * time.Millisecond

// docMaxWait bounds how long a burst of changes can postpone the
// re-snapshot: a file written every 100 ms never stays quiet, and the
// old version must not stay current meanwhile.
const docMaxWait = 2 * time.Second

// docPoll is how often the files are also stat'ed, as a backstop for
// changes the watcher cannot see (a lost watch, a network file system)
// and to re-add the watch of a directory that was moved or removed.
const docPoll = 2 * time.Second

// problemChanging is why a document whose file kept changing while it
// was read has no snapshot until the next read succeeds.
const problemChanging docProblem = "the file kept changing while it was read"

// docWatcher follows the open documents' files. It watches each file's
// directory, not the file, because editors replace files by renaming a
// new one over them, which ends a watch on the file itself. Its fields
// are guarded by reqState.mu.
type docWatcher struct {
	fw     *fsnotify.Watcher
	dirs   map[string]int         // watched directory → documents in it
	timers map[string]*time.Timer // document id → pending re-snapshot
	// first is when the pending re-snapshot's burst of events began.
	first map[string]time.Time
	// lost holds the directories whose watch ended (the directory was
	// moved or removed); the poll re-adds them when they are back.
	lost map[string]bool
	// seen is each document's file as the last poll found it.
	seen map[string]fileStamp
	// dirIDs is each watched directory's identity when its watch was
	// added: a directory moved away under the watch (by a rename of one of
	// its parents) is found by the poll and its watch re-added.
	dirIDs map[string]fileStamp
	stop   chan struct{}
}

// watchDocumentLocked starts following d's file. When the platform
// cannot watch it, d.followed stays false and the console says so; the
// person can still refresh by hand. reqs.mu must be held.
func (rq *reqState) watchDocumentLocked(d *document) {
	b := rq.b
	s := rq.docs
	if s.watchClosed {
		return
	}
	if s.watch == nil {
		fw, err := fsnotify.NewWatcher()
		if err != nil {
			return
		}
		s.watch = &docWatcher{fw: fw, dirs: map[string]int{}, timers: map[string]*time.Timer{},
			first: map[string]time.Time{}, lost: map[string]bool{}, seen: map[string]fileStamp{}, dirIDs: map[string]fileStamp{}, stop: make(chan struct{})}
		go b.watchLoop(s.watch)
		go b.pollLoop(s.watch)
	}
	w := s.watch
	dir := filepath.Dir(d.path)
	d.watched = true
	w.dirs[dir]++
	if w.dirs[dir] == 1 {
		id := stampOf(dir)
		if err := w.fw.Add(dir); err != nil {
			// Not there (yet): the poll adds the watch when it is.
			w.lost[dir] = true
		} else {
			w.dirIDs[dir] = id
		}
	}
	d.followed = !w.lost[dir]
}

// unwatchDocumentLocked stops following d's file. reqs.mu must be held.
func (rq *reqState) unwatchDocumentLocked(d *document) {
	w := rq.docs.watch
	if w == nil || !d.watched {
		return
	}
	d.followed, d.watched = false, false
	if t := w.timers[d.id]; t != nil {
		t.Stop()
		delete(w.timers, d.id)
	}
	delete(w.first, d.id)
	delete(w.seen, d.id)
	dir := filepath.Dir(d.path)
	if w.dirs[dir]--; w.dirs[dir] <= 0 {
		delete(w.dirs, dir)
		if !w.lost[dir] {
			w.fw.Remove(dir)
		}
		delete(w.lost, dir)
		delete(w.dirIDs, dir)
	}
}

// watchLoop turns file events into delayed re-snapshots. A lost event
// (the kernel queue overflowed) re-snapshots every document.
func (b *Broker) watchLoop(w *docWatcher) {
	for {
		select {
		case ev, ok := <-w.fw.Events:
			if !ok {
				return
			}
			name := filepath.Clean(ev.Name)
			if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
				b.dirGone(w, name)
			}
			b.fileChanged(w, name)
		case _, ok := <-w.fw.Errors:
			if !ok {
				return
			}
			b.fileChanged(w, "")
		}
	}
}

// fileChanged schedules a re-snapshot of the documents at path (all of
// them when path is empty) after the quiet period, restarting the wait
// on every new event.
func (b *Broker) fileChanged(w *docWatcher, path string) {
	b.reqs.mu.Lock()
	defer b.reqs.mu.Unlock()
	if b.reqs.docs.watch != w {
		return
	}
	for id, d := range b.reqs.docs.docs {
		if path != "" && d.path != path && filepath.Dir(d.path) != path {
			continue
		}
		d.events++
		if t := w.timers[id]; t != nil {
			wait := docQuiet
			if left := time.Until(w.first[id].Add(docMaxWait)); left < wait {
				wait = max(left, 0)
			}
			t.Reset(wait)
			continue
		}
		w.first[id] = time.Now()
		var t *time.Timer
		t = time.AfterFunc(docQuiet, func() {
			b.reqs.mu.Lock()
			if w.timers[id] == t {
				delete(w.timers, id)
				delete(w.first, id)
			}
			b.reqs.mu.Unlock()
			b.resnapshot(id)
		})
		w.timers[id] = t
	}
}

// resnapshot is RefreshDocument for the watcher: a read during which a
// new change event arrived may have seen a half-written file, so it is
// dropped and the document has no snapshot (problemChanging) rather than
// keeping the old text current; the new event's own timer reads the file
// again.
func (b *Broker) resnapshot(id string) {
	b.reqs.mu.Lock()
	d := b.reqs.docs.docs[id]
	if d == nil {
		b.reqs.mu.Unlock()
		return
	}
	path, seen := d.path, d.events
	b.reqs.mu.Unlock()
	data, err := b.readSnapshot(path)
	b.reqs.mu.Lock()
	defer b.reqs.mu.Unlock()
	if b.reqs.docs.docs[id] != d {
		return
	}
	if d.events != seen {
		b.reqs.markUnavailableLocked(d, problemChanging)
		return
	}
	b.reqs.applySnapshotLocked(d, data, err)
}

// dirGone handles the end of a watched directory's own watch (it was
// moved or removed; fsnotify drops the watch): its documents are no
// longer followed until the poll finds the directory again and re-adds
// the watch. fileChanged then re-snapshots them.
func (b *Broker) dirGone(w *docWatcher, dir string) {
	b.reqs.mu.Lock()
	defer b.reqs.mu.Unlock()
	if b.reqs.docs.watch != w || w.dirs[dir] == 0 || w.lost[dir] {
		return
	}
	w.fw.Remove(dir)
	w.lost[dir] = true
	for _, d := range b.reqs.docs.docs {
		if filepath.Dir(d.path) == dir {
			d.followed = false
		}
	}
}

// stopDocWatcher stops following files; Close calls it. The watcher is
// closed outside reqs.mu: closing waits for its reader, which may be
// waiting to hand an event to watchLoop, which may wait for reqs.mu.
func (b *Broker) stopDocWatcher() {
	b.reqs.mu.Lock()
	s := b.reqs.docs
	s.watchClosed = true
	w := s.watch
	s.watch = nil
	if w != nil {
		close(w.stop)
		for _, t := range w.timers {
			t.Stop()
		}
		for _, d := range s.docs {
			d.followed, d.watched = false, false
		}
	}
	b.reqs.mu.Unlock()
	if w != nil {
		w.fw.Close()
	}
}
