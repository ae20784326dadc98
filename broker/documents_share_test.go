package broker

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// openDoc opens a document through the console API.
func (e *reqEnv) openDoc(path, alias string) string {
	e.t.Helper()
	var out map[string]any
	if st := e.console("POST", "/api/documents", map[string]any{"path": path, "alias": alias}, &out); st != http.StatusCreated {
		e.t.Fatalf("open document: %d %v", st, out)
	}
	return out["file_id"].(string)
}

func (e *reqEnv) shareDoc(id string, with ...string) int {
	e.t.Helper()
	if with == nil {
		with = []string{}
	}
	return e.console("PUT", "/api/documents/"+id+"/sharing", map[string]any{"shared_with": with}, nil)
}

// catalogHas reports whether the agent's catalog lists the document.
func (a *agent) catalogHas(fileID string) bool {
	a.e.t.Helper()
	cat, code := a.call("list_catalog", nil)
	if code != "" {
		a.e.t.Fatalf("list_catalog: %s", code)
	}
	return strings.Contains(mustJSON(cat["documents"]), fileID)
}

// TestDocumentSharedPerConnection: a document shared with connection A
// is not in B's catalog and B's read answers exactly as for an unknown
// id; narrowing (even removing A's own entry while All agents remains)
// drops A's document grant and revokes its results; widening keeps them.
// Checked to fail with the visibility check in documentForLocked removed
// (B's read was accepted) and with the revocation loop in ShareDocument
// removed (A's completed result stayed released).
func TestDocumentSharedPerConnection(t *testing.T) {
	e := newReqEnv(t, false)
	a, bAgent := e.agent("A"), e.agent("B")
	path := filepath.Join(t.TempDir(), "plan.txt")
	os.WriteFile(path, []byte("the plan"), 0o600)
	id := e.openDoc(path, "Plan")
	if !a.catalogHas(id) || !bAgent.catalogHas(id) {
		t.Fatal("a newly opened document is shared with All agents")
	}
	if st := e.shareDoc(id, a.connID); st != http.StatusOK {
		t.Fatalf("share with A: %d", st)
	}
	if !a.catalogHas(id) || bAgent.catalogHas(id) {
		t.Fatal("shared with A only: A must see it and B must not")
	}
	read := map[string]any{"file_id": id, "version": 1, "length": 100}
	gotB, codeB := bAgent.call("read_open_file", read)
	gotU, codeU := bAgent.call("read_open_file", map[string]any{"file_id": "doc_" + strings.Repeat("0", 32), "version": 1, "length": 100})
	if codeB != CodeResourceUnavailable || codeU != codeB || mustJSON(gotB["error"]) != mustJSON(gotU["error"]) {
		t.Fatalf("B reading A's document: %s %v; unknown id: %s %v", codeB, gotB, codeU, gotU)
	}

	rid, st, _ := a.submit("read_open_file", read)
	if st != StatusPending {
		t.Fatalf("A's read: %s", st)
	}
	e.approve(rid, ScopeDocument)
	if m := a.wait(rid); statusOf(m) != StatusCompleted {
		t.Fatalf("A's read: %v", m)
	}

	// Widening keeps A's grant and result.
	if st := e.shareDoc(id, a.connID, bAgent.connID); st != http.StatusOK {
		t.Fatalf("widen: %d", st)
	}
	if m := a.get(rid); statusOf(m) != StatusCompleted || m["result"] == nil {
		t.Fatalf("after widening: %v", m)
	}
	if _, st, _ := a.submit("read_open_file", read); st != StatusCompleted {
		t.Fatalf("A's grant after widening: %s", st)
	}

	// A's own entry replaced by All agents: still visible to A, but a
	// narrowing for A, as for sources.
	if st := e.shareDoc(id, AllConnections); st != http.StatusOK {
		t.Fatalf("narrow: %d", st)
	}
	// Revoked at once, as the console shows it, not only when polled.
	if info := e.info(rid); info.Status != StatusRevoked {
		t.Fatalf("console after narrowing: %s, want revoked", info.Status)
	}
	if m := a.get(rid); statusOf(m) != StatusRevoked || m["result"] != nil {
		t.Fatalf("after narrowing: %v, want revoked", m)
	}
	if _, st, _ := a.submit("read_open_file", read); st != StatusPending {
		t.Fatalf("A's read after narrowing: %s, want a prompt", st)
	}
	if !a.catalogHas(id) || !bAgent.catalogHas(id) {
		t.Fatal("All agents: both see it")
	}

	// Unshared from everyone: hidden, reads are unavailable.
	if st := e.shareDoc(id); st != http.StatusOK {
		t.Fatalf("unshare: %d", st)
	}
	if a.catalogHas(id) {
		t.Fatal("an unshared document is in the catalog")
	}
	if _, code := a.call("read_open_file", read); code != CodeResourceUnavailable {
		t.Fatalf("read of an unshared document: %q", code)
	}

	// Bad input changes nothing.
	for _, bad := range [][]string{{"conn_unknown"}, {a.connID, a.connID}, {""}} {
		if st := e.shareDoc(id, bad...); st != http.StatusNotFound && st != http.StatusBadRequest {
			t.Fatalf("share %v: %d", bad, st)
		}
	}
	if st := e.shareDoc("doc_nope", a.connID); st != http.StatusNotFound {
		t.Fatalf("unknown document: %d", st)
	}
	if d := e.b.Documents()[0]; len(d.SharedWith) != 0 {
		t.Fatalf("refused edits changed the sharing: %v", d.SharedWith)
	}

	// A revoked connection leaves the document's sharing list.
	if st := e.shareDoc(id, bAgent.connID, AllConnections); st != http.StatusOK {
		t.Fatalf("share: %d", st)
	}
	if st := e.console("DELETE", "/api/connections/"+bAgent.connID, nil, nil); st != http.StatusOK {
		t.Fatalf("revoke connection: %d", st)
	}
	if d := e.b.Documents()[0]; len(d.SharedWith) != 1 || d.SharedWith[0] != AllConnections {
		t.Fatalf("after revoking B: shared with %v", d.SharedWith)
	}
}
