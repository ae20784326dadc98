package requests

import (
	"context"
	"errors"
	"log/slog"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
)

// dispatchLocked starts every approved pending request that can get a
// slot (1 per session, 4 globally), oldest first. A slot is held by the
// task, not by the status: it is released only after the engine's Close
// returned, even when the request was cancelled long before. The
// per-session slot is counted by connection (a connection has one session
// at a time): a new begin_session does not bring new capacity while the
// previous session's task is still finishing. Needs Machine.mu.
func (rq *Machine) dispatchLocked() {
	rq.sweepRequestsLocked()
	for _, r := range rq.sortedRequestsLocked() {
		if r.status != StatusPending || r.auth == authPrompt {
			continue
		}
		if r.operation.Info().Scopes == scopesDocument {
			rq.startLocked(r) // no database work, no slot
			continue
		}
		if rq.slotsGlobal >= SlotsGlobal || rq.slotsByConn[r.connID] >= SlotsPerSession {
			continue
		}
		rq.startLocked(r)
	}
}

// Redispatch starts what can start now, e.g. after a narrowing finished.
func (rq *Machine) Redispatch() {
	rq.mu.Lock()
	defer rq.mu.Unlock()
	rq.dispatchLocked()
}

// startLocked re-checks r and moves it to running. Source state, session,
// authorization and deadline are checked here; a one-time grant is
// consumed in the same critical section as the move to running.
// Needs Machine.mu, and never Broker.mu: it may take Broker.mu itself.
func (rq *Machine) startLocked(r *request) {
	h := rq.host
	if r.sourceID != "" && h.NarrowingInFlight(r.sourceID) {
		return // stays pending; Redispatch runs once the revocation is done
	}
	if !rq.liveLocked(r) {
		rq.revokeLocked(r)
		return
	}
	var pins map[string]string
	switch r.auth {
	case authOnce:
		if !r.once {
			rq.revokeLocked(r)
			return
		}
		r.once = false
	case authSession:
		c := rq.coverLocked(r)
		if !c.ok {
			rq.revokeLocked(r)
			return
		}
		r.standing, pins = c.standing, c.pins
	}
	r.status = StatusRunning
	ev := "request_running"
	if r.standing {
		ev = "shared_access"
	}
	h.Record(r.connID, ActivityEntry{Time: h.Now(), SessionID: r.sessionID, RequestID: r.id, Alias: r.alias, Event: ev, Status: string(StatusRunning), SQL: r.statement})
	if r.operation.Info().Scopes == scopesDocument {
		rq.completeLocked(r, r.doc.result(), nil)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), rq.opDeadline)
	r.cancel = cancel
	rq.slotsGlobal++
	rq.slotsByConn[r.connID]++
	rq.wg.Add(1)
	go rq.runTask(ctx, cancel, r, pins, rq.watchTaskLocked(r, rq.opDeadline))
}

// liveLocked reports whether the request's session, source (same
// generation, still visible to the connection) or document still exist.
// Needs Machine.mu, and never Broker.mu: it may take Broker.mu itself.
func (rq *Machine) liveLocked(r *request) bool {
	h := rq.host
	if !h.SessionAlive(r.sessionID) {
		return false
	}
	if r.fileID != "" {
		return rq.documentLiveLocked(r)
	}
	_, gen, ok := h.EngineSource(r.sourceID)
	return ok && gen == r.generation && h.EffectiveAccess(r.connID, r.sourceID).Visible()
}

// runTask runs one operation and releases its slot only after the
// engine's Close returned, also when its watchdog (w) ended the request
// before.
func (rq *Machine) runTask(ctx context.Context, cancel context.CancelFunc, r *request, pins map[string]string, w *taskWatch) {
	defer rq.wg.Done()
	res, ids, err := rq.execute(ctx, r, pins, w)
	w.enter(StageDone)
	cancel()
	w.stop()
	rq.mu.Lock()
	defer rq.mu.Unlock()
	rq.slotsGlobal--
	if rq.slotsByConn[r.connID]--; rq.slotsByConn[r.connID] <= 0 {
		delete(rq.slotsByConn, r.connID)
	}
	if r.status == StatusRunning {
		if err == nil {
			rq.pinLocked(r, ids)
		}
		if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) && !r.write {
			rq.finishLocked(r, StatusExpired, CodeExecutionFailed, string(engines.ReasonTimeout))
		} else {
			rq.completeLocked(r, res, err)
		}
	}
	rq.dispatchLocked()
}

// execute opens the source's engine, runs the request's operation and
// closes the engine before returning. ids are the identities the
// operation proved, by table. Each stage is told to the watchdog w. It
// runs with no lock held.
func (rq *Machine) execute(ctx context.Context, r *request, pins map[string]string, w *taskWatch) (any, map[string]string, error) {
	src, gen, ok := rq.host.EngineSource(r.sourceID)
	drv := rq.host.Driver(engines.Kind(r.kind))
	if !ok || gen != r.generation || drv == nil {
		return nil, nil, engines.NewError(engines.CodeUnavailable, engines.ReasonConnect, nil)
	}
	if r.write && src.ReadOnly {
		return nil, nil, engines.NewError(engines.CodeDenied, engines.ReasonReadOnlySource, nil)
	}
	w.enter(StageOpen)
	eng, err := drv.Open(ctx, src)
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		w.enter(StageClose)
		eng.Close()
	}()
	lim := engines.Limits{}
	switch r.operation {
	case opListTables:
		w.enter(StageList)
		ts, err := eng.ListTables(ctx)
		if err != nil {
			return nil, nil, err
		}
		return tablesResult(ts), nil, nil
	case opDescribeTable:
		w.enter(StageDescribe)
		p, err := eng.Describe(ctx, *r.table)
		if err != nil {
			return nil, nil, err
		}
		if pin, ok := pins[r.table.String()]; ok && pin != p.Identity {
			return nil, nil, engines.NewError(engines.CodeIdentityChanged, engines.ReasonIdentityChanged, nil)
		}
		return describeResult(p), map[string]string{p.Table.String(): p.Identity}, nil
	case opReadTable, opQuerySQL:
		w.enter(StageRead)
		res, proofs, err := eng.Read(ctx, engines.ReadRequest{Verdict: r.verdict, Pins: pins, Limits: lim})
		if err != nil {
			return nil, nil, err
		}
		ids := map[string]string{}
		for _, p := range proofs {
			ids[p.Table.String()] = p.Identity
		}
		return res, ids, nil
	case opRequestSQL:
		// A table write runs as the regenerated SQL: the statement shown.
		if r.verdict != nil && r.verdict.Mode == verifier.ModeTableWrite {
			w.enter(StageWrite)
			res, err := eng.Write(ctx, r.verdict, lim)
			return res, nil, err
		}
		w.enter(StageExec)
		res, err := eng.Exec(ctx, r.fullSQL, lim)
		return res, nil, err
	}
	return nil, nil, engines.NewError(engines.CodeFailed, engines.ReasonExecution, nil)
}

