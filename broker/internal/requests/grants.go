package requests

import "github.com/dbeast/dbeast/verifier"

// Approval scopes a person may pick in the console.
const (
	ScopeOnce  = "once"
	ScopeTable = "table"
	// ScopeTables is, for a read of several tables, each table's session
	// read grant (ScopeTable, once per table) with this request approved
	// once: the tables stay readable one at a time without a prompt.
	ScopeTables   = "tables"
	ScopeSource   = "source"
	ScopeFullSQL  = "full_sql"
	ScopeDocument = "document"
)

// grants are one session's session-long grants, kept in memory only.
// Each scope is replaced when granted again and removed whole on revoke.
type grants struct {
	source map[string]uint64                 // source id → source generation
	full   map[string]uint64                 // source id → source generation
	table  map[string]map[string]*tableGrant // source id → grantKey → grant
	doc    map[string]uint64                 // file id → snapshot version
}

// tableGrant is a table read grant, pinned to the identity the first
// proof under it found; an empty pin is set by the next proof.
type tableGrant struct {
	generation uint64
	pin        string
}

func newGrants() grants {
	return grants{source: map[string]uint64{}, full: map[string]uint64{}, table: map[string]map[string]*tableGrant{}, doc: map[string]uint64{}}
}

// dropSource removes every grant on a source.
func (g grants) dropSource(id string) {
	delete(g.source, id)
	delete(g.full, id)
	delete(g.table, id)
}

// coverage is how a request is covered without a prompt.
type coverage struct {
	ok       bool
	standing bool              // by standing access (logged as shared access)
	pins     map[string]string // table grant pins to check
}

// coverLocked decides whether r is covered, right now, by a session grant
// or by standing access. One-time approvals are not considered here.
// Needs Machine.mu, and never Broker.mu: it may take Broker.mu itself.
func (rq *Machine) coverLocked(r *request) coverage {
	s := rq.sessions[r.sessionID]
	if s == nil {
		return coverage{}
	}
	g := s.grants
	if r.fileID != "" {
		v, ok := g.doc[r.fileID]
		return coverage{ok: ok && v == r.generation}
	}
	acc := rq.host.EffectiveAccess(r.connID, r.sourceID)
	if !acc.Visible() {
		return coverage{}
	}
	srcGrant := g.source[r.sourceID] == r.generation && g.source[r.sourceID] != 0
	dbRead := acc.DatabaseLevel.Rank() >= LevelRead.Rank()
	standingTable := func(t verifier.Table, need TableAccess) bool {
		for _, ts := range acc.Tables {
			if ts.Schema == t.Schema && ts.Name == t.Name && ts.Access.Rank() >= need.Rank() {
				return true
			}
		}
		return false
	}
	tableGrantFor := func(t verifier.Table) *tableGrant {
		tg := g.table[r.sourceID][grantKey(t)]
		if tg == nil || tg.generation != r.generation {
			return nil
		}
		return tg
	}
	switch r.operation.Info().Scopes {
	case scopesSource:
		if dbRead {
			return coverage{ok: true, standing: true}
		}
		return coverage{ok: srcGrant}
	case scopesFullSQL:
		if r.readOnly {
			return coverage{}
		}
		if r.verdict != nil && r.verdict.Target != nil && standingTable(*r.verdict.Target, TableReadWrite) {
			return coverage{ok: true, standing: true}
		}
		if acc.DatabaseLevel == LevelReadWrite {
			return coverage{ok: true, standing: true}
		}
		full := g.full[r.sourceID]
		return coverage{ok: full != 0 && full == r.generation}
	}
	// scopesTables: describe_table and reads.
	if dbRead {
		return coverage{ok: true, standing: true}
	}
	if srcGrant {
		return coverage{ok: true}
	}
	if len(r.tables) != 1 {
		return coverage{}
	}
	t := r.tables[0]
	if standingTable(t, TableRead) {
		return coverage{ok: true, standing: true}
	}
	if tg := tableGrantFor(t); tg != nil {
		c := coverage{ok: true}
		if tg.pin != "" {
			c.pins = map[string]string{t.String(): tg.pin}
		}
		return c
	}
	return coverage{}
}

// grantLocked records a session grant for the scope the person picked.
// Needs Machine.mu, and never Broker.mu: it may take Broker.mu itself.
func (rq *Machine) grantLocked(r *request, scope string) {
	s := rq.sessionLocked(r.sessionID)
	switch scope {
	case ScopeSource:
		s.grants.source[r.sourceID] = r.generation
	case ScopeFullSQL:
		s.grants.full[r.sourceID] = r.generation
	case ScopeTable:
		m := s.grants.table[r.sourceID]
		if m == nil {
			m = map[string]*tableGrant{}
			s.grants.table[r.sourceID] = m
		}
		m[grantKey(r.tables[0])] = &tableGrant{generation: r.generation}
	case ScopeTables:
		m := s.grants.table[r.sourceID]
		if m == nil {
			m = map[string]*tableGrant{}
			s.grants.table[r.sourceID] = m
		}
		for _, t := range r.tables {
			m[grantKey(t)] = &tableGrant{generation: r.generation}
		}
	case ScopeDocument:
		s.grants.doc[r.fileID] = r.generation
	}
}

// pinLocked records proven identities on the session's unpinned table
// grants of the tables a request relied on.
// Needs Machine.mu.
func (rq *Machine) pinLocked(r *request, identities map[string]string) {
	s := rq.sessions[r.sessionID]
	if s == nil {
		return
	}
	seen := map[string]int{}
	for _, t := range r.tables {
		seen[t.String()]++
	}
	for _, t := range r.tables {
		id := identities[t.String()]
		if seen[t.String()] != 1 { // two tables print alike: ambiguous
			continue
		}
		if tg := s.grants.table[r.sourceID][grantKey(t)]; tg != nil && tg.pin == "" && id != "" {
			tg.pin = id
		}
	}
}

// grantKey keys a table grant by schema and name. Table.String joins them
// with a dot, so schema "s", table "a.b" and schema "s.a", table "b" would
// share a key and one grant would cover both.
func grantKey(t verifier.Table) string { return t.Schema + "\x00" + t.Name }

// dropTableGrantLocked removes table grants whose identity changed.
// Needs Machine.mu.
func (rq *Machine) dropTableGrantsLocked(r *request) {
	if s := rq.sessions[r.sessionID]; s != nil {
		for _, t := range r.tables {
			delete(s.grants.table[r.sourceID], grantKey(t))
		}
	}
}

// scopesFor lists the scopes the person may pick for r, "once" first.
func scopesFor(r *request) []string {
	switch r.operation.Info().Scopes {
	case scopesDocument:
		return []string{ScopeOnce, ScopeDocument}
	case scopesFullSQL:
		if r.readOnly {
			return []string{ScopeOnce}
		}
		return []string{ScopeOnce, ScopeFullSQL}
	case scopesSource:
		return []string{ScopeOnce, ScopeSource}
	}
	if len(r.tables) == 1 {
		return []string{ScopeOnce, ScopeTable, ScopeSource}
	}
	if len(r.tables) > 1 {
		return []string{ScopeOnce, ScopeTables, ScopeSource}
	}
	return []string{ScopeOnce, ScopeSource}
}
