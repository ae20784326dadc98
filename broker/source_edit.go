package broker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/dbeast/dbeast/broker/internal/state"
	"github.com/dbeast/dbeast/engines"
)

// SourceEdit is what the console sends to change a source. A nil field
// keeps its value. DSN, Path and Password are write-only: no listing ever
// shows them back.
type SourceEdit struct {
	Alias *string `json:"alias,omitempty"`
	// DSN replaces a PostgreSQL or MySQL source's connection string.
	DSN *string `json:"dsn,omitempty"`
	// Path replaces a SQLite source's file.
	Path *string `json:"path,omitempty"`
	// Password replaces only the password inside a PostgreSQL or MySQL
	// DSN (the new DSN when DSN is given too).
	Password *string `json:"password,omitempty"`
	ReadOnly *bool   `json:"read_only,omitempty"`
}

// ErrBadEdit is the static error for an edit that names nothing to change
// or a setting the source's kind does not have.
var ErrBadEdit = errors.New("broker: an edit changes alias, read_only, and dsn or password (postgres, mysql) or path (sqlite)")

// SourceHealth is the outcome of the last connection test of a source's
// current configuration (kept with the saved source, in memory only).
type SourceHealth = state.SourceHealth

// UpdateSource applies an edit. A change of where or as whom the source
// connects (DSN, path, password) or of its read-only flag is a new
// configuration: the generation grows, and every session grant on the
// source and every pending, running or completed request made for the
// old generation is revoked (revokeLocked: a running Full SQL statement
// ends as outcome_unknown, a completed one as completed_result_revoked).
// An alias-only edit keeps grants and requests. An edit that sets a value
// equal to the current one changes nothing.
//
// The read-only flag counts as configuration both ways: switching it on
// takes writes away, and switching it off must not let a grant the person
// gave for a read-only source (where Full SQL was never offered) cover
// writes.
func (b *Broker) UpdateSource(id string, ed SourceEdit) (Source, error) {
	if ed.Alias == nil && ed.DSN == nil && ed.Path == nil && ed.Password == nil && ed.ReadOnly == nil {
		return Source{}, ErrBadEdit
	}
	var alias string
	if ed.Alias != nil {
		alias = strings.TrimSpace(*ed.Alias)
		if alias == "" || !validLabel(alias) {
			return Source{}, ErrBadAlias
		}
	}

	// reqs.mu first (the documented lock order): no request can start or
	// hand over a result between the new generation and its revocations.
	b.reqs.Lock()
	defer b.reqs.Unlock()
	b.mu.Lock()
	i := b.sourceIndexLocked(id)
	if i < 0 {
		b.mu.Unlock()
		return Source{}, ErrNotFound
	}
	cur := b.state.Sources[i]
	next := *cur
	if err := applyConfigEdit(&next, ed, b.cfg.Drivers[cur.Kind]); err != nil {
		b.mu.Unlock()
		return Source{}, err
	}
	if next.DSN != cur.DSN || next.Path != cur.Path || next.ReadOnly != cur.ReadOnly {
		if err := b.validateSource(next); err != nil {
			b.mu.Unlock()
			return Source{}, err
		}
		next.Generation++
		next.Health = nil
	}
	if ed.Alias != nil {
		next.Alias = alias
	}
	// A new configuration or alias is in force once saved. When the save
	// fails only switching read-only on is in force (state.InForce.UpdateLocked); what
	// is in force decides below what is revoked.
	saveErr := b.state.UpdateLocked(func(s *savedState) error {
		s.Sources[i] = &next
		return nil
	})
	now := b.state.Sources[b.sourceIndexLocked(id)]
	if saveErr != nil && now == cur {
		b.mu.Unlock()
		return Source{}, saveErr // nothing changed
	}
	reconfigured := now.Generation != cur.Generation
	ev := "source_renamed"
	if reconfigured {
		ev = "source_reconfigured"
	}
	b.activity.Add(ActivityEntry{Time: b.cfg.now(), Alias: now.Alias, Event: ev})
	out := publicSource(now)
	b.mu.Unlock()

	if reconfigured {
		b.reqs.SourceReconfiguredLocked(id, now.Generation)
	}
	return out, saveErr
}

