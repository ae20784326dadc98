package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/dbeast/dbeast/broker"
	"github.com/dbeast/dbeast/broker/consoleapi"
	"github.com/dbeast/dbeast/engines"
)

// The declarative configuration file (dbeast serve --config FILE): the
// sources, agent connections and standing sharing a person wants, applied
// at start, on SIGHUP and on dbeast reload through the same broker
// methods the console calls (AddSource, UpdateSource, RemoveSource,
// CreateConnection, RevokeConnection, SetSharing), so narrowing through
// the file revokes grants and requests exactly as the console does.
//
// Applying is idempotent: what the file manages is remembered by id in
// config-managed.json in the state directory (names, labels and a hash
// of each source's configuration, never a DSN or token), so applying
// the same file again changes nothing and keeps every token. Whatever
// the file manages the console shows as managed and refuses to edit.

// fileConfig is the file's content.
type fileConfig struct {
	Sources     []fileSource     `toml:"source"`
	Connections []fileConnection `toml:"connection"`
	Shares      []fileShare      `toml:"share"`
}

// fileSource is one [[source]]: a DSN (or, for SQLite, a path) or its
// parts, with the password from an environment variable.
type fileSource struct {
	// Name is the alias agents see and the file's key for the source.
	Name string `toml:"name"`
	// Kind is sqlite, postgres or mysql; empty means from the DSN's form.
	Kind string `toml:"kind"`
	DSN  string `toml:"dsn"`
	Path string `toml:"path"`
	// Host, Port, User, Database and Params build a DSN when DSN is
	// empty (postgres, mysql).
	Host     string            `toml:"host"`
	Port     int               `toml:"port"`
	User     string            `toml:"user"`
	Database string            `toml:"database"`
	Params   map[string]string `toml:"params"`
	// PasswordEnv names the environment variable holding the password.
	PasswordEnv string `toml:"password_env"`
	ReadOnly    bool   `toml:"read_only"`
}

// fileConnection is one [[connection]]; its token is shown once, when
// the connection is created: written to TokenFile (mode 0600), or
// printed with the client configurations.
type fileConnection struct {
	Label     string `toml:"label"`
	TokenFile string `toml:"token_file"`
}

// fileShare is one [[share]]: the standing access of one connection (by
// label) or of all agents (all = true) to one source (by name).
type fileShare struct {
	Connection string `toml:"connection"`
	All        bool   `toml:"all"`
	Source     string `toml:"source"`
	Level      string `toml:"level"`
	// Tables maps "schema.name" to read or read_write.
	Tables map[string]string `toml:"tables"`
}

// managedState is config-managed.json: what the file manages, by id.
type managedState struct {
	Sources     map[string]managedSource `json:"sources"`     // by name
	Connections map[string]string        `json:"connections"` // label → id
	// Shares are the (connection id, source id) pairs the file set.
	Shares [][2]string `json:"shares"`
}

type managedSource struct {
	ID string `json:"id"`
	// Config is a hash of the source's kind, DSN (with its password),
	// path and read-only flag: a change means UpdateSource.
	Config string `json:"config"`
}

// applySummary is what one apply changed, as POST /api/reload answers.
type applySummary struct {
	Added     []string `json:"added"`
	Changed   []string `json:"changed"`
	Removed   []string `json:"removed"`
	Unchanged int      `json:"unchanged"`
}

// applier applies one configuration file to one broker.
type applier struct {
	file, stateDir string
	b              *broker.Broker
	out            io.Writer

	applyMu sync.Mutex // serialises applies (start, SIGHUP, reload)

	regMu sync.Mutex // guards reg; held only for lookups and swaps
	reg   managedState
}

