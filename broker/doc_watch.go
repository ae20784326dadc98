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

// docWatcher follows the open documents' files. It watches each file's
// directory, not the file, because editors replace files by renaming a
// new one over them, which ends a watch on the file itself. Its fields
// are guarded by reqState.mu.
type docWatcher struct {
	fw     *fsnotify.Watcher
	dirs   map[string]int         // watched directory → documents in it
	timers map[string]*time.Timer // document id → pending re-snapshot
}

// watchDocumentLocked starts following d's file. When the platform
// cannot watch it, d.followed stays false and the console says so; the
// person can still refresh by hand. reqs.mu must be held.
func (b *Broker) watchDocumentLocked(d *document) {
	s := b.reqs.docs
	if s.watchClosed {
		return
	}
	if s.watch == nil {
		fw, err := fsnotify.NewWatcher()
		if err != nil {
			return
		}
		s.watch = &docWatcher{fw: fw, dirs: map[string]int{}, timers: map[string]*time.Timer{}}
		go b.watchLoop(s.watch)
	}
	w := s.watch
	dir := filepath.Dir(d.path)
	if w.dirs[dir] == 0 {
		if err := w.fw.Add(dir); err != nil {
			return
		}
	}
	w.dirs[dir]++
	d.followed = true
}

// unwatchDocumentLocked stops following d's file. reqs.mu must be held.
func (b *Broker) unwatchDocumentLocked(d *document) {
	w := b.reqs.docs.watch
	if w == nil || !d.followed {
		return
	}
	d.followed = false
	if t := w.timers[d.id]; t != nil {
		t.Stop()
		delete(w.timers, d.id)
	}
	dir := filepath.Dir(d.path)
	if w.dirs[dir]--; w.dirs[dir] <= 0 {
		delete(w.dirs, dir)
		w.fw.Remove(dir)
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
			b.fileChanged(w, filepath.Clean(ev.Name))
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
		if path != "" && d.path != path {
			continue
		}
		d.events++
		if t := w.timers[id]; t != nil {
			t.Reset(docQuiet)
			continue
		}
		var t *time.Timer
		t = time.AfterFunc(docQuiet, func() {
			b.reqs.mu.Lock()
			if w.timers[id] == t {
				delete(w.timers, id)
			}
			b.reqs.mu.Unlock()
			b.resnapshot(id)
		})
		w.timers[id] = t
	}
}

// resnapshot is RefreshDocument for the watcher: a read during which a
// new change event arrived may have seen a half-written file, so it is
// dropped; the new event's own timer snapshots the file once it is quiet
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
	if b.reqs.docs.docs[id] != d || d.events != seen {
		return
	}
	b.applySnapshotLocked(d, data, err)
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
		for _, t := range w.timers {
			t.Stop()
		}
		for _, d := range s.docs {
			d.followed = false
		}
	}
	b.reqs.mu.Unlock()
	if w != nil {
		w.fw.Close()
	}
}
