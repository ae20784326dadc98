package requests

import (
	"log/slog"
	"sync/atomic"
	"time"
)

// The watchdog of a task. Every engine bounds its own work by the
// operation deadline (its context), and the contract lets cancellation
// take a little longer; but a wait that looks at no context (a lock, a
// socket read behind one) would hold a request in running for ever, and
// the agent and the console with it. So each task is watched: a request
// still running watchGrace after its deadline is ended as a cancellation
// (cancelled, or outcome_unknown when it may have written: a table write
// or full SQL), with its result withheld, and the stall is logged with the
// stage the task is stuck in. The task keeps its concurrency slot until it
// really returns (runTask), since the work may still be going on; the end
// of a stalled task is logged too.

// defaultWatchGrace is how long past its deadline a task may stay running
// before its watchdog ends the request: the engines' own cancellation
// (a cancel request, then cutting the socket after 5 s) normally ends an
// overrun within it.
const defaultWatchGrace = 5 * time.Second

// TaskStage is where a task is. Its names are logged; the broker's
// watchdog tests stall a task at one of them.
type TaskStage int32

const (
	StageOpen     TaskStage = iota // Driver.Open: a pooled or new connection
	StageList                      // Engine.ListTables
	StageDescribe                  // Engine.Describe
	StageRead                      // Engine.Read
	StageWrite                     // Engine.Write
	StageExec                      // Engine.Exec (full SQL)
	StageClose                     // Engine.Close: back to the pool or closed
	StageDone                      // execute returned
)

var stageNames = [...]string{
	StageOpen: "open", StageList: "list_tables", StageDescribe: "describe", StageRead: "read",
	StageWrite: "write", StageExec: "exec", StageClose: "close", StageDone: "done",
}

func (s TaskStage) String() string {
	if s >= 0 && int(s) < len(stageNames) {
		return stageNames[s]
	}
	return "unknown"
}

// taskWatch is one task's watchdog. stage is written by the task and
// read by the timer's goroutine, hence atomic; the rest is set before
// the timer starts.
type taskWatch struct {
	rq      *Machine
	r       *request
	started time.Time
	stage   atomic.Int32
	stalled atomic.Bool
	stuckAt atomic.Int32 // the stage when the watchdog fired
	timer   *time.Timer
}

// watchTaskLocked starts the watchdog of r's task, whose operation has
// deadline d. Needs Machine.mu (it reads watchGrace).
func (rq *Machine) watchTaskLocked(r *request, d time.Duration) *taskWatch {
	w := &taskWatch{rq: rq, r: r, started: time.Now()}
	w.stage.Store(int32(StageOpen))
	w.timer = time.AfterFunc(d+rq.watchGrace, w.fire)
	return w
}

// enter records that the task reached stage s.
func (w *taskWatch) enter(s TaskStage) { w.stage.Store(int32(s)) }

// fire ends a request whose task outlived its deadline and grace, and
// logs the stall: ids, the operation and the stage only, never the
// statement or anything the engine said.
func (w *taskWatch) fire() {
	stage := TaskStage(w.stage.Load())
	w.stuckAt.Store(int32(stage))
	w.stalled.Store(true)
	r, rq := w.r, w.rq
	rq.host.Log().Warn("task stalled past its deadline", slog.String("request_id", r.id), slog.String("session_id", r.sessionID),
		slog.String("operation", string(r.operation)), slog.String("stage", stage.String()),
		slog.Duration("elapsed", time.Since(w.started).Round(time.Millisecond)))
	rq.mu.Lock()
	defer rq.mu.Unlock()
	if r.status != StatusRunning {
		return
	}
	if r.write {
		rq.finishLocked(r, StatusOutcomeUnknown, CodeOutcomeUnknown, messages[CodeOutcomeUnknown])
	} else {
		rq.finishLocked(r, StatusCancelled, CodeCancelled, messages[CodeCancelled])
	}
}

// stop ends the watch once the task returned. A task that had stalled
// logs that it ended, and where it had been stuck, as its slot is about
// to be released.
func (w *taskWatch) stop() {
	if w.timer.Stop() || !w.stalled.Load() {
		return
	}
	w.rq.host.Log().Warn("stalled task ended", slog.String("request_id", w.r.id), slog.String("session_id", w.r.sessionID),
		slog.String("operation", string(w.r.operation)), slog.String("stage", TaskStage(w.stuckAt.Load()).String()),
		slog.Duration("elapsed", time.Since(w.started).Round(time.Millisecond)))
}
