package broker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"os"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dbeast/dbeast/broker/internal/httpguard"
	"github.com/dbeast/dbeast/broker/internal/requests"
	"github.com/dbeast/dbeast/broker/internal/state"
	"github.com/dbeast/dbeast/broker/store"
	"github.com/dbeast/dbeast/engines"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Broker is the running broker. Create it with New, then Start; Close
// stops it. Its methods are safe for concurrent use.
type Broker struct {
	cfg       Config
	startedAt time.Time // for the console's uptime
	log       *slog.Logger
	store     store.Store
	activity  *Activity
	limits    *httpguard.Limits
	mcp       *mcp.Server
	// reqs holds requests, grants, idempotency keys, slots and documents.
	reqs *requests.Machine
	// submitWait is how long submit waits for a request that runs without
	// a prompt (the contract's 2 s when zero). Tests whose engine is held
	// on purpose shorten it, so a known-running answer does not cost 2 s.
	submitWait time.Duration

	mu sync.Mutex
	// state is the saved state in force and its durable side
	// (broker/internal/state), guarded by mu.
	state *state.InForce
	// sessions is the session table (and the server generation),
	// guarded by mu like state.
	sessions *state.Sessions
	// narrowing counts, per source id, sharing narrowings whose revocations
	// have not finished yet; no request on such a source may start until
	// they have, so a stale session grant cannot start new work in between.
	narrowing map[string]int

	// hookMu guards sharingHooks (a leaf; the session end hooks are
	// the session table's).
	hookMu       sync.Mutex
	sharingHooks []func(SharingChange)

	consoleToken string
	signIn       signIns

	srvMu   sync.Mutex
	mcpAddr string // the bound address, fixed at the first start
	mcpSrv  *http.Server
	// mcpServing is whether the MCP listener serves agents. Stop server
	// only clears it: the socket stays bound and answers 503, so no other
	// local process can take the port and collect the bearer tokens
	// agents keep sending (they survive a stop by contract). Written
	// under srvMu; read without it by every MCP request.
	mcpServing  atomic.Bool
	consoleAddr string
	consoleSrv  *http.Server
	stopJanitor chan struct{}
	closed      bool

	// bursts counts MCP requests for the janitor (memory.go).
	bursts burstTracker
}

// New loads the saved state and builds the broker without listening.
func New(cfg Config) (*Broker, error) {
	if cfg.StateDir == "" {
		return nil, errors.New("broker: StateDir is required")
	}
	if cfg.Listen == "" {
		cfg.Listen = DefaultListen
	}
	if cfg.Console == "" {
		cfg.Console = DefaultConsole
	}
	if err := CheckLoopback(cfg.Listen); err != nil {
		return nil, err
	}
	if err := CheckLoopback(cfg.Console); err != nil {
		return nil, err
	}
	if err := checkInherited("MCP", cfg.MCPListener); err != nil {
		return nil, err
	}
	if err := checkInherited("console", cfg.ConsoleListener); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.StateDir, 0o700); err != nil {
		return nil, fmt.Errorf("broker: create state dir: %w", err)
	}
	st := cfg.Store
	if st == nil {
		st = store.Default(cfg.StateDir)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	b := &Broker{
		cfg: cfg, log: log, store: st, activity: &Activity{}, startedAt: cfg.now(),
		limits:       newLimits(cfg.now),
		consoleToken: newToken(consoleTokenPrefix),
	}
	inForce, err := state.Open(cfg.StateDir, st, &b.mu, log)
	if err != nil {
		return nil, err
	}
	b.state = inForce
	// The label is read from the state in force at each call (the
	// embedded Saved is replaced by every change), under Broker.mu.
	b.sessions = state.NewSessions(cfg.now, func(id string) string { return b.state.ConnectionLabel(id) }, b.activity, log)
	b.reqs = requests.New(reqHost{b})
	b.installRequestHooks()
	b.reqs.RestoreDocuments()
	b.mcp = b.newMCPServer()
	return b, nil
}

// CheckLoopback refuses an address that is not a loopback IP with a port.
// Host names (even "localhost") are refused: the Host rule compares the
// exact authority, and a name could resolve elsewhere.
func CheckLoopback(addr string) error {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil || !ap.Addr().IsLoopback() {
		return errNotLoopback
	}
	return nil
}

// Activity is the broker's activity log.
func (b *Broker) Activity() *Activity { return b.activity }

