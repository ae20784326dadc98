package sqlite

import (
	"container/list"
	"context"
	"slices"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
)

// A read handle keeps what the proof derived from the file's schema, so a
// repeated read skips reading sqlite_schema, table_list and table_xinfo
// again. Everything the proof reads (sqlite_schema, pragma_table_list,
// pragma_table_xinfo of main) is a function of the file's schema as this
// connection sees it, and that changes only with one of:
//
//   - the file: the handle reads one file for its whole life (Check,
//     stamp.go), and the cache lives and dies with the handle;
//   - a schema change: PRAGMA schema_version moves;
//   - a change committed by another connection, such as an edit of
//     sqlite_schema under writable_schema that leaves schema_version
//     alone: PRAGMA data_version moves. The read handle itself never
//     writes (query_only and the authorizer).
//
// Either move closes the handle and opens a new one (Engine.beginRead),
// so in practice the cache lives only while both versions stay put; the
// keys below still carry them, so a cache can never answer across one.
//
// So entries are keyed by both versions, read at the start of the read's
// own transaction, and by the table exactly as the verdict names it;
// entries of older versions are dropped as soon as a read sees newer
// ones. Only proofs that succeeded are kept; a refusal ends the
// operation and with it the handle (Engine.Close). Column obligations,
// functions and pins depend on the request and are checked on every read.

// proofCacheSize bounds the tables one handle keeps proofs of.
const proofCacheSize = 64

// versions are PRAGMA schema_version and data_version, read together at
// the start of a read transaction.
type versions struct {
	schema, data int64
}

// proofKey is one cached proof: the versions it was proven at and the
// table as the verdict spelled it.
type proofKey struct {
	ver          versions
	schema, name string
}

// proofCache is one handle's proofs, least recently used first out. It is
// used only by the engine holding the handle, so it has no lock. A nil
// *proofCache caches nothing (write handles).
type proofCache struct {
	ver     versions
	sets    *schemaSets // the views and triggers of main at ver, once read
	entries map[proofKey]*list.Element
	order   *list.List // of *proofEntry, most recent first
}

type proofEntry struct {
	key   proofKey
	proof *tableProof
}

// schemaSets are the lower-case names of main's views and triggers. The
// maps are shared with every policy built from them and never written
// after they are made.
type schemaSets struct {
	views, triggers map[string]bool
}

func newProofCache() *proofCache {
	return &proofCache{entries: map[proofKey]*list.Element{}, order: list.New()}
}

// at drops every entry unless ver is the versions they were made at.
func (c *proofCache) at(ver versions) {
	if c.ver == ver {
		return
	}
	c.ver, c.sets = ver, nil
	clear(c.entries)
	c.order.Init()
}

// schemaSets returns main's views and triggers at ver.
func (c *proofCache) schemaSets(ctx context.Context, q querier, ver versions) (*schemaSets, error) {
	if c != nil {
		c.at(ver)
		if c.sets != nil {
			return c.sets, nil
		}
	}
	entries, err := readSchema(ctx, q)
	if err != nil {
		return nil, err
	}
	s := &schemaSets{views: map[string]bool{}, triggers: map[string]bool{}}
	for _, en := range entries {
		switch en.typ {
		case "view":
			s.views[fold(en.name)] = true
		case "trigger":
			s.triggers[fold(en.name)] = true
		}
	}
	if c != nil {
		c.sets = s
	}
	return s, nil
}

// prove returns t's proof at ver, from the cache or proven now. The
// returned proof is shared with the cache: callers must not change it
// (proofOf copies what leaves the engine).
func (c *proofCache) prove(ctx context.Context, q querier, t verifier.Table, ver versions) (*tableProof, error) {
	if c == nil {
		return prove(ctx, q, t, ver.schema)
	}
	c.at(ver)
	key := proofKey{ver: ver, schema: t.Schema, name: t.Name}
	if el, ok := c.entries[key]; ok {
		c.order.MoveToFront(el)
		return el.Value.(*proofEntry).proof, nil
	}
	tp, err := prove(ctx, q, t, ver.schema)
	if err != nil {
		return nil, err
	}
	c.entries[key] = c.order.PushFront(&proofEntry{key: key, proof: tp})
	if c.order.Len() > proofCacheSize {
		old := c.order.Remove(c.order.Back()).(*proofEntry)
		delete(c.entries, old.key)
	}
	return tp, nil
}

// proofOf is tp's proof with a column list of its own, for the caller.
func proofOf(tp *tableProof) engines.Proof {
	p := tp.proof
	p.Columns = slices.Clone(p.Columns)
	return p
}
