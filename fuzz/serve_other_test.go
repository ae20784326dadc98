//go:build !linux

package fuzz_test

import "syscall"

// childAttr is nil where there is no parent-death signal: FuzzServe's
// cleanup stops the server.
func childAttr() *syscall.SysProcAttr { return nil }
