//go:build !(darwin && cgo) && !linux

package store

// Default returns the platform's preferred backend: the state file.
func Default(stateDir string) Store { return NewFile(stateDir) }
