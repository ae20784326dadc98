package broker_test

import (
	"github.com/dbeast/dbeast/broker"
	"github.com/dbeast/dbeast/broker/consoleapi"
)

// The broker's internal tests drive the console API through a real
// console listener, built by consoleapi.NewHandler; they reach it through
// the hook export_test.go declares, since they cannot import consoleapi.
func init() { broker.ConsoleForTests = consoleapi.NewHandler }
