package docfile

import (
	"os"
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

// pollLoop stats the files every PollEvery: a changed stamp schedules a
// report as a change event would, and a lost directory's watch is
// re-added once the directory is back. The stats are taken outside mu.
func (w *Watcher) pollLoop() {
	tick := time.NewTicker(PollEvery)
	defer tick.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-tick.C:
		}
		w.mu.Lock()
		if w.closed {
			w.mu.Unlock()
			return
		}
		paths := make(map[string]string, len(w.files))
		for id, p := range w.files {
			paths[id] = p
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
		w.mu.Unlock()

		var moved []string
		for dir, id := range watched {
			if now := stampOf(dir); !now.ok || now.dev != id.dev || now.ino != id.ino {
				moved = append(moved, dir)
			}
		}
		for _, dir := range moved {
			w.dirGone(dir)
			w.fileChanged(dir)
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

		w.mu.Lock()
		if w.closed {
			w.mu.Unlock()
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
		}
		for id, st := range stamps {
			prev, had := w.seen[id]
			if _, open := w.files[id]; !open {
				continue
			}
			w.seen[id] = st
			if had && prev != st {
				changed = append(changed, paths[id])
			}
		}
		w.mu.Unlock()
		for _, p := range changed {
			w.fileChanged(p)
		}
	}
}
