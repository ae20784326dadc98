package broker

import (
	"net/http"
	"testing"
)

// ConsoleForTests builds the console handler of every broker this
// package's own tests start (newEnv and the tests that call New
// themselves), so they drive the console API as the person does. An
// internal test cannot import broker/consoleapi, which imports broker;
// consoleapi_hook_test.go, in the external test package broker_test that
// is linked into the same test binary, sets it to consoleapi.NewHandler
// in an init function, which runs before any test.
var ConsoleForTests func(*Broker) http.Handler

// consoleForTests is ConsoleForTests, failing the test when the hook was
// not set, so a test never runs against a console that answers only 404.
func consoleForTests(t testing.TB) func(*Broker) http.Handler {
	t.Helper()
	if ConsoleForTests == nil {
		t.Fatal("ConsoleForTests is not set (consoleapi_hook_test.go)")
	}
	return ConsoleForTests
}
