//go:build race

package sqlite

// raceEnabled: the race detector slows SQLite (C translated to Go) about
// tenfold and adds shadow memory, so the memory-bound tests skip under it.
const raceEnabled = true
