package state

import (
	"sort"
	"strings"
)

// Access is the effective standing access of one connection on one
// source: the union of its own entry and the All Agents entry, the higher
// level winning for the database and for each table.
type Access struct {
	DatabaseLevel Level        `json:"shared_access"`
	Tables        []TableShare `json:"shared_tables"`
}

// Visible reports whether the source appears in the connection's catalog.
func (a Access) Visible() bool { return a.DatabaseLevel.Rank() > 0 || len(a.Tables) > 0 }

// Narrows reports whether replacing old by new takes anything away: the
// entry removed, its database level lowered, a table unshared or lowered.
// It compares entries, not unions, because the contract treats removing a
// connection's own entry as narrowing even when an All Agents entry still
// gives the same access.
func Narrows(old, new *SharingEntry) bool {
	if old == nil {
		return false
	}
	if new == nil {
		return true
	}
	if new.DatabaseLevel.Rank() < old.DatabaseLevel.Rank() {
		return true
	}
	for _, ot := range old.Tables {
		found := false
		for _, nt := range new.Tables {
			if nt.Schema == ot.Schema && nt.Name == ot.Name {
				found = nt.Access.Rank() >= ot.Access.Rank()
			}
		}
		if !found {
			return true
		}
	}
	return false
}

// EffectiveAccess is the union of the connection's entry and the All
// Agents entry for the source, the higher level winning for the database
// and for each table; tables sorted by schema and name.
func (s *Saved) EffectiveAccess(connID, sourceID string) Access {
	acc := Access{DatabaseLevel: LevelNone}
	tables := map[[2]string]TableAccess{}
	for _, e := range s.Sharing {
		if e.SourceID != sourceID || (e.ConnectionID != connID && e.ConnectionID != AllConnections) {
			continue
		}
		if e.DatabaseLevel.Rank() > acc.DatabaseLevel.Rank() {
			acc.DatabaseLevel = e.DatabaseLevel
		}
		for _, t := range e.Tables {
			k := [2]string{t.Schema, t.Name}
			if t.Access.Rank() > tables[k].Rank() {
				tables[k] = t.Access
			}
		}
	}
	acc.Tables = []TableShare{}
	for k, a := range tables {
		acc.Tables = append(acc.Tables, TableShare{Schema: k[0], Name: k[1], Access: a})
	}
	sort.Slice(acc.Tables, func(i, j int) bool {
		return strings.Compare(acc.Tables[i].Schema+"\x00"+acc.Tables[i].Name, acc.Tables[j].Schema+"\x00"+acc.Tables[j].Name) < 0
	})
	return acc
}

// EntryConnections lists the connections an entry applies to: its own,
// or every connection for an All Agents entry.
func (s *Saved) EntryConnections(e *SharingEntry) []string {
	if e.ConnectionID != AllConnections {
		return []string{e.ConnectionID}
	}
	out := make([]string, 0, len(s.Connections))
	for _, c := range s.Connections {
		out = append(out, c.ID)
	}
	return out
}

// SourceIndex is the index of source id in Sources; -1 when there is none.
func (s *Saved) SourceIndex(id string) int {
	for i, x := range s.Sources {
		if x.ID == id {
			return i
		}
	}
	return -1
}

// ConnectionLabel is the person's label of a connection; empty for an
// unknown (revoked) one.
func (s *Saved) ConnectionLabel(id string) string {
	if c := s.connection(id); c != nil {
		return c.Label
	}
	return ""
}

// ConnectionExists reports whether id is a live connection.
func (s *Saved) ConnectionExists(id string) bool { return s.connection(id) != nil }

func (s *Saved) connection(id string) *Connection {
	for _, c := range s.Connections {
		if c.ID == id {
			return c
		}
	}
	return nil
}
