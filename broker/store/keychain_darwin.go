//go:build darwin && cgo

package store

import (
	"errors"
	"fmt"

	"github.com/keybase/go-keychain"
)

// keychainAccount names the one item the broker keeps under Service.
const keychainAccount = "state"

// Keychain is the macOS Keychain backend: one generic-password item with
// service Service, readable only on this device while it is unlocked and
// never synchronized. The zero value is ready to use.
type Keychain struct{}

// NewKeychain returns the Keychain backend.
func NewKeychain() *Keychain { return &Keychain{} }

// Load returns the item's data, or ErrNotFound.
func (*Keychain) Load() ([]byte, error) {
	data, err := keychain.GetGenericPassword(Service, keychainAccount, "", "")
	if err != nil {
		return nil, fmt.Errorf("store: keychain read: %w", err)
	}
	if data == nil {
		return nil, ErrNotFound
	}
	return data, nil
}

// Save adds the item, or updates it when it exists.
func (*Keychain) Save(data []byte) error {
	item := keychain.NewGenericPassword(Service, keychainAccount, "dbeast MCP state", data, "")
	item.SetSynchronizable(keychain.SynchronizableNo)
	item.SetAccessible(keychain.AccessibleWhenUnlockedThisDeviceOnly)
	err := keychain.AddItem(item)
	if errors.Is(err, keychain.ErrorDuplicateItem) {
		query := keychain.NewItem()
		query.SetSecClass(keychain.SecClassGenericPassword)
		query.SetService(Service)
		query.SetAccount(keychainAccount)
		update := keychain.NewItem()
		update.SetData(data)
		err = keychain.UpdateItem(query, update)
	}
	if err != nil {
		return fmt.Errorf("store: keychain write: %w", err)
	}
	return nil
}

// Delete removes the item.
func (*Keychain) Delete() error {
	err := keychain.DeleteGenericPasswordItem(Service, keychainAccount)
	if err != nil && !errors.Is(err, keychain.ErrorItemNotFound) {
		return fmt.Errorf("store: keychain delete: %w", err)
	}
	return nil
}

var _ Store = (*Keychain)(nil)