// configure is serve's broker configuration: f's, with --log-file and
// --log-format applied, and when --config is set the applier's console
// handler, which marks managed objects and serves POST /api/reload.
func (x *serveExtras) configure(f *serveFlags) (broker.Config, error) {
	cfg, err := x.logger(f.config(), f)
	if err != nil || x.configFile == "" {
		return cfg, err
	}
	abs, err := filepath.Abs(x.configFile)
	if err != nil {
		return cfg, errors.New("--config: cannot make the path absolute")
	}
	if _, err := loadConfigFile(abs); err != nil {
		return cfg, fmt.Errorf("--config: %w", err)
	}
	a := &applier{file: abs, stateDir: cfg.StateDir}
	x.applier = a
	cfg.ConsoleHandler = func(b *broker.Broker) http.Handler {
		return consoleapi.NewHandlerWith(b, consoleapi.Options{Managed: a.managed, Reload: func() (any, error) { return a.apply() }})
	}
	return cfg, nil
}

// start applies the file once and then again on every SIGHUP.
func (a *applier) start(b *broker.Broker, out io.Writer) error {
	a.b, a.out = b, out
	if err := a.loadRegistry(); err != nil {
		return err
	}
	sum, err := a.apply()
	if err != nil {
		return fmt.Errorf("--config: %w", err)
	}
	a.report("applied", sum)
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	go func() {
		for range hup {
			sum, err := a.apply()
			if err != nil {
				fmt.Fprintf(out, "dbeast: SIGHUP: %s is not applied: %v\n", a.file, err)
				continue
			}
			a.report("reloaded", sum)
		}
	}()
	return nil
}

func (a *applier) report(what string, s applySummary) {
	fmt.Fprintf(a.out, "Config %s %s: %d added, %d changed, %d removed, %d unchanged.\n", a.file, what, len(s.Added), len(s.Changed), len(s.Removed), s.Unchanged)
}

// managed answers consoleapi.Options.Managed.
func (a *applier) managed(kind, id, sourceID string) bool {
	a.regMu.Lock()
	defer a.regMu.Unlock()
	switch kind {
	case consoleapi.ManagedSource:
		for _, s := range a.reg.Sources {
			if s.ID == id {
				return true
			}
		}
	case consoleapi.ManagedConnection:
		for _, c := range a.reg.Connections {
			if c == id {
				return true
			}
		}
	case consoleapi.ManagedSharing:
		return slices.Contains(a.reg.Shares, [2]string{id, sourceID})
	}
	return false
}

func (a *applier) registryPath() string { return filepath.Join(a.stateDir, "config-managed.json") }

func (a *applier) loadRegistry() error {
	reg := managedState{Sources: map[string]managedSource{}, Connections: map[string]string{}}
	raw, err := os.ReadFile(a.registryPath())
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return errors.New("cannot read config-managed.json in the state directory")
	default:
		if json.Unmarshal(raw, &reg) != nil {
			return errors.New("config-managed.json in the state directory is not valid")
		}
		if reg.Sources == nil {
			reg.Sources = map[string]managedSource{}
		}
		if reg.Connections == nil {
			reg.Connections = map[string]string{}
		}
	}
	a.regMu.Lock()
	a.reg = reg
	a.regMu.Unlock()
	return nil
}

func (a *applier) saveRegistry(reg managedState) error {
	sort.Slice(reg.Shares, func(i, j int) bool {
		return reg.Shares[i][0]+reg.Shares[i][1] < reg.Shares[j][0]+reg.Shares[j][1]
	})
	raw, _ := json.MarshalIndent(reg, "", "  ")
	a.regMu.Lock()
	a.reg = reg
	a.regMu.Unlock()
	tmp := a.registryPath() + ".tmp"
	if err := writeSecretFile(tmp, string(raw)+"\n"); err != nil {
		return errors.New("cannot write config-managed.json in the state directory")
	}
	if err := os.Rename(tmp, a.registryPath()); err != nil {
		return errors.New("cannot write config-managed.json in the state directory")
	}
	return nil
}

