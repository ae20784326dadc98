package requests

import (
	"crypto/sha256"
	"slices"
)

// persistDocumentsLocked saves the list of open documents (id, alias,
// path, sharing; never content) with the rest of the state. rq.mu must
// be held; it takes Broker.mu, as the lock order allows. On error the
// saved list is unchanged and the caller rolls back its own change.
func (rq *Machine) persistDocumentsLocked() error {
	rq.pruneDocSharesLocked()
	list := make([]*savedDocument, 0, len(rq.docs.docs))
	for _, d := range rq.sortedDocumentsLocked() {
		list = append(list, &savedDocument{ID: d.id, Alias: d.alias, Path: d.path, SharedWith: slices.Clone(d.sharedWith)})
	}
	return rq.host.UpdateState(func(s *savedState) error {
		s.Documents, s.DocumentCounter = list, rq.docs.counter
		return nil
	})
}

// RestoreDocuments reopens the saved documents when the broker is built,
// each with a fresh snapshot at version 1 (grants never outlive a start).
// A file that cannot be snapshotted now stays listed as unavailable with
// its reason, and is watched so that it comes back when it is fixed.
func (rq *Machine) RestoreDocuments() {
	var saved []*savedDocument
	var counter int
	rq.host.ReadState(func(st *savedState) {
		saved, counter = slices.Clone(st.Documents), st.DocumentCounter
	})
	if len(saved) > MaxDocuments {
		saved = saved[:MaxDocuments]
	}
	// The files are read before rq.mu is taken: a slow or stuck file
	// must not hold the lock every request needs.
	type read struct {
		data []byte
		err  error
	}
	reads := make([]read, len(saved))
	for i, sd := range saved {
		reads[i].data, reads[i].err = rq.host.ReadSnapshot(sd.Path)
	}
	rq.mu.Lock()
	defer rq.mu.Unlock()
	s := rq.docs
	s.counter = counter
	for i, sd := range saved {
		s.seq++
		d := &document{id: sd.ID, alias: sd.Alias, path: sd.Path, seq: s.seq, version: 1, sharedWith: slices.Clone(sd.SharedWith)}
		data, err := reads[i].data, reads[i].err
		if err == nil && s.totalBytes("")+len(data) > MaxAllDocBytes {
			err = ErrTooMany
		}
		if err != nil {
			d.problem = ProblemOf(err)
		} else {
			d.text, d.sum = data, sha256.Sum256(data)
		}
		s.docs[d.id] = d
		rq.watchDocumentLocked(d)
	}
}
