package broker

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbeast/dbeast/broker/store"
)

// newSecretsEnv is a broker (no source: agents read documents only) whose
// log is kept, so a test can check that no secret reaches it.
func newSecretsEnv(t *testing.T) (*reqEnv, *lockedBuf) {
	t.Helper()
	buf := &lockedBuf{}
	dir := filepath.Join(t.TempDir(), "state")
	clock := newManualClock()
	b, err := New(Config{
		StateDir: dir, Listen: "127.0.0.1:0", Console: "127.0.0.1:0",
		Clock: clock.Now, Store: store.NewFile(dir), ConsoleHandler: consoleForTests(t),
		Logger: slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return &reqEnv{env: &env{t: t, b: b, clock: clock, dir: dir}}, buf
}

// consoleRaw sends a console API request and returns the status and the
// raw answer.
func (e *env) consoleRaw(method, path string, body any) (int, string) {
	e.t.Helper()
	var out json.RawMessage
	st := e.console(method, path, body, &out)
	return st, string(out)
}

// signInCodeOf is the one-time code in a ConsoleSignInURL link.
func signInCodeOf(t *testing.T, link string) string {
	t.Helper()
	_, code, ok := strings.Cut(link, "#code=")
	if !ok {
		t.Fatalf("no code in the sign-in link")
	}
	return code
}

// TestDocumentHoldingADbeastSecretIsRefused: a file holding one of
// dbeast's live secrets (another connection's agent token, another
// session's token, the console token, an unused sign-in code, also inside
// a longer word) is refused at open with a static reason that names no
// secret; a dead secret (a revoked connection's token, a used or expired
// code) and text that is only shaped like a token are not: they open
// nothing, and refusing them would make harmless files unusable. An edit
// that brings a live token into a shared document makes it unavailable:
// the agent can no longer read any version of it. No secret appears in
// any console answer, agent answer, activity entry or log line. Checked
// to fail before the fix: only the console token was refused, and the
// agent read the other connection's token from the edited document.
func TestDocumentHoldingADbeastSecretIsRefused(t *testing.T) {
	e, logBuf := newSecretsEnv(t)
	a, other := e.agent("reader"), e.agent("other session")
	otherConn := e.newConnection("other agent")
	revoked := e.newConnection("revoked")
	if st := e.console("DELETE", "/api/connections/"+revoked.ID, nil, nil); st != http.StatusOK {
		t.Fatalf("revoke: %d", st)
	}
	used := signInCodeOf(t, e.b.ConsoleSignInURL())
	if _, ok := e.b.ClaimSignIn(used); !ok {
		t.Fatal("the sign-in code did not work")
	}
	expired := signInCodeOf(t, e.b.ConsoleSignInURL())
	e.clock.Advance(signInLifetime + time.Minute)
	live := signInCodeOf(t, e.b.ConsoleSignInURL())
	e.clock.Advance(4 * time.Second) // begin_session's window, for the agents' calls below
	secrets := []string{otherConn.Token, other.tok, a.tok, e.b.ConsoleToken(), live}

	dir := t.TempDir()
	cases := []struct {
		name, text string
		refused    bool
	}{
		{"another connection's agent token", "token: " + otherConn.Token + "\n", true},
		{"another session's token", "session " + other.tok, true},
		{"the reading agent's own session token", a.tok, true},
		{"the console token", "Bearer " + e.b.ConsoleToken(), true},
		{"a live sign-in code", "http://127.0.0.1/#code=" + live, true},
		{"a token inside a longer word", "xx" + otherConn.Token + "yy", true},
		{"a revoked connection's token", revoked.Token, false},
		{"a used sign-in code", "#code=" + used, false},
		{"an expired sign-in code", "#code=" + expired, false},
		{"token-shaped text", "dbc_" + strings.Repeat("A", tokenLen) + " dbo_" + strings.Repeat("x", tokenLen) + " dbk_" + strings.Repeat("-", tokenLen), false},
		{"a token cut short", otherConn.Token[:len(otherConn.Token)-1] + " " + otherConn.Token[1:], false},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, "doc"+string(rune('a'+i))+".txt")
			os.WriteFile(path, []byte(c.text), 0o600)
			st, out := e.consoleRaw("POST", "/api/documents", map[string]any{"path": path})
			if !c.refused {
				if st != http.StatusCreated {
					t.Fatalf("open: %d %s", st, out)
				}
				var d map[string]any
				json.Unmarshal([]byte(out), &d)
				e.b.CloseDocument(d["file_id"].(string))
				return
			}
			want, _ := json.Marshal(map[string]string{"error": ErrBadDocument.Error()})
			if st != http.StatusBadRequest || strings.TrimSpace(out) != string(want) {
				t.Fatalf("open: %d %s, want 400 %s", st, out, want)
			}
			if _, err := e.b.OpenDocument(path, ""); problemOf(err) != problemSecret {
				t.Fatalf("OpenDocument: %v, want %q", err, problemSecret)
			}
			if docs := e.b.Documents(); len(docs) != 0 {
				t.Fatalf("documents: %+v", docs)
			}
		})
	}

	// An edit: the agent reads the clean text, then the file gets the
	// other connection's token.
	path := filepath.Join(dir, "notes.txt")
	os.WriteFile(path, []byte("meeting notes"), 0o600)
	id := e.openDoc(path, "Notes")
	rid, st, _ := a.submit("read_open_file", map[string]any{"file_id": id, "version": 1, "length": 100})
	if st != StatusPending {
		t.Fatalf("read: %s", st)
	}
	e.approve(rid, "document")
	if m := a.wait(rid); resultOf(t, m).text() != "meeting notes" {
		t.Fatalf("clean read: %v", m)
	}
	os.WriteFile(path, []byte("meeting notes\nnew agent: "+otherConn.Token+"\n"), 0o600)
	if st, out := e.consoleRaw("PUT", "/api/documents/"+id+"/refresh", nil); st != http.StatusBadRequest {
		t.Fatalf("refresh of the edited file: %d %s", st, out)
	}
	d := docUntil(t, e.env, id, "unavailable", func(d DocumentInfo) bool { return !d.Available })
	if d.Problem != string(problemSecret) || d.Bytes != 0 {
		t.Fatalf("after the edit: %+v", d)
	}
	var answers []string
	for _, v := range []any{1, 2} {
		m, code := a.call("read_open_file", map[string]any{"file_id": id, "version": v, "length": 1000})
		if code != CodeResourceUnavailable {
			t.Fatalf("read of version %v after the edit: %q %v", v, code, m)
		}
		answers = append(answers, mustJSON(m))
	}
	cat, _ := a.call("list_catalog", nil)
	answers = append(answers, mustJSON(cat), mustJSON(a.get(rid)))
	_, docs := e.consoleRaw("GET", "/api/documents", nil)
	_, activity := e.consoleRaw("GET", "/api/activity", nil)
	answers = append(answers, docs, activity, logBuf.String())
	for _, ans := range answers {
		for _, s := range secrets {
			if strings.Contains(ans, s) {
				t.Fatalf("a secret reached an answer or the log: %.300s", ans)
			}
		}
	}
	if !strings.Contains(activity, string(problemSecret)) {
		t.Fatalf("the activity log does not say why the document is unavailable: %s", activity)
	}
}

