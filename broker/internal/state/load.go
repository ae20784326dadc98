package state

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/dbeast/dbeast/broker/store"
)

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
// that saves write it only when that changes (InForce.write).
func loadState(dir string, st store.Store) (s *Saved, configSaved bool, err error) {
	fresh := &Saved{Version: Version}
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
	var loaded Saved
	if err := json.Unmarshal(blob, &loaded); err != nil || loaded.Version != Version {
		return nil, false, errStateFormat
	}
	for _, c := range loaded.Connections {
		if b, err := hex.DecodeString(c.TokenHash); err != nil || len(b) != sha256.Size {
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
