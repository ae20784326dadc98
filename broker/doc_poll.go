package broker

import (
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// fileStamp is what the poll compares: the file's identity, size and
// modification time, or that it could not be stat'ed.
type fileStamp struct {
	ok         bool
	dev, ino   uint64
	size, mode int64
	mtime      int64
}

// stampOf stats path without following a link.
func stampOf(path string) fileStamp {
	fi, err := os.Lstat(path)
	if err != nil {
		return fileStamp{}
	}
	st := fileStamp{ok: true, size: fi.Size(), mode: int64(fi.Mode()), mtime: fi.ModTime().UnixNano()}
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
		st.dev, st.ino = uint64(sys.Dev), uint64(sys.Ino)
	}
	return st
}

// pollLoop stats the documents' files every docPoll: a changed stamp
// schedules a re-snapshot as a change event would, and a lost
// directory's watch is re-added once the directory is back. The stats
// are taken outside reqs.mu.
func (b *Broker) pollLoop(w *docWatcher) {
	tick := time.NewTicker(docPoll)
	defer tick.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-tick.C:
		}
		b.reqs.mu.Lock()
		if b.reqs.docs.watch != w {
			b.reqs.mu.Unlock()
			return
		}
		paths := map[string]string{}
		for id, d := range b.reqs.docs.docs {
			paths[id] = d.path
		}
		var lost []string
		watched := map[string]fileStamp{}
		for dir := range w.dirs {
			if w.lost[dir] {
				lost = append(lost, dir)
			} else {
				watched[dir] = w.dirIDs[dir]
			}
		}
		b.reqs.mu.Unlock()

		var moved []string
		for dir, id := range watched {
			if now := stampOf(dir); !now.ok || now.dev != id.dev || now.ino != id.ino {
				moved = append(moved, dir)
			}
		}
		for _, dir := range moved {
			b.dirGone(w, dir)
			b.fileChanged(w, dir)
		}

		stamps := make(map[string]fileStamp, len(paths))
		for id, p := range paths {
			stamps[id] = stampOf(p)
		}
		var back []string
		for _, dir := range lost {
			if fi, err := os.Lstat(dir); err == nil && fi.IsDir() {
				back = append(back, dir)
			}
		}

		b.reqs.mu.Lock()
		if b.reqs.docs.watch != w {
			b.reqs.mu.Unlock()
			return
		}
		var changed []string
		for _, dir := range back {
			id := stampOf(dir)
			if !w.lost[dir] || w.dirs[dir] == 0 || w.fw.Add(dir) != nil {
				continue
			}
			delete(w.lost, dir)
			w.dirIDs[dir] = id
			changed = append(changed, dir)
			for _, d := range b.reqs.docs.docs {
				if filepath.Dir(d.path) == dir {
					d.followed = true
				}
			}
		}
		for id, st := range stamps {
			prev, had := w.seen[id]
			if _, open := b.reqs.docs.docs[id]; !open {
				continue
			}
			w.seen[id] = st
			if had && prev != st {
				changed = append(changed, paths[id])
			}
		}
		b.reqs.mu.Unlock()
		for _, p := range changed {
			b.fileChanged(w, p)
		}
	}
}
