package broker

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"sync"

	"github.com/dbeast/dbeast/broker/internal/requests"
	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
	"github.com/dbeast/dbeast/verifier/dialect"
)

// RequestInfo is a request as the console shows it to the person
// (requests.RequestInfo).
type RequestInfo = requests.RequestInfo

// Errors of the request console API.
var (
	ErrNotPending = requests.ErrNotPending
	ErrBadScope   = requests.ErrBadScope
	ErrNoCatalog  = errors.New("broker: the source's tables cannot be listed now")
)

// SourceTable is one table the console offers when the person shares
// tables: listed from the source's catalog and proven eligible (Describe),
// so the person picks from what an agent could actually be given.
type SourceTable struct {
	Schema string `json:"schema"`
	Name   string `json:"name"`
	Kind   string `json:"kind"`
}

// maxSourceTables bounds the tables SourceTables proves (each proof is a
// catalog query); the person can still type a name not listed.
const maxSourceTables = 500

// SourceTables lists a source's eligible tables for the sharing page. It
// connects to the source with the broker's own configuration; an engine
// failure is ErrNoCatalog (static: engine text never reaches the page).
func (b *Broker) SourceTables(ctx context.Context, id string) ([]SourceTable, error) {
	src, _, ok := b.engineSource(id)
	if !ok {
		return nil, ErrNotFound
	}
	drv := b.cfg.Drivers[src.Kind]
	if drv == nil {
		return nil, ErrNoCatalog
	}
	eng, err := drv.Open(ctx, src)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoCatalog, err)
	}
	defer eng.Close()
	ts, err := eng.ListTables(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoCatalog, err)
	}
	out := []SourceTable{}
	for i, t := range ts {
		if i == maxSourceTables || ctx.Err() != nil {
			break
		}
		if _, err := eng.Describe(ctx, t.Table); err != nil {
			continue // not eligible (or gone): not offered
		}
		out = append(out, SourceTable{Schema: t.Table.Schema, Name: t.Table.Name, Kind: t.Kind})
	}
	return out, nil
}

// Requests lists stored requests newest first, optionally by status.
func (b *Broker) Requests(status Status) []RequestInfo {
	labels := map[string]string{}
	for _, c := range b.Connections() {
		labels[c.ID] = c.Label
	}
	out := b.reqs.List(status, labels)
	for i := range out {
		if out[i].OpKind == "full" && out[i].SourceID != "" {
			out[i].WritesTables = b.writeTargets(engines.Kind(out[i].SourceKind), out[i].SourceID, out[i].Statement)
		}
	}
	return out
}

// targets caches writeTargets' answers by kind, database and statement
// (each is a parse); it is emptied when full.
var targets struct {
	mu sync.Mutex
	m  map[[32]byte][]string
}

const maxTargets = 256

// writeTargets returns the quoted table a full SQL statement writes when
// it verifies as a single-table write, else nil.
func (b *Broker) writeTargets(kind engines.Kind, sourceID, stmt string) []string {
	db := b.databaseOf(sourceID)
	// The cache is process-wide and keyed by kind, so only a driver that
	// quotes for its engine may fill it: a broker without one (a test's
	// stand-in) quotes in the standard way, which is not MySQL's.
	if _, ok := b.cfg.Drivers[kind].(engines.IdentQuoter); !ok {
		return b.writeTargetsUncached(kind, db, stmt)
	}
	key := sha256.Sum256([]byte(string(kind) + "\x00" + db + "\x00" + stmt))
	targets.mu.Lock()
	t, ok := targets.m[key]
	targets.mu.Unlock()
	if ok {
		return t
	}
	t = b.writeTargetsUncached(kind, db, stmt)
	targets.mu.Lock()
	if targets.m == nil || len(targets.m) >= maxTargets {
		targets.m = map[[32]byte][]string{}
	}
	targets.m[key] = t
	targets.mu.Unlock()
	return t
}

// writeTargetsUncached is writeTargets without the cache: one parse.
func (b *Broker) writeTargetsUncached(kind engines.Kind, db, stmt string) []string {
	v, err := dialect.Verify(verifier.Input{Dialect: kind.Dialect(), SQL: stmt, Mode: verifier.ModeTableWrite, Database: db})
	if err != nil || v.Target == nil {
		return nil
	}
	return []string{b.quoteIdent(kind, v.Target.Schema) + "." + b.quoteIdent(kind, v.Target.Name)}
}

// Approve lets a pending request run with the scope the person picked:
// once (exactly this request) or a session grant of that scope.
func (b *Broker) Approve(id, scope string) (Status, error) { return b.reqs.Approve(id, scope) }

// Deny refuses a pending request.
func (b *Broker) Deny(id string) (Status, error) { return b.reqs.Deny(id) }