// TestDocumentSecretScanIsBounded: the scan of a 4 MiB text made of
// token-shaped strings stops at maxTokenCandidates (refused with its own
// static reason) and takes milliseconds, and a token-shaped string after
// the longest run of non-candidates is still found.
func TestDocumentSecretScanIsBounded(t *testing.T) {
	tok := newToken(connTokenPrefix)
	live := map[tokenHash]struct{}{hashToken(tok): {}}
	body := strings.Repeat("A", tokenLen)
	cases := []struct {
		name string
		text string
		want docProblem
	}{
		{"candidates past the bound", strings.Repeat("dbc_"+body+" ", MaxDocumentBytes/(5+tokenLen)), problemTokenLike},
		{"overlapping prefixes", strings.Repeat("dbc_", MaxDocumentBytes/4), problemTokenLike},
		{"prefixes whose bodies fail late", strings.Repeat("dbs_"+body[:tokenLen-1]+"!", MaxDocumentBytes/(4+tokenLen)), ""},
		{"a token after 4 MiB of near misses", strings.Repeat("dbo_"+body[:10]+"!", (MaxDocumentBytes-64)/15) + tok, problemSecret},
		{"a token among a few candidates", strings.Repeat("dbk_"+body+"\n", 100) + tok, problemSecret},
		{"a token at the very start", tok + "x", problemSecret},
		{"a token at the very end", "x" + tok, problemSecret},
		{"a token one byte short at the end", "x" + tok[:len(tok)-1], ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			got := checkSecrets([]byte(c.text), live)
			if took := time.Since(start); took > 2*time.Second { // a loose sanity bound; the cap itself is pinned by problemTokenLike
				t.Errorf("the scan took %v", took)
			}
			if got != c.want {
				t.Fatalf("checkSecrets = %q, want %q", got, c.want)
			}
		})
	}
}
