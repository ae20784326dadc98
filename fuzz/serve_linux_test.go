package fuzz_test

import "syscall"

// childAttr makes the kernel kill dbeast serve when the test process
// dies, so a killed fuzz worker leaves no server behind.
func childAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} }
