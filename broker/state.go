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
// the (possibly prompting) secret store is read only when needed. It is
// written once, by the first save, and never again: the blob in the store
// is the one truth, so no save can half-succeed by updating the blob and
// failing on config.json (the Secret Service then held a change the
// broker had reported failed, in force after a restart), and no crash
// between the two can bring back an older state.
type configFile struct {
	MCPStateSaved bool `json:"mcp_state_saved"`
}

var (
	errStateMissing = errors.New("broker: config.json says MCP state was saved but the store has none")
	errStateFormat  = errors.New("broker: the saved MCP state is not readable")
)

// configName is config.json's name in the state directory.
const configName = "config.json"

// loadState reads config.json and, when it says so, the saved state.
// configSaved reports whether config.json says the state was saved, so
// that saves write it only when that changes (stateSaver).
func loadState(dir string, st store.Store) (s *savedState, configSaved bool, err error) {
	fresh := &savedState{Version: stateVersion}
	raw, err := os.ReadFile(filepath.Join(dir, configName))
	if errors.Is(err, fs.ErrNotExist) {
		return fresh, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("broker: read config.json: %w", err)
	}
	var cf configFile
	if err := json.Unmarshal(raw, &cf); err != nil {
		return nil, false, fmt.Errorf("broker: parse config.json: %w", errStateFormat)
	}
	if !cf.MCPStateSaved {
		return fresh, false, nil
	}
	blob, err := st.Load()
	if errors.Is(err, store.ErrNotFound) {
		return nil, false, errStateMissing
	}
	if err != nil {
		return nil, false, err
	}
	var loaded savedState
	if err := json.Unmarshal(blob, &loaded); err != nil || loaded.Version != stateVersion {
		return nil, false, errStateFormat
	}
	for _, c := range loaded.Connections {
		if b, err := hex.DecodeString(c.TokenHash); err != nil || len(b) != len(tokenHash{}) {
			return nil, false, errStateFormat
		}
	}
	return &loaded, true, nil
}

// writeConfigFile replaces config.json atomically (a synced 0600 file in
// the state directory, renamed, the directory synced).
func writeConfigFile(dir string, cf configFile) error {
	data, _ := json.Marshal(cf)
	if err := store.WriteFileAtomic(dir, configName, append(data, '\n')); err != nil {
		return fmt.Errorf("broker: write config.json: %w", err)
	}
	return nil
}
