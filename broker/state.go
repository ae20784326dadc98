package broker

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/dbeast/dbeast/broker/store"
	"github.com/dbeast/dbeast/engines"
)

// savedState is everything the broker keeps across restarts, saved as one
// blob through the Store. Sessions, grants and requests are never in it.
type savedState struct {
	Version     int                `json:"version"`
	Sources     []*savedSource     `json:"sources"`
	Connections []*savedConnection `json:"connections"`
	Sharing     []*SharingEntry    `json:"sharing"`
	// SourceCounter numbers default aliases ("SQLite source 3"); it only
	// grows, so an alias is never reused for a different source.
	SourceCounter int `json:"source_counter"`
	// Documents are the open documents: path, alias and sharing, never
	// content; each is snapshotted afresh when the broker starts.
	Documents []*savedDocument `json:"documents,omitempty"`
	// DocumentCounter numbers default document aliases; it only grows.
	DocumentCounter int `json:"document_counter,omitempty"`
}

type savedDocument struct {
	ID         string   `json:"id"`
	Alias      string   `json:"alias"`
	Path       string   `json:"path"`
	SharedWith []string `json:"shared_with"`
}

const stateVersion = 1

type savedSource struct {
	ID         string       `json:"id"`
	Kind       engines.Kind `json:"kind"`
	Alias      string       `json:"alias"`
	DSN        string       `json:"dsn,omitempty"`
	Path       string       `json:"path,omitempty"`
	ReadOnly   bool         `json:"read_only"`
	Generation uint64       `json:"generation"`
	// Health is the last connection test of this generation; in memory
	// only, so a restart or a new configuration shows "not tested".
	Health *SourceHealth `json:"-"`
}

type savedConnection struct {
	ID        string    `json:"id"`
	Label     string    `json:"label"`
	TokenHash string    `json:"token_hash"`
	CreatedAt time.Time `json:"created_at"`
}

// configFile is config.json: only whether saved MCP state exists, so that
// the (possibly prompting) secret store is read only when needed.
type configFile struct {
	MCPStateSaved bool `json:"mcp_state_saved"`
}

var (
	errStateMissing = errors.New("broker: config.json says MCP state was saved but the store has none")
	errStateFormat  = errors.New("broker: the saved MCP state is not readable")
)

// loadState reads config.json and, when it says so, the saved state.
func loadState(dir string, st store.Store) (*savedState, error) {
	fresh := &savedState{Version: stateVersion}
	raw, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return fresh, nil
	}
	if err != nil {
		return nil, fmt.Errorf("broker: read config.json: %w", err)
	}
	var cf configFile
	if err := json.Unmarshal(raw, &cf); err != nil {
		return nil, fmt.Errorf("broker: parse config.json: %w", errStateFormat)
	}
	if !cf.MCPStateSaved {
		return fresh, nil
	}
	blob, err := st.Load()
	if errors.Is(err, store.ErrNotFound) {
		return nil, errStateMissing
	}
	if err != nil {
		return nil, err
	}
	var s savedState
	if err := json.Unmarshal(blob, &s); err != nil || s.Version != stateVersion {
		return nil, errStateFormat
	}
	for _, c := range s.Connections {
		if b, err := hex.DecodeString(c.TokenHash); err != nil || len(b) != len(tokenHash{}) {
			return nil, errStateFormat
		}
	}
	return &s, nil
}

// saveState writes the state through the store, then config.json.
func saveState(dir string, st store.Store, s *savedState) error {
	blob, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("broker: encode state: %w", err)
	}
	if err := st.Save(blob); err != nil {
		return err
	}
	return writeConfigFile(dir, configFile{MCPStateSaved: true})
}

func writeConfigFile(dir string, cf configFile) error {
	data, _ := json.Marshal(cf)
	tmp, err := os.CreateTemp(dir, ".config-*.tmp")
	if err != nil {
		return fmt.Errorf("broker: write config.json: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("broker: write config.json: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("broker: write config.json: %w", err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, "config.json")); err != nil {
		return fmt.Errorf("broker: write config.json: %w", err)
	}
	return nil
}