// loadConfigFile reads and checks the file. Its errors name a line or a
// field, never a value (a DSN may hold a password).
func loadConfigFile(path string) (fileConfig, error) {
	var fc fileConfig
	md, err := toml.DecodeFile(path, &fc)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return fc, fmt.Errorf("line %d is not valid TOML", pe.Position.Line)
		}
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) {
			return fc, errors.New("cannot read the file")
		}
		return fc, errors.New("a value has the wrong type (see the README's example)")
	}
	if und := md.Undecoded(); len(und) > 0 {
		return fc, fmt.Errorf("unknown key %q", und[0].String())
	}
	names, labels := map[string]bool{}, map[string]bool{}
	for i, s := range fc.Sources {
		if s.Name == "" || names[s.Name] {
			return fc, fmt.Errorf("source %d: name is required and must be unique", i+1)
		}
		names[s.Name] = true
	}
	for i, c := range fc.Connections {
		if c.Label == "" || labels[c.Label] {
			return fc, fmt.Errorf("connection %d: label is required and must be unique", i+1)
		}
		labels[c.Label] = true
	}
	pairs := map[[2]string]bool{}
	for i, s := range fc.Shares {
		if s.All == (s.Connection != "") {
			return fc, fmt.Errorf("share %d: give connection or all = true", i+1)
		}
		if !s.All && !labels[s.Connection] {
			return fc, fmt.Errorf("share %d: connection is not a [[connection]] label of this file", i+1)
		}
		if !names[s.Source] {
			return fc, fmt.Errorf("share %d: source is not a [[source]] name of this file", i+1)
		}
		k := [2]string{s.Connection, s.Source}
		if pairs[k] {
			return fc, fmt.Errorf("share %d: a second share of the same connection and source", i+1)
		}
		pairs[k] = true
		for t := range s.Tables {
			if sc, n, ok := strings.Cut(t, "."); !ok || sc == "" || n == "" {
				return fc, fmt.Errorf("share %d: table keys are \"schema.name\"", i+1)
			}
		}
	}
	return fc, nil
}

// newSource builds the source a [[source]] describes, its password read
// from the environment.
func (s fileSource) newSource() (broker.NewSource, error) {
	loc := s.DSN
	if s.Path != "" {
		loc = s.Path
		if strings.HasPrefix(loc, "~/") {
			if home, err := os.UserHomeDir(); err == nil {
				loc = filepath.Join(home, loc[2:])
			}
		}
	}
	kind := s.Kind
	if loc == "" {
		if kind != "postgres" && kind != "mysql" {
			return broker.NewSource{}, errors.New("needs dsn, path, or kind postgres or mysql with host, user and database")
		}
		loc = partsDSN(s)
	}
	ns, err := newSourceFrom(kind, loc, s.Name, s.ReadOnly)
	if err != nil {
		return ns, err
	}
	if s.PasswordEnv != "" {
		pw := os.Getenv(s.PasswordEnv)
		if pw == "" {
			return ns, errors.New("its password_env variable is not set")
		}
		if ns.DSN, err = withDSNPassword(ns.Kind, ns.DSN, pw); err != nil {
			return ns, err
		}
	}
	return ns, nil
}