// Start binds the console and MCP listeners and serves them in the
// background.
func (b *Broker) Start() error {
	var console http.Handler
	if b.cfg.ConsoleHandler != nil {
		console = b.cfg.ConsoleHandler(b)
	}
	if console == nil {
		// A broker driven only through its methods (tests); a command that
		// forgot the handler would otherwise start with a console that
		// answers nothing and no word why.
		b.log.Warn("no console handler configured: the console answers 404 to every request")
		console = http.NotFoundHandler()
	}
	b.srvMu.Lock()
	defer b.srvMu.Unlock()
	if b.closed {
		return errors.New("broker: closed")
	}
	ln, err := listen(b.cfg.Console, b.cfg.ConsoleListener)
	if err != nil {
		return fmt.Errorf("broker: console listener: %w", err)
	}
	b.consoleAddr = ln.Addr().String()
	b.consoleSrv = b.newHTTPServer("console", console, ln)
	go b.consoleSrv.Serve(ln)
	if err := b.startMCPSrvLocked(); err != nil {
		b.consoleSrv.Close()
		return err
	}
	b.stopJanitor = make(chan struct{})
	go b.janitor(b.stopJanitor)
	return nil
}

// newHTTPServer is one listener's server: timeouts, a header cap, its
// connections tracked by ln's rules (listen.go), its errors to the
// broker's log and handler panics recovered (logged without their value,
// which may quote a request).
func (b *Broker) newHTTPServer(name string, h http.Handler, ln listener) *http.Server {
	errorLog := slog.NewLogLogger(b.log.Handler().WithAttrs([]slog.Attr{slog.String("listener", name)}), slog.LevelWarn)
	return &http.Server{
		Handler: b.recoverHTTP(name, h),
		// The contract's HTTP accept time bounds reading the whole
		// request, body included: a client trickling its body must not
		// hold one of the in-flight slots for longer. The write timeout
		// cuts a client that stops reading its answer; the idle timeout
		// closes kept-alive connections nobody uses.
		ReadHeaderTimeout: httpHeaderTimeout,
		ReadTimeout:       httpAcceptTimeout,
		WriteTimeout:      httpWriteTimeout,
		IdleTimeout:       httpIdleTimeout,
		MaxHeaderBytes:    32 << 10,
		ErrorLog:          errorLog,
		ConnState:         ln.conns.ConnState,
		ConnContext:       ln.conns.ConnContext,
	}
}

// recoverHTTP logs a handler panic with its type and stack only and
// aborts the response (net/http logs nothing more for ErrAbortHandler).
func (b *Broker) recoverHTTP(name string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				b.log.Error("http handler panic", slog.String("listener", name), slog.String("panic_type", fmt.Sprintf("%T", p)), slog.String("stack", string(debug.Stack())))
				panic(http.ErrAbortHandler)
			}
		}()
		b.bursts.request()
		h.ServeHTTP(w, r)
	})
}

// startMCPSrvLocked binds and serves the MCP listener the first time, and
// serves agents on it again after StopServer. Needs srvMu; takes
// Broker.mu briefly (srvMu before mu, see the lock map in doc.go).
func (b *Broker) startMCPSrvLocked() error {
	if b.mcpServing.Load() {
		return nil
	}
	// The first start serves the listener only once mcpServing is set: a
	// connection already waiting (an inherited socket's backlog, agents
	// that called while the broker was down) would otherwise be answered
	// "stopped".
	var serve func()
	if b.mcpSrv == nil {
		ln, err := listen(b.cfg.Listen, b.cfg.MCPListener)
		if err != nil {
			return fmt.Errorf("broker: MCP listener: %w", err)
		}
		b.mcpAddr = ln.Addr().String()
		sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return b.mcp }, &mcp.StreamableHTTPOptions{
			Stateless:           true,
			JSONResponse:        true,
			Logger:              b.log,
			MaxRequestBodyBytes: MaxBodyBytes,
		})
		srv := b.newHTTPServer("mcp", b.whileServing(b.guard(sdk)), ln)
		b.mcpSrv = srv
		serve = func() { go srv.Serve(ln) }
	}
	b.mu.Lock()
	b.sessions.NextGenerationLocked()
	b.mu.Unlock()
	b.mcpServing.Store(true)
	if serve != nil {
		serve()
	}
	b.activity.Add(ActivityEntry{Time: b.cfg.now(), Event: "server_started"})
	b.log.Info("MCP server started", slog.String("addr", b.mcpAddr))
	return nil
}

// errServerStopped is the body of the MCP listener's answer while the
// server is stopped.
const errServerStopped = "dbeast: the MCP server is stopped (service stopped); ask the person to start it"

