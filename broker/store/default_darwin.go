//go:build darwin && cgo

package store

// Default returns the platform's preferred backend: the Keychain.
func Default(stateDir string) Store { return NewKeychain() }