// partsDSN is the URL of a source given by parts.
func partsDSN(s fileSource) string {
	host := s.Host
	if host == "" {
		host = "127.0.0.1"
	}
	if s.Port != 0 {
		host = net.JoinHostPort(host, strconv.Itoa(s.Port))
	}
	u := url.URL{Scheme: s.Kind, Host: host, Path: "/" + s.Database}
	if s.User != "" {
		u.User = url.User(s.User)
	}
	q := url.Values{}
	for k, v := range s.Params {
		q.Set(k, v)
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// configHash fingerprints a source's configuration.
func configHash(ns broker.NewSource) string {
	h := sha256.Sum256([]byte(string(ns.Kind) + "\x00" + ns.DSN + "\x00" + ns.Path + "\x00" + strconv.FormatBool(ns.ReadOnly)))
	return hex.EncodeToString(h[:])
}

// apply makes the broker's state what the file says, through the
// console's broker methods, and records what the file manages. A file
// that does not load changes nothing.
func (a *applier) apply() (sum applySummary, err error) {
	a.applyMu.Lock()
	defer a.applyMu.Unlock()
	fc, err := loadConfigFile(a.file)
	if err != nil {
		return sum, err
	}
	news := make([]broker.NewSource, len(fc.Sources))
	for i, s := range fc.Sources {
		if news[i], err = s.newSource(); err != nil {
			return sum, fmt.Errorf("source %q: %w", s.Name, err)
		}
	}
	a.regMu.Lock()
	reg := managedState{Sources: map[string]managedSource{}, Connections: map[string]string{}, Shares: slices.Clone(a.reg.Shares)}
	for k, v := range a.reg.Sources {
		reg.Sources[k] = v
	}
	for k, v := range a.reg.Connections {
		reg.Connections[k] = v
	}
	a.regMu.Unlock()
	// Whatever happens below, record what now exists.
	defer func() {
		if serr := a.saveRegistry(reg); serr != nil && err == nil {
			err = serr
		}
	}()

	// Sources.
	current := map[string]broker.Source{}
	for _, s := range a.b.Sources() {
		current[s.ID] = s
	}
	var tests []string
	srcID := map[string]string{}
	for i, s := range fc.Sources {
		ns, h := news[i], configHash(news[i])
		if m, ok := reg.Sources[s.Name]; ok {
			if cur, exists := current[m.ID]; exists {
				srcID[s.Name] = m.ID
				var ed broker.SourceEdit
				if m.Config != h {
					if ns.Kind == engines.SQLite {
						ed.Path = &ns.Path
					} else {
						ed.DSN = &ns.DSN
					}
					ed.ReadOnly = &ns.ReadOnly
				}
				if cur.Alias != s.Name {
					ed.Alias = &s.Name
				}
				if ed == (broker.SourceEdit{}) {
					sum.Unchanged++
					continue
				}
				if _, err = a.b.UpdateSource(m.ID, ed); err != nil {
					return sum, fmt.Errorf("source %q: %w", s.Name, err)
				}
				reg.Sources[s.Name] = managedSource{ID: m.ID, Config: h}
				sum.Changed = append(sum.Changed, "source "+s.Name)
				tests = append(tests, s.Name)
				continue
			}
		}
		src, aerr := a.b.AddSource(ns)
		if aerr != nil {
			err = aerr
			return sum, fmt.Errorf("source %q: %w", s.Name, err)
		}
		srcID[s.Name] = src.ID
		reg.Sources[s.Name] = managedSource{ID: src.ID, Config: h}
		sum.Added = append(sum.Added, "source "+s.Name)
		tests = append(tests, s.Name)
	}

	// Connections.
	conns := a.b.Connections()
	exists := func(id string) bool {
		return slices.ContainsFunc(conns, func(c broker.Connection) bool { return c.ID == id })
	}
	connID := map[string]string{broker.AllConnections: broker.AllConnections}
	for _, c := range fc.Connections {
		if id, ok := reg.Connections[c.Label]; ok && exists(id) {
			connID[c.Label] = id
			sum.Unchanged++
			continue
		}
		if i := slices.IndexFunc(conns, func(x broker.Connection) bool { return x.Label == c.Label }); i >= 0 {
			// A connection made before the file (by the console or
			// --create-connection) is adopted: its token keeps working.
			connID[c.Label] = conns[i].ID
			reg.Connections[c.Label] = conns[i].ID
			sum.Changed = append(sum.Changed, "connection "+c.Label)
			continue
		}
		if err = ensureConnection(a.b, c.Label, expandHome(c.TokenFile), a.out); err != nil {
			return sum, fmt.Errorf("connection %q: %w", c.Label, err)
		}
		for _, x := range a.b.Connections() {
			if x.Label == c.Label {
				connID[c.Label] = x.ID
				reg.Connections[c.Label] = x.ID
			}
		}
		sum.Added = append(sum.Added, "connection "+c.Label)
	}

	// Sharing: set what the file says, then narrow what it no longer says.
	have := map[[2]string]broker.SharingEntry{}
	for _, e := range a.b.Sharing() {
		have[[2]string{e.ConnectionID, e.SourceID}] = e
	}
	var shares [][2]string
	for _, s := range fc.Shares {
		label := s.Connection
		if s.All {
			label = broker.AllConnections
		}
		e := broker.SharingEntry{ConnectionID: connID[label], SourceID: srcID[s.Source], DatabaseLevel: broker.Level(s.Level), Tables: []broker.TableShare{}}
		for t, lvl := range s.Tables {
			sc, n, _ := strings.Cut(t, ".")
			e.Tables = append(e.Tables, broker.TableShare{Schema: sc, Name: n, Access: broker.TableAccess(lvl)})
		}
		sort.Slice(e.Tables, func(i, j int) bool {
			return e.Tables[i].Schema+"\x00"+e.Tables[i].Name < e.Tables[j].Schema+"\x00"+e.Tables[j].Name
		})
		k := [2]string{e.ConnectionID, e.SourceID}
		shares = append(shares, k)
		if cur, ok := have[k]; ok && sameEntry(cur, e) {
			sum.Unchanged++
			continue
		}
		if err = a.b.SetSharing(e); err != nil {
			return sum, fmt.Errorf("share of %q: %w", s.Source, err)
		}
		if !slices.Contains(reg.Shares, k) {
			reg.Shares = append(reg.Shares, k)
		}
		sum.Changed = append(sum.Changed, "share of "+s.Source)
	}
	var kept [][2]string
	for _, k := range reg.Shares {
		if slices.Contains(shares, k) {
			kept = append(kept, k)
			continue
		}
		if _, ok := have[k]; ok {
			// The same narrowing as the console's: the sessions lose their
			// grants and requests on the source.
			if err = a.b.SetSharing(broker.SharingEntry{ConnectionID: k[0], SourceID: k[1], DatabaseLevel: broker.LevelNone, Tables: []broker.TableShare{}}); err != nil && !errors.Is(err, broker.ErrNotFound) {
				return sum, errors.New("a share the file no longer has could not be removed")
			}
			err = nil
			sum.Removed = append(sum.Removed, "share")
		}
	}
	reg.Shares = kept

	// Connections and sources the file no longer has.
	for label, id := range reg.Connections {
		if !slices.ContainsFunc(fc.Connections, func(c fileConnection) bool { return c.Label == label }) {
			if rerr := a.b.RevokeConnection(id); rerr != nil && !errors.Is(rerr, broker.ErrNotFound) {
				err = rerr
				return sum, fmt.Errorf("connection %q: %w", label, err)
			}
			delete(reg.Connections, label)
			sum.Removed = append(sum.Removed, "connection "+label)
		}
	}
	for name, m := range reg.Sources {
		if !slices.ContainsFunc(fc.Sources, func(s fileSource) bool { return s.Name == name }) {
			if rerr := a.b.RemoveSource(m.ID); rerr != nil && !errors.Is(rerr, broker.ErrNotFound) {
				err = rerr
				return sum, fmt.Errorf("source %q: %w", name, err)
			}
			delete(reg.Sources, name)
			sum.Removed = append(sum.Removed, "source "+name)
		}
	}
	a.testSources(tests, srcID)
	return sum, nil
}

// testSources tests the sources just added or changed, in parallel,
// and prints each failure's problem: the file is applied all the same
// (the server may simply be down right now).
func (a *applier) testSources(names []string, ids map[string]string) {
	var wg sync.WaitGroup
	lines := make([]string, len(names))
	for i, n := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), engines.SetupDeadline+5*time.Second)
			defer cancel()
			h, err := a.b.TestSource(ctx, ids[n])
			if err == nil && !h.OK {
				lines[i] = fmt.Sprintf("Source %q: the connection test failed: %s: %s\n", n, engines.ProblemOf(h.Code, h.Reason), h.Reason)
			}
		}()
	}
	wg.Wait()
	for _, l := range lines {
		fmt.Fprint(a.out, l)
	}
}

// sameEntry reports whether two sharing entries grant the same.
func sameEntry(a, b broker.SharingEntry) bool {
	if a.DatabaseLevel != b.DatabaseLevel || len(a.Tables) != len(b.Tables) {
		return false
	}
	for i := range a.Tables {
		if a.Tables[i] != b.Tables[i] {
			return false
		}
	}
	return true
}

func expandHome(p string) string {
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[2:])
		}
	}
	return p
}