// whileServing answers 503 while the server is stopped (StopServer) and
// passes requests to h while it serves.
func (b *Broker) whileServing(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !b.mcpServing.Load() {
			// A kept-alive connection gets this answer and is closed.
			w.Header().Set("Connection", "close")
			http.Error(w, errServerStopped, http.StatusServiceUnavailable)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// StopServer stops serving agents and ends every session. The MCP socket
// stays bound and answers 503 (see mcpServing); connections and their
// tokens stay; StartServer serves again on the same port.
func (b *Broker) StopServer() error {
	b.srvMu.Lock()
	was := b.mcpServing.Swap(false)
	b.srvMu.Unlock()
	if was {
		b.activity.Add(ActivityEntry{Time: b.cfg.now(), Event: "server_stopped"})
		b.log.Info("MCP server stopped")
	}
	b.endSessions(func(*Session) bool { return true }, EndServerStop)
	return nil
}

// closeMCP closes the MCP listener for good (Close).
func (b *Broker) closeMCP() {
	b.srvMu.Lock()
	srv := b.mcpSrv
	b.mcpSrv = nil
	b.srvMu.Unlock()
	if srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			srv.Close()
		}
	}
}

// ServerState is what the console shows about the MCP listener. It holds
// no secret: the URL is the loopback endpoint every client config names.
type ServerState struct {
	MCPURL  string `json:"mcp_url"`
	Running bool   `json:"running"`
	// StateSaved is false while a revocation or narrowing is in force but
	// not yet saved (the store fails; the broker keeps retrying).
	StateSaved bool `json:"state_saved"`
	// Version is the binary's version (Build).
	Version string `json:"version"`
	// StateDir is where config.json and the saved state are.
	StateDir string `json:"state_dir"`
	// StartedAt is when this broker process started.
	StartedAt time.Time `json:"started_at"`
	// Log is where the log goes (Config.LogLocation).
	Log string `json:"log"`
	// ConsoleTokenFile is where this start's console token was written
	// (Config.ConsoleTokenFile); empty when it was only printed. The
	// path, never the token.
	ConsoleTokenFile string `json:"console_token_file"`
}

// ServerStatus reports the MCP endpoint and whether it is serving.
func (b *Broker) ServerStatus() ServerState {
	b.srvMu.Lock()
	running := b.mcpServing.Load()
	b.srvMu.Unlock()
	log := b.cfg.LogLocation
	if log == "" {
		log = "standard error"
	}
	return ServerState{MCPURL: b.MCPURL(), Running: running, Version: Build().Version, StateDir: b.cfg.StateDir, StartedAt: b.startedAt.UTC(), Log: log,
		ConsoleTokenFile: b.cfg.ConsoleTokenFile, StateSaved: b.StateSaved()}
}

// StartServer starts the MCP listener after StopServer; a running server
// is left alone. Sessions from before are gone: a new generation begins.
func (b *Broker) StartServer() error {
	b.srvMu.Lock()
	defer b.srvMu.Unlock()
	if b.closed {
		return errors.New("broker: closed")
	}
	return b.startMCPSrvLocked()
}

// Close stops both listeners, ends every session and closes the drivers'
// pools (engines.Closer).
func (b *Broker) Close() error {
	b.srvMu.Lock()
	if b.closed {
		b.srvMu.Unlock()
		return nil
	}
	b.closed = true
	if b.stopJanitor != nil {
		close(b.stopJanitor)
	}
	console := b.consoleSrv
	b.srvMu.Unlock()
	err := b.StopServer()
	b.reqs.StopDocWatcher()
	b.closeMCP()
	if console != nil {
		console.Close()
	}
	b.state.Close()
	// The drivers' idle connections go last, after the listeners and
	// sessions; an engine still running keeps its own connection, which
	// its Close closes, since a closed Driver pools nothing.
	for _, d := range b.cfg.Drivers {
		if c, ok := d.(engines.Closer); ok {
			_ = c.Close()
		}
	}
	return err
}

// janitor ends idle and expired sessions even when nobody calls, and
// gives a burst's memory back to the OS once it has ended (memory.go).
func (b *Broker) janitor(stop chan struct{}) {
	t := time.NewTicker(15 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			b.mu.Lock()
			ended := b.sweepLocked()
			b.mu.Unlock()
			b.runEndHooks(ended)
			if b.bursts.quietAfterBurst() {
				returnMemory()
			}
		}
	}
}

// mcpAuthority is the exact Host the MCP endpoint accepts.
func (b *Broker) mcpAuthority() string {
	b.srvMu.Lock()
	defer b.srvMu.Unlock()
	return b.mcpAddr
}

// MCPURL is the endpoint URL, after Start (before it, from the config).
func (b *Broker) MCPURL() string {
	a := b.mcpAuthority()
	if a == "" {
		a = b.cfg.Listen
	}
	return "http://" + a + mcpPath
}

// ConsoleURL is the console's base URL, without the token.
func (b *Broker) ConsoleURL() string {
	b.srvMu.Lock()
	defer b.srvMu.Unlock()
	return "http://" + b.consoleAddr + "/"
}

// ConsoleToken is this start's console bearer token. Show it only to the
// person (terminal, 0600 file), never to an agent.
func (b *Broker) ConsoleToken() string { return b.consoleToken }
