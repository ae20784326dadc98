package broker

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/dbeast/dbeast/broker/internal/requests"
	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/engines/sqlite"
)

// The task stages a stallDriver can hold a task at (the request
// machine's).
type taskStage = requests.TaskStage

const (
	stageOpen = requests.StageOpen
	stageRead = requests.StageRead
	stageExec = requests.StageExec
)

// stallDriver wraps the real SQLite driver so that one stage of a task
// (Open, Read or Exec) blocks, ignoring its context, until released: a
// stand-in for a wait that looks at no context, as the PostgreSQL pool's
// deadlock did. Everything else is the real engine.
type stallDriver struct {
	sqlite.Driver
	at      taskStage
	entered chan struct{} // receives one value when the stage blocks
	release chan struct{} // closed to let it go on
}

func (d *stallDriver) stall(s taskStage) {
	if d.at == s {
		d.entered <- struct{}{}
		<-d.release
	}
}

func (d *stallDriver) Open(ctx context.Context, src engines.Source) (engines.Engine, error) {
	d.stall(stageOpen)
	e, err := d.Driver.Open(ctx, src)
	if err != nil {
		return nil, err
	}
	return &stallEngine{Engine: e, d: d}, nil
}

type stallEngine struct {
	engines.Engine
	d *stallDriver
}

func (e *stallEngine) Read(ctx context.Context, r engines.ReadRequest) (*engines.Result, []engines.Proof, error) {
	e.d.stall(stageRead)
	return e.Engine.Read(ctx, r)
}

func (e *stallEngine) Exec(ctx context.Context, sql string, lim engines.Limits) (*engines.Result, error) {
	e.d.stall(stageExec)
	return e.Engine.Exec(ctx, sql, lim)
}

// TestWatchdogEndsAStalledTaskAndKeepsItsSlot: a task stuck in a stage
// that ignores its context is ended by its watchdog once its deadline
// and the grace have passed, as a cancellation (cancelled for a read,
// outcome_unknown for full SQL, which may have written), with no result;
// the stall is logged with the stuck stage and without the statement;
// and the task's concurrency slot stays held until the stage really
// returns, after which the end of the stall is logged and the slot is
// free again.
func TestWatchdogEndsAStalledTaskAndKeepsItsSlot(t *testing.T) {
	t.Parallel()
	const (
		deadline = 300 * time.Millisecond
		grace    = 300 * time.Millisecond
		marker   = "watchdog_marker_text"
	)
	cases := []struct {
		name       string
		at         taskStage
		tool, sql  string
		wantStatus Status
		wantCode   Code
	}{
		{"read stuck in the engine", stageRead, "query_sql", "select id from main.items where name <> '" + marker + "'", StatusCancelled, CodeCancelled},
		{"open stuck", stageOpen, "query_sql", "select id from main.items where name <> '" + marker + "'", StatusCancelled, CodeCancelled},
		{"full SQL stuck in the engine", stageExec, "request_sql", "INSERT INTO main.notes VALUES (7, '" + marker + "')", StatusOutcomeUnknown, CodeOutcomeUnknown},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			drv := &stallDriver{at: tc.at, entered: make(chan struct{}, 1), release: make(chan struct{})}
			released := false
			defer func() {
				if !released {
					close(drv.release)
				}
			}()
			logs := &lockedBuf{}
			e := newEnv(t, "", func(b *Broker) {
				b.cfg.Drivers = map[engines.Kind]engines.Driver{engines.SQLite: drv}
				b.log = slog.New(slog.NewTextHandler(logs, nil))
				b.reqs.SetDeadlines(deadline, grace)
			})
			var out map[string]string
			if st := e.console("POST", "/api/sources", map[string]any{"kind": "sqlite", "path": makeFixture(t)}, &out); st != http.StatusCreated {
				t.Fatalf("add source: %d", st)
			}
			re := &reqEnv{env: e, srcID: out["source_id"]}
			a := re.agent("agent")
			re.share(a.connID, LevelReadWrite)

			start := time.Now()
			id, st, _ := a.submit(tc.tool, map[string]any{"source_id": re.srcID, "sql": tc.sql})
			// The tool waits a little for the outcome before it answers,
			// so the watchdog may already have ended the request.
			if st != StatusRunning && st != tc.wantStatus {
				t.Fatalf("status %s, want running or %s", st, tc.wantStatus)
			}
			select {
			case <-drv.entered:
			case <-time.After(5 * time.Second):
				t.Fatal("the task never reached the stalling stage")
			}
			m := waitStatus(t, a, id, tc.wantStatus, 5*time.Second)
			if el := time.Since(start); el < deadline+grace-50*time.Millisecond {
				t.Errorf("ended after %s, before its deadline and grace (%s)", el, deadline+grace)
			}
			if errCodeOf(m) != tc.wantCode || m["result"] != nil {
				t.Errorf("answer %v, want code %s and no result", m, tc.wantCode)
			}
			if n := slotsInUse(e.b); n != 1 {
				t.Errorf("%d slots held while the stalled stage still runs, want 1", n)
			}
			log := logs.String()
			if !strings.Contains(log, "task stalled past its deadline") || !strings.Contains(log, "request_id="+id) || !strings.Contains(log, "stage="+tc.at.String()) {
				t.Errorf("the stall was not logged with its request and stage %s:\n%s", tc.at, log)
			}

			close(drv.release)
			released = true
			for end := time.Now().Add(5 * time.Second); slotsInUse(e.b) != 0; time.Sleep(10 * time.Millisecond) {
				if time.Now().After(end) {
					t.Fatal("the slot was not released once the stalled stage returned")
				}
			}
			if m := a.get(id); statusOf(m) != tc.wantStatus || m["result"] != nil {
				t.Errorf("after the stage returned: %v, want %s without a result", m, tc.wantStatus)
			}
			log = logs.String()
			if !strings.Contains(log, "stalled task ended") {
				t.Errorf("the end of the stall was not logged:\n%s", log)
			}
			if strings.Contains(log, marker) {
				t.Errorf("the statement reached the log:\n%s", log)
			}
		})
	}
}

// waitStatus polls get_request until the request has status want, for at
// most d.
func waitStatus(t *testing.T, a *agent, id string, want Status, d time.Duration) map[string]any {
	t.Helper()
	for end := time.Now().Add(d); ; time.Sleep(20 * time.Millisecond) {
		m := a.get(id)
		if statusOf(m) == want {
			return m
		}
		if time.Now().After(end) {
			t.Fatalf("request %s is %v after %s, want %s", id, m["status"], d, want)
		}
	}
}

// slotsInUse returns the global number of held concurrency slots.
func slotsInUse(b *Broker) int {
	return b.reqs.SlotsInUse()
}