// completeLocked records an operation's outcome: the result bounded to
// the MCP response budget, or the engine error mapped to a status and a
// broker code with the engine's static reason.
// Needs Machine.mu.
func (rq *Machine) completeLocked(r *request, res any, err error) {
	if err == nil {
		raw, fitted := FitEncoded(r.id, res) // encoded once, here
		if raw == nil {
			rq.finishLocked(r, StatusFailed, CodeLimitExceeded, MsgTooManyRows)
			return
		}
		r.result, r.outcome = raw, outcomeOf(fitted)
		rq.finishLocked(r, StatusCompleted, "", "")
		return
	}
	e := engines.AsError(err)
	msg := string(e.Reason)
	if e.Code == engines.CodeFailed || e.Code == engines.CodeUnavailable {
		// The engine's static code and reason; its cause (driver text) may
		// quote data or the DSN and is never logged.
		rq.host.Log().Warn("engine error", slog.String("request_id", r.id), slog.String("kind", r.kind),
			slog.String("engine_code", string(e.Code)), slog.String("reason", msg))
	}
	switch e.Code {
	case engines.CodeIneligible:
		rq.finishLocked(r, StatusFailed, CodeUnsupportedSafeRead, msg)
	case engines.CodeIdentityChanged:
		rq.dropTableGrantsLocked(r)
		rq.finishLocked(r, StatusFailed, CodePermissionDenied, msg)
	case engines.CodeUnavailable:
		rq.finishLocked(r, StatusFailed, CodeResourceUnavailable, msg)
	case engines.CodeDenied:
		rq.finishLocked(r, StatusFailed, CodePermissionDenied, msg)
	case engines.CodeCancelled:
		rq.finishLocked(r, StatusCancelled, CodeCancelled, msg)
	case engines.CodeTimeout:
		rq.finishLocked(r, StatusExpired, CodeExecutionFailed, msg)
	case engines.CodeOutcomeUnknown:
		rq.finishLocked(r, StatusOutcomeUnknown, CodeOutcomeUnknown, msg)
	case engines.CodeLimit:
		rq.finishLocked(r, StatusFailed, CodeLimitExceeded, msg)
	default:
		rq.finishLocked(r, StatusFailed, CodeExecutionFailed, string(engines.ReasonExecution))
	}
}

// FitResponse trims a result until the whole get_request answer fits the
// 1 MiB MCP response budget (structured JSON plus its text copy), marking
// it truncated. Nil means it cannot fit at all.
func FitResponse(id string, res any) any {
	fits := func(v any) bool {
		return MarshalSize(View(id, StatusCompleted, "", "", v)) <= MaxResponseBytes
	}
	if fits(res) {
		return res
	}
	switch v := res.(type) {
	case *engines.Result:
		lo := LargestFitting(len(v.Rows), func(n int) bool {
			c := *v
			c.Rows = v.Rows[:n]
			return fits(&c)
		})
		c := *v
		c.Rows = v.Rows[:lo]
		c.Truncated = true
		if fits(&c) {
			return &c
		}
	case *docResult:
		lo := LargestFitting(len(v.Text), func(n int) bool {
			c := *v
			c.Text = cutUTF8(v.Text, n)
			return fits(&c)
		})
		c := *v
		c.Text = cutUTF8(v.Text, lo)
		c.Length = len(c.Text)
		c.Truncated = true
		return &c
	}
	return nil
}

// tableEntryOut is one listed table.
type tableEntryOut struct {
	Schema string `json:"schema"`
	Name   string `json:"name"`
	Kind   string `json:"kind"`
}

type tablesOut struct {
	Tables    []tableEntryOut `json:"tables"`
	Truncated bool            `json:"truncated"`
}

func tablesResult(ts []engines.TableEntry) *tablesOut {
	out := &tablesOut{Tables: []tableEntryOut{}}
	for i, t := range ts {
		if i == engines.DefaultMaxRows {
			out.Truncated = true
			break
		}
		out.Tables = append(out.Tables, tableEntryOut{Schema: t.Table.Schema, Name: t.Table.Name, Kind: t.Kind})
	}
	return out
}

type describeOut struct {
	Schema  string           `json:"schema"`
	Name    string           `json:"name"`
	Kind    string           `json:"kind"`
	Columns []engines.Column `json:"columns"`
}

func describeResult(p *engines.Proof) *describeOut {
	return &describeOut{Schema: p.Table.Schema, Name: p.Table.Name, Kind: p.Kind, Columns: p.Columns}
}
