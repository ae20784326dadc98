//go:build race

package broker

// raceEnabled: the race detector slows SQLite (C translated to Go) about
// tenfold and adds shadow memory, so the memory-bound tests skip under it.
const raceEnabled = true
