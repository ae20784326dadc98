package tray

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// Errors of opening a document from the tray. Static.
var (
	ErrNoDialog   = errors.New("tray: no file dialog on this desktop")
	ErrDocRefused = errors.New("tray: dbeast refused the document (not an absolute path to a UTF-8 text file of at most 4 MiB, or a limit)")
)

// Document is the broker's answer to opening a document.
type Document struct {
	FileID  string `json:"file_id"`
	Alias   string `json:"alias"`
	Version uint64 `json:"version"`
}

// OpenDocument asks the broker to open the file at path (absolute) for
// agents to request, under alias (empty: the default "Open document N").
// Only the path is sent, never the content.
func (c *Client) OpenDocument(ctx context.Context, path, alias string) (Document, error) {
	if !filepath.IsAbs(path) {
		return Document{}, ErrDocRefused
	}
	body, _ := json.Marshal(map[string]string{"path": path, "alias": alias})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base.JoinPath("/api/documents").String(), bytes.NewReader(body))
	if err != nil {
		return Document{}, fmt.Errorf("%w: %w", ErrConsole, err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return Document{}, fmt.Errorf("%w: %w", ErrConsole, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusUnauthorized:
		return Document{}, ErrUnauthorized
	case resp.StatusCode == http.StatusBadRequest || resp.StatusCode == http.StatusConflict:
		return Document{}, ErrDocRefused
	case resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK:
		return Document{}, ErrConsole
	}
	var d Document
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&d); err != nil || d.FileID == "" {
		return Document{}, ErrConsole
	}
	return d, nil
}

// dialogCommand is the program and arguments that show the desktop's
// "open file" dialog and print the chosen path, found with lookPath:
// AppleScript on macOS, zenity (GNOME and most others) or kdialog (KDE)
// elsewhere. ErrNoDialog when the desktop offers none.
func dialogCommand(goos string, lookPath func(string) (string, error)) ([]string, error) {
	if goos == "darwin" {
		return []string{"osascript", "-e", `POSIX path of (choose file with prompt "Open a document for dbeast agents")`}, nil
	}
	if goos == "windows" {
		return nil, ErrNoDialog
	}
	if p, err := lookPath("zenity"); err == nil {
		return []string{p, "--file-selection", "--title=Open a document for dbeast agents"}, nil
	}
	if p, err := lookPath("kdialog"); err == nil {
		return []string{p, "--getopenfilename", ".", "--title", "Open a document for dbeast agents"}, nil
	}
	return nil, ErrNoDialog
}

// pickFile shows the file dialog and returns the chosen absolute path;
// "" when the person cancelled it.
func pickFile(ctx context.Context) (string, error) {
	argv, err := dialogCommand(runtime.GOOS, exec.LookPath)
	if err != nil {
		return "", err
	}
	out, err := exec.CommandContext(ctx, argv[0], argv[1:]...).Output()
	if err != nil {
		return "", nil // cancelled (or the dialog failed): nothing to open
	}
	return strings.TrimRight(string(out), "\r\n"), nil
}

// AddOpenDocumentItem adds "Open document…" to the tray menu. A click
// shows the desktop's file dialog and opens the chosen file in dbeast;
// where there is no dialog, it opens the console, whose Sources &
// documents page has the same field. Clicks are handled one at a time on
// the item's own goroutine; call it from the menu's onReady.
func AddOpenDocumentItem(c *Client, log *slog.Logger) {
	item := uiAddMenuItem("Open document…", "Open a text file for agents to request")
	go func() {
		for range item.ClickedCh {
			openDocumentClicked(c, log)
		}
	}()
}

func openDocumentClicked(c *Client, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute) // the person choosing
	defer cancel()
	path, err := pickFile(ctx)
	if errors.Is(err, ErrNoDialog) {
		u, err := c.SignInURL(ctx)
		if err == nil {
			err = openURL(u)
		}
		if err != nil {
			log.Warn("cannot open the console", "error", err)
		}
		return
	}
	if path == "" {
		return
	}
	callCtx, cancelCall := context.WithTimeout(ctx, 5*time.Second)
	defer cancelCall()
	if _, err := c.OpenDocument(callCtx, path, ""); err != nil {
		log.Warn("console API call failed", "call", "open-document", "error", err)
	}
}
