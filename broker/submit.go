package broker

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/dbeast/dbeast/broker/internal/requests"
	"github.com/dbeast/dbeast/verifier"
)

// fingerprint is a request's parameters without the session token, so the
// same key with the same parameters is recognised.
func fingerprint(o op, in any) string {
	raw, _ := json.Marshal(in)
	var m map[string]any
	json.Unmarshal(raw, &m)
	delete(m, "session_token")
	delete(m, "request_key")
	raw, _ = json.Marshal(m)
	return string(o) + "\x00" + string(raw)
}

// sourceFor returns the source a connection may use, or the generic
// resource_unavailable (unknown and unshared sources look the same).
func (b *Broker) sourceFor(connID string, id SourceID) (Source, *ToolError) {
	b.mu.Lock()
	defer b.mu.Unlock()
	i := b.sourceIndexLocked(string(id))
	if i < 0 || !b.effectiveAccessLocked(connID, string(id)).Visible() {
		return Source{}, toolErr(CodeResourceUnavailable)
	}
	return publicSource(b.state.Sources[i]), nil
}

// sourceIntent is an intent for operation o on src.
func sourceIntent(src Source, o op) requests.Intent {
	return requests.Intent{SourceID: src.ID, Alias: src.Alias, Kind: string(src.Kind), ReadOnly: src.ReadOnly, Generation: src.Generation, Operation: o}
}

// databaseOf is a MySQL source's configured database (the only schema its
// verifier allows), from the driver without connecting; "" for the other
// engines, whose verifiers ignore Input.Database.
func (b *Broker) databaseOf(id string) string {
	src, _, ok := b.engineSource(id)
	d := b.cfg.Drivers[src.Kind]
	if !ok || d == nil || src.Kind.Dialect() != verifier.MySQL {
		// Parsing a PostgreSQL DSN costs about 0.1 ms a call, for nothing.
		return ""
	}
	info, err := d.Validate(src)
	if err != nil {
		return ""
	}
	return info.Database
}

// refusal is the tool error of a verifier refusal: its static message and
// the details the verifier computed without copying the input (issue 31):
// the refused construct from the verifier's fixed vocabulary (a function
// is named only when it is in verifier.KnownFunctions, else "function"),
// the byte offset near it, and the dialect's safe spelling where one
// exists. The allowed functions differ per engine and PostgreSQL's list
// is long, so the message points to the server instructions, which list
// them, instead of repeating them in every refusal.
func refusal(err error, code Code) *ToolError {
	ref, ok := verifier.AsRefusal(err)
	if !ok {
		return toolErr(code)
	}
	msg := ref.Message
	if ref.Construct != "" {
		msg += ": " + ref.Construct
	}
	if ref.Offset != nil {
		msg += " at byte offset " + strconv.Itoa(*ref.Offset)
	}
	if ref.Hint != "" {
		msg += "; " + ref.Hint
	}
	if ref.Code == verifier.CodeFunctionNotAllowed {
		msg += " (the server instructions list the allowed functions per engine)"
	}
	return toolErrMsg(code, msg)
}

// submit is the common path of every request tool: session, idempotency
// key, build, then reserve (authorization, limits, dispatch: the request
// machine's Reserve). It never waits for a person; a request covered
// without a prompt may complete before the reply (waiting at most a
// moment).
func (b *Broker) submit(ctx context.Context, c Call, tok SessionToken, key RequestKey, fp string, build func(*Session) (requests.Intent, *ToolError)) (_ *requestOut, err error) {
	s, terr := b.session(c.ConnectionID, string(tok))
	if terr != nil {
		return nil, terr
	}
	defer func() { b.recordRefusal(c.ConnectionID, s.ID, err) }() // refusals and limit errors reach Activity
	k := strings.ToLower(string(key))
	if out, kerr, done := b.reqs.LookupKey(s.ID, k, fp); done {
		return out, kerr
	}
	in, terr := build(s)
	if terr != nil {
		return nil, terr
	}
	id, covered, out, err := b.reqs.Reserve(s, k, fp, in)
	if out != nil || err != nil {
		return out, err
	}
	if covered != nil {
		wait := 2 * time.Second
		if b.submitWait > 0 {
			wait = b.submitWait
		}
		t := time.NewTimer(wait)
		select {
		case <-covered:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
	return b.reqs.View(s.ID, id)
}
