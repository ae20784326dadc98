//go:build race

package main

// raceEnabled: the race detector slows SQLite (C translated to Go) about
// tenfold, enough to move a heavy refused read across the harness's
// one-second over-refusal probe between two runs of the same cases.
const raceEnabled = true
