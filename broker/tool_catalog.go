package broker

import (
	"context"
	"encoding/json"

	"github.com/dbeast/dbeast/broker/internal/requests"
	"github.com/dbeast/dbeast/engines"
)

type listCatalogIn struct {
	SessionToken SessionToken `json:"session_token"`
}

// CatalogSource is a shared source as an agent sees it: never a host,
// port, user, password, path or DSN.
type CatalogSource struct {
	SourceID     string       `json:"source_id"`
	Alias        string       `json:"alias"`
	Kind         engines.Kind `json:"kind"`
	ReadOnly     bool         `json:"read_only"`
	Operations   []string     `json:"operations" jsonschema:"the operation kinds (tool names) available on this source"`
	SharedAccess Level        `json:"shared_access" jsonschema:"standing database-level access: ask (every access needs approval), read or read_write; informational, not a request argument"`
	SharedTables []TableShare `json:"shared_tables" jsonschema:"standing per-table access; informational, not a request argument"`
	// SharedTablesCut is set when SharedTables lists only some of the
	// shared tables, to keep the answer within the response budget.
	SharedTablesCut bool `json:"shared_tables_truncated,omitempty" jsonschema:"true when shared_tables lists only some of the shared tables, to keep the answer within the 1 MiB response limit; the others keep their standing access"`
}

// CatalogDocument is an open document as an agent sees it
// (requests.CatalogDocument): never its path.
type CatalogDocument = requests.CatalogDocument

type listCatalogOut struct {
	Sources   []CatalogSource   `json:"sources"`
	Documents []CatalogDocument `json:"documents"`
}

func (b *Broker) toolListCatalog(_ context.Context, c Call, in listCatalogIn) (*listCatalogOut, error) {
	if _, terr := b.session(c.ConnectionID, string(in.SessionToken)); terr != nil {
		return nil, terr
	}
	out := &listCatalogOut{Sources: []CatalogSource{}, Documents: []CatalogDocument{}}
	out.Documents = b.reqs.CatalogDocuments(c.ConnectionID)
	b.mu.Lock()
	for _, s := range b.state.Sources {
		acc := b.effectiveAccessLocked(c.ConnectionID, s.ID)
		if !acc.Visible() {
			continue
		}
		opNames := catalogOps(s.ReadOnly)
		// A source shared only through tables is visible, and access to
		// anything else asks the person: that is the ask level.
		level := acc.DatabaseLevel
		if level == LevelNone {
			level = LevelAsk
		}
		out.Sources = append(out.Sources, CatalogSource{
			SourceID: s.ID, Alias: s.Alias, Kind: s.Kind, ReadOnly: s.ReadOnly,
			Operations: opNames, SharedAccess: level, SharedTables: acc.Tables,
		})
	}
	b.mu.Unlock()
	fitCatalog(out) // on fresh copies, outside the lock: it can take a while
	return out, nil
}

// fitCatalog keeps the catalog within the MCP response budget: up to 128
// sources may each share over a thousand tables, more than 1 MiB of
// names. It lists the largest per-source number of tables that fits and
// marks every source whose list it cut. The size of each choice is
// computed from the entries' own sizes (each counted twice, for the
// structured answer and its escaped text copy), so the catalog is encoded
// only to check the result.
func fitCatalog(out *listCatalogOut) {
	total := requests.MarshalSize(out)
	if total <= MaxResponseBytes {
		return
	}
	full := make([][]TableShare, len(out.Sources))
	prefix := make([][]int, len(out.Sources)) // prefix[i][n]: size of source i's first n tables
	fixed := total
	longest := 0
	for i, s := range out.Sources {
		full[i] = s.SharedTables
		p := make([]int, len(s.SharedTables)+1)
		for j, t := range s.SharedTables {
			raw, _ := json.Marshal(t)
			esc, _ := json.Marshal(string(raw))
			// Its JSON and a comma, and the same in the text copy, where
			// its escaped form has no quotes of its own around it.
			p[j+1] = p[j] + len(raw) + 1 + len(esc) - 2 + 1
		}
		prefix[i] = p
		fixed -= p[len(p)-1]
		longest = max(longest, len(s.SharedTables))
	}
	// The cut lists' flags, in both copies.
	fixed += 2 * len(out.Sources) * len(`,"shared_tables_truncated":true`)
	size := func(n int) int {
		c := fixed
		for _, p := range prefix {
			c += p[min(n, len(p)-1)]
		}
		return c
	}
	limit := func(n int) {
		for i := range out.Sources {
			s := &out.Sources[i]
			s.SharedTables, s.SharedTablesCut = full[i], false
			if len(full[i]) > n {
				s.SharedTables, s.SharedTablesCut = full[i][:n], true
			}
		}
	}
	lo := requests.LargestFitting(max(longest-1, 0), func(n int) bool { return size(n) <= MaxResponseBytes })
	limit(lo)
	// The estimate is an upper bound up to escaping details; check it.
	for lo > 0 && requests.MarshalSize(out) > MaxResponseBytes {
		lo = lo * 9 / 10
		limit(lo)
	}
}
