package requests

import "github.com/dbeast/dbeast/broker/internal/docfile"

// watchDocumentLocked starts following d's file with the docfile
// watcher, made on the first document. When the platform cannot watch
// files, the document is not followed and the console says so; the
// person can still refresh by hand. rq.mu must be held; the watcher's
// own lock is below it, and it calls resnapshot with that lock released.
func (rq *Machine) watchDocumentLocked(d *document) {
	s := rq.docs
	if s.watchClosed {
		return
	}
	if s.watch == nil {
		w, err := docfile.NewWatcher(rq.resnapshot)
		if err != nil {
			return
		}
		s.watch = w
	}
	s.watch.Add(d.id, d.path)
}

// unwatchDocumentLocked stops following d's file. rq.mu must be held.
func (rq *Machine) unwatchDocumentLocked(d *document) {
	if w := rq.docs.watch; w != nil {
		w.Remove(d.id)
	}
}

// resnapshot is RefreshDocument for the watcher: a read during which a
// new change event arrived may have seen a half-written file, so it is
// dropped and the document has no snapshot (docfile.Changing) rather than
// keeping the old text current; the new event's own report reads the
// file again.
func (rq *Machine) resnapshot(id string) {
	rq.mu.Lock()
	d := rq.docs.docs[id]
	if d == nil || rq.docs.watch == nil {
		rq.mu.Unlock()
		return
	}
	w := rq.docs.watch
	path, seen := d.path, w.Events(id)
	rq.mu.Unlock()
	data, err := rq.host.ReadSnapshot(path)
	rq.mu.Lock()
	defer rq.mu.Unlock()
	if rq.docs.docs[id] != d || rq.docs.watch != w {
		return
	}
	if w.Events(id) != seen {
		rq.markUnavailableLocked(d, docfile.Changing)
		return
	}
	rq.applySnapshotLocked(d, data, err)
}

// StopDocWatcher stops following files; Close calls it. The watcher is
// closed outside rq.mu, so that nothing of it is waited for while
// holding the lock its reports (resnapshot) take.
func (rq *Machine) StopDocWatcher() {
	rq.mu.Lock()
	s := rq.docs
	s.watchClosed = true
	w := s.watch
	s.watch = nil
	rq.mu.Unlock()
	if w != nil {
		w.Close()
	}
}