// applyConfigEdit applies the DSN, path, password and read-only parts of
// an edit to s, refusing settings the kind does not have; drv, the
// source kind's driver (nil when none is configured), sets a password.
func applyConfigEdit(s *savedSource, ed SourceEdit, drv engines.Driver) error {
	if s.Kind == engines.SQLite {
		if ed.DSN != nil || ed.Password != nil || (ed.Path != nil && *ed.Path == "") {
			return ErrBadEdit
		}
		if ed.Path != nil {
			s.Path = *ed.Path
		}
	} else {
		if ed.Path != nil || (ed.DSN != nil && *ed.DSN == "") {
			return ErrBadEdit
		}
		if ed.DSN != nil {
			s.DSN = *ed.DSN
		}
		if ed.Password != nil {
			dsn, err := withPassword(drv, s.DSN, *ed.Password)
			if err != nil {
				return err
			}
			s.DSN = dsn
		}
	}
	if ed.ReadOnly != nil {
		s.ReadOnly = *ed.ReadOnly
	}
	return nil
}

// validateSource checks a new configuration as AddSource does. It needs
// no lock; UpdateSource calls it holding reqState.mu and Broker.mu, which
// is cheap since Validate does not connect.
func (b *Broker) validateSource(s savedSource) error {
	src := engines.Source{Kind: s.Kind, DSN: s.DSN, Path: s.Path, ReadOnly: s.ReadOnly}
	if d := b.cfg.Drivers[s.Kind]; d != nil {
		if _, err := d.Validate(src); err != nil {
			return fmt.Errorf("%w: %w", ErrInvalidSource, engines.AsError(err))
		}
		return nil
	}
	if s.Kind == engines.SQLite {
		fi, err := os.Stat(s.Path)
		if err != nil || !fi.Mode().IsRegular() {
			return ErrNoSuchFile
		}
	}
	return nil
}

// withPassword returns dsn with only its password replaced, by the
// source's driver (engines.PasswordSetter), which knows every form its
// parser reads (a PostgreSQL URL or keyword string, a MySQL/MariaDB URL
// or go-sql-driver DSN) and refuses a result it would read with another
// password, server, user or database. A kind without a password, or a
// driver without the ability, refuses the edit. The errors never carry
// the DSN.
func withPassword(drv engines.Driver, dsn, password string) (string, error) {
	ps, ok := drv.(engines.PasswordSetter)
	if !ok {
		return "", ErrBadEdit
	}
	out, err := ps.DSNWithPassword(dsn, password)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrInvalidSource, engines.AsError(err))
	}
	return out, nil
}

// TestSource connects to a source once with its current configuration
// (within the 15-second setup deadline) and records the outcome as its
// health. The answer carries only the engine's static code and reason.
func (b *Broker) TestSource(ctx context.Context, id string) (SourceHealth, error) {
	src, gen, ok := b.engineSource(id)
	if !ok {
		return SourceHealth{}, ErrNotFound
	}
	h := SourceHealth{OK: true}
	if drv := b.cfg.Drivers[src.Kind]; drv == nil {
		h = SourceHealth{Code: engines.CodeUnavailable, Reason: engines.ReasonBadConfig}
	} else {
		warnings, err := testConnection(ctx, drv, src) // source_check.go
		if err != nil {
			e := engines.AsError(err)
			h = SourceHealth{Code: e.Code, Reason: e.Reason}
		} else {
			h.Warnings = warnings
		}
	}
	h.TestedAt = b.cfg.now().UTC()
	b.mu.Lock()
	defer b.mu.Unlock()
	if i := b.sourceIndexLocked(id); i >= 0 && b.state.Sources[i].Generation == gen {
		b.state.Sources[i].Health = &h
	}
	return h, nil
}
