package broker

import (
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/dbeast/dbeast/broker/store"
	"github.com/dbeast/dbeast/engines"
)

// Default addresses. Both listeners accept loopback addresses only.
const (
	DefaultListen  = "127.0.0.1:54832"
	DefaultConsole = "127.0.0.1:54833"
)

// Config configures a Broker. It is built in cmd/ from flags; the broker
// reads no flags or environment itself.
type Config struct {
	// StateDir holds config.json and, with the file store, the saved
	// state. Required. Created with mode 0700 when missing.
	StateDir string
	// Listen is the MCP endpoint's loopback address; empty means
	// DefaultListen. Port 0 picks a free port (tests); the Host rule then
	// uses the port actually bound.
	Listen string
	// Console is the console API's loopback address; empty means
	// DefaultConsole. Port 0 picks a free port.
	Console string
	// MCPListener and ConsoleListener, when set, are sockets a supervisor
	// bound and passed in (socket activation, cmd/ reads them); the
	// broker serves on them instead of binding Listen or Console, and
	// closes them on Close. Each must be a TCP listener on a loopback
	// address (New refuses anything else). The supervisor keeps its own
	// copy bound while the broker is down, so no other local process can
	// take the port and receive the agents' bearer tokens.
	MCPListener, ConsoleListener net.Listener
	// Clock returns the current time; nil means time.Now. Tests inject a
	// manual clock to drive session deadlines and rate limits.
	Clock func() time.Time
	// Drivers validates sources by kind when a source is added. A kind
	// without a driver is still accepted: SQLite by checking that the file
	// exists, the others by a syntactic check of the DSN's presence only.
	// Nil means no drivers.
	Drivers map[engines.Kind]engines.Driver
	// Store keeps connections, sharing and sources with their secrets; nil
	// means store.Default(StateDir) (the Keychain on macOS, else the file).
	Store store.Store
	// Logger receives operational messages (never tokens, DSNs, SQL
	// results); nil discards them.
	Logger *slog.Logger
	// LogLocation says where Logger writes (a file's path), for the
	// console's Server page; empty means standard error.
	LogLocation string
	// ConsoleTokenFile is the file serve writes the console token to
	// (--console-token-file), for the console's Server page; empty when
	// there is none. The broker never reads or writes it.
	ConsoleTokenFile string
	// ConsoleHandler builds what the console listener serves; cmd/ passes
	// consoleapi.NewHandler. The broker cannot build its console API
	// itself, since that package imports this one. Start calls it once,
	// before binding the listener, and serves the result behind the
	// listener's timeouts and panic recovery. Nil (or a nil handler)
	// means the console listener is bound but answers 404 to everything,
	// with a warning in the log: a broker driven only through its
	// methods.
	ConsoleHandler func(*Broker) http.Handler
}

func (c Config) now() time.Time {
	if c.Clock != nil {
		return c.Clock()
	}
	return time.Now()
}
