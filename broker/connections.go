package broker

import (
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"time"
)

// MaxConnections is the contract's limit of agent connections.
const MaxConnections = 16

// Connection is an agent connection as the console lists it: never the
// token, which is shown once at creation and then only its hash is kept.
type Connection struct {
	ID        string    `json:"connection_id"`
	Label     string    `json:"label"`
	CreatedAt time.Time `json:"created_at"`
}

// NewConnection is the one-time answer to creating a connection: the token
// and a ready-to-copy client configuration holding it.
type NewConnection struct {
	ID           string          `json:"connection_id"`
	Token        string          `json:"token"`
	ClientConfig json.RawMessage `json:"client_config"`
}

// CreateConnection makes a new agent connection with a fresh token.
func (b *Broker) CreateConnection(label string) (NewConnection, error) {
	label = strings.TrimSpace(label)
	if !validLabel(label) {
		return NewConnection{}, ErrBadAlias
	}
	tok := newToken(connTokenPrefix)
	h := hashToken(tok)
	c := &savedConnection{ID: newID("conn_"), Label: label, TokenHash: hex.EncodeToString(h[:]), CreatedAt: b.cfg.now().UTC()}
	b.mu.Lock()
	// A widening: the token works only once the connection is saved, and
	// is never shown when it is not.
	err := b.state.UpdateLocked(func(s *savedState) error {
		if len(s.Connections) >= MaxConnections {
			return ErrTooMany
		}
		s.Connections = append(s.Connections, c)
		return nil
	})
	if err != nil {
		b.mu.Unlock()
		return NewConnection{}, err
	}
	b.activity.Add(ActivityEntry{Time: b.cfg.now(), Event: "connection_created"})
	b.mu.Unlock()
	b.log.Info("connection created", slog.String("connection_id", c.ID))
	// MCPURL takes srvMu, which comes before mu in the lock order: never
	// call it with mu held (StartServer holds srvMu and then takes mu).
	return NewConnection{ID: c.ID, Token: tok, ClientConfig: ClientConfig(b.MCPURL(), tok)}, nil
}

// ClientConfig is the common client configuration for url and token.
func ClientConfig(url, token string) json.RawMessage {
	type server struct {
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
	}
	cfg := map[string]map[string]server{"mcpServers": {"dbeast": {
		URL: url, Headers: map[string]string{"Authorization": "Bearer " + token},
	}}}
	out, _ := json.Marshal(cfg)
	return out
}

// Connections lists the agent connections.
func (b *Broker) Connections() []Connection {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]Connection, 0, len(b.state.Connections))
	for _, c := range b.state.Connections {
		out = append(out, Connection{ID: c.ID, Label: c.Label, CreatedAt: c.CreatedAt})
	}
	return out
}

// RevokeConnection removes a connection for good: its token stops working
// at once, its sessions end and its sharing entries are removed. When the
// revocation cannot be saved it is in force all the same (fail closed)
// and saved once the store works again (state.InForce.UpdateLocked).
func (b *Broker) RevokeConnection(id string) error {
	b.mu.Lock()
	var sources []string
	err := b.state.UpdateLocked(func(s *savedState) error {
		n := len(s.Connections)
		s.Connections = slices.DeleteFunc(s.Connections, func(c *savedConnection) bool { return c.ID == id })
		if len(s.Connections) == n {
			return ErrNotFound
		}
		s.Sharing = slices.DeleteFunc(s.Sharing, func(e *SharingEntry) bool {
			if e.ConnectionID == id {
				sources = append(sources, e.SourceID)
			}
			return e.ConnectionID == id
		})
		return nil
	})
	if err != nil {
		b.mu.Unlock()
		return err
	}
	b.activity.Add(ActivityEntry{Time: b.cfg.now(), Event: "connection_revoked"})
	b.mu.Unlock()
	b.limits.Forget(id)
	b.log.Info("connection revoked", slog.String("connection_id", id))
	b.endSessions(func(s *Session) bool { return s.ConnectionID == id }, EndConnectionRevoked)
	for _, src := range dedupe(sources) {
		b.notifySharing(SharingChange{SourceID: src, Connections: []string{id}, Narrowed: true})
	}
	return nil
}

// authenticate returns the connection id for a bearer token, comparing
// hashes in constant time against every connection.
func (b *Broker) authenticate(token string) (string, bool) {
	if !wellFormed(token, connTokenPrefix) {
		return "", false
	}
	h := hashToken(token)
	b.mu.Lock()
	defer b.mu.Unlock()
	found := ""
	for _, c := range b.state.Connections {
		raw, _ := hex.DecodeString(c.TokenHash)
		var ch tokenHash
		copy(ch[:], raw)
		if ch.equal(h) {
			found = c.ID
		}
	}
	return found, found != ""
}

// connectionExistsLocked reports whether id is a live connection. Needs
// Broker.mu.
func (b *Broker) connectionExistsLocked(id string) bool { return b.state.ConnectionExists(id) }
