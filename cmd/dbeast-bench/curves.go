package main

// The -curves mode: how latency and memory grow with the work (issue 32's
// scaling curves). Each curve measures DIRECT, dbeast and, where it has
// the operation, DBHub at a few inputs across its range, interleaved call
// by call like the latency table, draws one PNG per curve and reports the
// medians and a linearity check of every series.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/google/uuid"
)

// curveFlags are the -curves mode's flags, registered here so the mode
// lives in its own files.
var curveFlags struct {
	dir          string
	samples      int
	warmup       int
	agentTime    time.Duration
	agentRate    float64
	tables       string
	mysqlTables  int
	verifyBudget time.Duration
}

func init() {
	flag.StringVar(&curveFlags.dir, "curves", "", "measure the scaling curves and write their PNGs into this directory (with -skip-latency -skip-load for the curves alone)")
	flag.IntVar(&curveFlags.samples, "curve-samples", 9, "measured calls per curve point and system")
	flag.IntVar(&curveFlags.warmup, "curve-warmup", 2, "unmeasured calls before each curve point")
	flag.DurationVar(&curveFlags.agentTime, "curve-agent-time", 3*time.Second, "how long each point of the concurrent-agents curve runs per system")
	flag.Float64Var(&curveFlags.agentRate, "curve-agent-rate", 3, "point reads per second each agent of the concurrent-agents curve sends (16 × 3 stays below the broker's 60/s)")
	flag.StringVar(&curveFlags.tables, "curve-tables", "10,1000,10000", "table counts of the tables curve")
	flag.IntVar(&curveFlags.mysqlTables, "curve-mysql-tables", 1000, "largest table count on MariaDB (each CREATE TABLE there is a file: 10,000 take minutes)")
	flag.DurationVar(&curveFlags.verifyBudget, "curve-verify-time", 400*time.Millisecond, "time spent per point of the verify curve")
}

// curveRunner holds what every curve needs.
type curveRunner struct {
	b      *brokerProc
	agents []*agent
	pacing time.Duration
	last   time.Time // the last dbeast call, for pacing
	start  time.Time // of the curves, for progress
}

// progress tells on stderr how far the curves are: a full run takes
// minutes.
func (r *curveRunner) progress(what string) {
	fmt.Fprintf(os.Stderr, "dbeast-bench: curves: %s done after %s\n", what, time.Since(r.start).Round(time.Second))
}

// pace keeps one agent's dbeast calls below the broker's per-client rate.
func (r *curveRunner) pace() {
	if d := r.pacing - time.Since(r.last); d > 0 {
		time.Sleep(d)
	}
	r.last = time.Now()
}

// probe is one system's call at one curve point; it returns the time of
// the call (a retried 429 not counted) and how many items it answered.
type probe struct {
	sys  string
	want int // rows or entries the answer must have; -1 is not checked
	run  func(ctx context.Context) (time.Duration, int, error)
}

func directProbe(d runner, sql string, want int) probe {
	return probe{sys: "DIRECT", want: want, run: func(ctx context.Context) (time.Duration, int, error) {
		t0 := time.Now()
		n, err := d.run(ctx, sql)
		return time.Since(t0), n, err
	}}
}

// dbeastProbe calls a request tool (query_sql, list_tables) as agent a.
func (r *curveRunner) dbeastProbe(sys string, a *agent, tool string, args map[string]any, want int) probe {
	return probe{sys: sys, want: want, run: func(ctx context.Context) (time.Duration, int, error) {
		for {
			if err := a.ensure(ctx); err != nil {
				return 0, 0, err
			}
			r.pace()
			in := map[string]any{"session_token": a.session, "request_key": uuid.NewString()}
			for k, v := range args {
				in[k] = v
			}
			a.used++
			t0 := time.Now()
			out, n, err := requestCall(ctx, a, tool, in)
			el := time.Since(t0)
			if out == outHTTP429 {
				continue
			}
			if err == nil && out != outCompleted {
				err = fmt.Errorf("%s: outcome %d", tool, out)
			}
			return el, n, err
		}
	}}
}

// catalogProbe calls list_catalog as agent a and counts the tables
// shared in it (or, with sources, the sources).
func (r *curveRunner) catalogProbe(sys string, a *agent, sources bool) probe {
	return probe{sys: sys, want: -1, run: func(ctx context.Context) (time.Duration, int, error) {
		for {
			if err := a.ensure(ctx); err != nil {
				return 0, 0, err
			}
			r.pace()
			t0 := time.Now()
			sc, status, toolErr, err := a.call(ctx, "list_catalog", map[string]any{"session_token": a.session})
			el := time.Since(t0)
			if status == http.StatusTooManyRequests {
				continue
			}
			if err == nil && toolErr != "" {
				err = errors.New("list_catalog: " + toolErr)
			}
			if err != nil {
				return 0, 0, err
			}
			var out struct {
				Sources []struct {
					Tables []json.RawMessage `json:"shared_tables"`
				} `json:"sources"`
			}
			if err := json.Unmarshal(sc, &out); err != nil {
				return 0, 0, err
			}
			if sources {
				return el, len(out.Sources), nil
			}
			n := 0
			for _, s := range out.Sources {
				n += len(s.Tables)
			}
			return el, n, nil
		}
	}}
}

func dbhubProbe(url, tool string, args map[string]any) probe {
	return probe{sys: "DBHub", want: -1, run: func(ctx context.Context) (time.Duration, int, error) {
		t0 := time.Now()
		err := dbhubTool(ctx, url, tool, args)
		return time.Since(t0), 0, err
	}}
}

// requestCall sends one request tool call and follows it with
// get_request until it ends; it returns the outcome and the rows (or
// tables) of a completed answer. It is agent.query for any request tool.
func requestCall(ctx context.Context, a *agent, tool string, args map[string]any) (callOutcome, int, error) {
	sc, status, toolErr, err := a.call(ctx, tool, args)
	for {
		switch {
		case err != nil:
			return outFailed, 0, err
		case status == http.StatusTooManyRequests:
			return outHTTP429, 0, nil
		case strings.Contains(toolErr, "limit_exceeded"):
			return outLimit, 0, nil
		case toolErr != "" || status != http.StatusOK:
			return outFailed, 0, fmt.Errorf("%s: status %d: %s", tool, status, toolErr)
		}
		var out struct {
			ID     string `json:"request_id"`
			Status string `json:"status"`
			Result struct {
				Rows   []json.RawMessage `json:"rows"`
				Tables []json.RawMessage `json:"tables"`
			} `json:"result"`
			Error *struct {
				Code string `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal(sc, &out); err != nil {
			return outFailed, 0, err
		}
		switch out.Status {
		case "completed":
			return outCompleted, len(out.Result.Rows) + len(out.Result.Tables), nil
		case "pending", "running":
		default:
			code := ""
			if out.Error != nil {
				code = out.Error.Code
			}
			return outFailed, 0, fmt.Errorf("%s: status %s %s", tool, out.Status, code)
		}
		select {
		case <-ctx.Done():
			return outFailed, 0, ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
		for {
			sc, status, toolErr, err = a.call(ctx, "get_request", map[string]any{"session_token": a.session, "request_id": out.ID})
			if err != nil || status != http.StatusTooManyRequests {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// dbhubTool calls one DBHub tool and reads the whole answer.
func dbhubTool(ctx context.Context, url, tool string, args map[string]any) error {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": rpcID.Add(1), "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	req, err := http.NewRequestWithContext(ctx, "POST", url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := dbhubClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: status %d", tool, resp.StatusCode)
	}
	if i := bytes.LastIndex(data, []byte("data: ")); i >= 0 {
		data = data[i+len("data: "):]
	}
	var rpc struct {
		Result *struct {
			IsError bool `json:"isError"`
		} `json:"result"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(data), &rpc); err != nil {
		return err
	}
	if rpc.Result == nil || rpc.Result.IsError {
		return errors.New(tool + " failed")
	}
	return nil
}

// rssPeak samples the broker's and DBHub's RSS until stop.
type rssPeak struct {
	mu      sync.Mutex
	broker  int
	dbhub   int
	stopped chan struct{}
	done    chan struct{}
}

func watchRSS(b *brokerProc, d *dbhubProc) *rssPeak {
	p := &rssPeak{stopped: make(chan struct{}), done: make(chan struct{})}
	sample := func() {
		br := b.rssKiB()
		dh := 0
		if d != nil && d.cmd.Process != nil {
			dh = pidRSSKiB(d.cmd.Process.Pid)
		}
		p.mu.Lock()
		p.broker, p.dbhub = max(p.broker, br), max(p.dbhub, dh)
		p.mu.Unlock()
	}
	sample()
	go func() {
		defer close(p.done)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.stopped:
				sample()
				return
			case <-t.C:
				sample()
			}
		}
	}()
	return p
}

// stop ends the sampling and returns the peaks in MiB.
func (p *rssPeak) stop() (broker, dbhub float64) {
	close(p.stopped)
	<-p.done
	return float64(p.broker) / 1024, float64(p.dbhub) / 1024
}

// pidRSSKiB reads a process's resident set size, as brokerProc.rssKiB
// does the broker's.
func pidRSSKiB(pid int) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var n int
			fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), &n)
			return n
		}
	}
	return 0
}

// measure runs the probes warmup+samples times in turn, call by call, and
// adds each system's median (ms) and the peak RSS (MiB) to the panel at x.
func (r *curveRunner) measure(ctx context.Context, p *panel, x float64, d *dbhubProc, probes ...probe) error {
	times := map[string][]time.Duration{}
	w := watchRSS(r.b, d)
	cpu0 := r.cpuNow(d)
	for i := 0; i < curveFlags.warmup+curveFlags.samples; i++ {
		for _, pr := range probes {
			el, n, err := pr.run(ctx)
			if err == nil && pr.want >= 0 {
				err = checkRows(n, pr.want)
			}
			if err != nil {
				w.stop()
				return fmt.Errorf("%s at %g, %s: %w", p.title, x, pr.sys, err)
			}
			if i >= curveFlags.warmup {
				times[pr.sys] = append(times[pr.sys], el)
			}
		}
	}
	br, dh := w.stop()
	cpu1 := r.cpuNow(d)
	calls := float64(curveFlags.warmup + curveFlags.samples)
	for sys, ts := range times {
		p.lat[sys] = append(p.lat[sys], xy{x, ms(percentile(ts, 50))})
		p.low[sys] = append(p.low[sys], xy{x, ms(percentile(ts, 25))})
	}
	// The broker's CPU is spread over the dbeast calls of the point (a
	// curve with two dbeast operations gets their mean).
	dbeastCalls := 0.0
	for _, pr := range probes {
		if strings.HasPrefix(pr.sys, "dbeast") {
			dbeastCalls += calls
		}
	}
	if _, ok := times["dbeast"]; ok {
		p.mem["dbeast"] = append(p.mem["dbeast"], xy{x, br})
		p.cpu["dbeast"] = append(p.cpu["dbeast"], xy{x, ms(cpu1.broker-cpu0.broker) / dbeastCalls})
	}
	if _, ok := times["DBHub"]; ok && dh > 0 {
		p.mem["DBHub"] = append(p.mem["DBHub"], xy{x, dh})
		p.cpu["DBHub"] = append(p.cpu["DBHub"], xy{x, ms(cpu1.dbhub-cpu0.dbhub) / calls})
	}
	return nil
}

// cpuTimes are the broker's and DBHub's CPU time so far.
type cpuTimes struct{ broker, dbhub time.Duration }

func (r *curveRunner) cpuNow(d *dbhubProc) cpuTimes {
	var t cpuTimes
	if r.b.cmd != nil && r.b.cmd.Process != nil {
		t.broker = processCPU(r.b.cmd.Process.Pid)
	}
	if d != nil && d.cmd.Process != nil {
		t.dbhub = processCPU(d.cmd.Process.Pid)
	}
	return t
}

// processCPU sums the CPU time of a process's threads from
// /proc/PID/task/*/schedstat (nanoseconds, where /proc/PID/stat counts
// in 10 ms ticks, too coarse for a 3 ms call). A thread that ended is
// no longer counted; Go and node keep theirs.
func processCPU(pid int) time.Duration {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	if err != nil {
		return 0
	}
	var sum time.Duration
	for _, t := range tasks {
		data, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		var ns int64
		if _, err := fmt.Sscan(string(data), &ns); err == nil {
			sum += time.Duration(ns)
		}
	}
	return sum
}

func newPanel(title string) *panel {
	return &panel{title: title, lat: map[string][]xy{}, mem: map[string][]xy{}, low: map[string][]xy{}, cpu: map[string][]xy{}}
}

// runCurves measures every curve on the engines set up, writes the PNGs
// into curveFlags.dir and reports.
func runCurves(ctx context.Context, w io.Writer, o options, b *brokerProc, engs []*engineSetup, agents []*agent) error {
	if len(agents) < 16 {
		return fmt.Errorf("the curves need 16 agents (-agents 16), have %d", len(agents))
	}
	if err := os.MkdirAll(curveFlags.dir, 0o755); err != nil {
		return err
	}
	var tableCounts []int
	for _, f := range strings.Split(curveFlags.tables, ",") {
		var n int
		if _, err := fmt.Sscan(strings.TrimSpace(f), &n); err != nil || n < 1 {
			return fmt.Errorf("-curve-tables: %q is not a count", f)
		}
		tableCounts = append(tableCounts, n)
	}
	start := time.Now()
	r := &curveRunner{b: b, agents: agents, pacing: o.requestPacing}
	fmt.Fprintf(w, "\n## Scaling curves\n\n")
	fmt.Fprintf(w, "Medians of %d calls per point and system after %d unmeasured, interleaved call by call; memory is the peak RSS during the point. PNGs in `%s`.\n",
		curveFlags.samples, curveFlags.warmup, curveFlags.dir)

	vc, err := verifyCurve(curveFlags.verifyBudget)
	if err != nil {
		return err
	}
	rows := &curve{file: "rows", title: "Latency and memory vs result rows (12 columns of ~30 bytes)",
		xLabel: "rows", latLabel: "median latency (ms)", memLabel: "peak RSS (MiB)", inputName: "rows"}
	width := &curve{file: "width", title: fmt.Sprintf("Latency and memory vs result width (%d rows)", curveWideRows),
		xLabel: "columns", latLabel: "median latency (ms)", memLabel: "peak RSS (MiB)", inputName: "columns"}
	joins := &curve{file: "referenced-tables", title: fmt.Sprintf("Latency and memory vs referenced tables (a join chain, %d rows)", curveJoinRows),
		xLabel: "tables referenced", latLabel: "median latency (ms)", memLabel: "peak RSS (MiB)", inputName: "tables referenced"}
	tables := &curve{file: "tables", title: "Listing vs tables in the database (list_tables; DBHub: search_objects)",
		xLabel: "tables in the database", latLabel: "median latency (ms)", memLabel: "peak RSS (MiB)", inputName: "tables"}
	conc := &curve{file: "agents", title: fmt.Sprintf("Point-read latency vs concurrent agents (%.0f reads/s each)", curveFlags.agentRate),
		xLabel: "concurrent agents", latLabel: "median latency (ms)", memLabel: "peak RSS (MiB)", inputName: "agents"}

	r.start = start
	progress := r.progress
	progress("verify")
	var failed []string
	for _, e := range engs {
		// One engine's failure costs its columns, not the other engines'.
		if err := r.engineCurves(ctx, e, tableCounts, rows, width, joins, tables, conc); err != nil {
			fmt.Fprintln(os.Stderr, "dbeast-bench: curves:", e.name+":", err)
			failed = append(failed, fmt.Sprintf("%s failed: %v", e.name, err))
			continue
		}
		progress(e.name)
	}
	srcs, err := r.sourcesCurve(ctx, engs)
	if err != nil {
		return err
	}
	progress("sources")
	tables.notes = append(tables.notes,
		"list_tables answers at most 500 entries (truncated past that) but reads and sorts them all; DBHub's search_objects answers at most 1,000.",
		"list_catalog lists the tables shared with the agent one by one: min(tables, 1,024) of them, the contract's limit per sharing entry.")
	all := []*curve{vc, rows, width, joins, tables, srcs, conc}
	var flagged []string
	for _, c := range all {
		path, err := c.writePNG(curveFlags.dir)
		if err != nil {
			return err
		}
		flagged = append(flagged, reportCurve(w, c, path)...)
	}
	if len(failed) > 0 {
		fmt.Fprintf(w, "\n### Failed\n\n")
		for _, f := range failed {
			fmt.Fprintf(w, "- %s\n", f)
		}
	}
	fmt.Fprintf(w, "\n### Linearity\n\n")
	if len(flagged) == 0 {
		fmt.Fprintf(w, "No series grows worse than linearly in its input (log-log slope of the upper half ≤ %.2f).\n", 1+growthTolerance)
	} else {
		fmt.Fprintf(w, "Worse than linear (log-log slope of the upper half > %.2f):\n\n", 1+growthTolerance)
		for _, f := range flagged {
			fmt.Fprintf(w, "- %s\n", f)
		}
	}
	fmt.Fprintf(w, "\nThe curves took %s.\n", time.Since(start).Round(time.Second))
	return nil
}

// engineCurves measures one engine's column of the per-engine curves.
func (r *curveRunner) engineCurves(ctx context.Context, e *engineSetup, tableCounts []int, rows, width, joins, tables, conc *curve) error {
	exec, closeExec, err := newCurveExec(e)
	if err != nil {
		return err
	}
	defer closeExec()
	made := 0
	defer func() {
		// The curves' tables go, so other tests and the next run find the
		// database as it was.
		if err := exec(context.Background(), curveDrop(e.q, made)); err != nil {
			fmt.Fprintln(os.Stderr, "dbeast-bench: curve cleanup:", err)
		}
	}()
	if err := exec(ctx, curveWideFixture(e.q)); err != nil {
		return err
	}
	if err := exec(ctx, curveTablesFixture(e.q, 0, curveJoinMax)); err != nil {
		return err
	}
	made = curveJoinMax
	if e.kind == "postgres" {
		// Without statistics PostgreSQL plans the 16-table join for
		// seconds (DIRECT as much as anyone); with them, for about a
		// tenth of a second.
		var an []string
		for i := 1; i <= curveJoinMax; i++ {
			an = append(an, "ANALYZE "+curveTable(e.q, i))
		}
		if err := exec(ctx, [][]string{an}); err != nil {
			return err
		}
	}
	a := r.agents[0]
	var dh *dbhubProc
	if e.dbhubURL != "" {
		dh = e.dbhub
	}
	queryProbes := func(sql string, want int) []probe {
		ps := []probe{directProbe(e.direct, sql, want),
			r.dbeastProbe("dbeast", a, "query_sql", map[string]any{"source_id": e.sourceID, "sql": sql}, want)}
		if e.dbhubURL != "" {
			ps = append(ps, dbhubProbe(e.dbhubURL, "execute_sql", map[string]any{"sql": sql}))
		}
		return ps
	}

	p := newPanel(e.name)
	for _, n := range []int{1, 10, 50, 100, 250, 500} {
		if err := r.measure(ctx, p, float64(n), dh, queryProbes(rowsSQL(e.q, n), n)...); err != nil {
			return fmt.Errorf("rows curve: %w", err)
		}
	}
	rows.panels = append(rows.panels, p)
	r.progress(e.name + " rows")

	p = newPanel(e.name)
	for _, n := range []int{1, 2, 4, 8, 16, 32, 64} {
		if err := r.measure(ctx, p, float64(n), dh, queryProbes(widthSQL(e.q, n), curveWideRows)...); err != nil {
			return fmt.Errorf("width curve: %w", err)
		}
	}
	width.panels = append(width.panels, p)
	r.progress(e.name + " width")

	p = newPanel(e.name)
	for _, n := range []int{1, 2, 4, 8, 16} {
		if err := r.measure(ctx, p, float64(n), dh, queryProbes(joinSQL(e.q, n), curveJoinRows)...); err != nil {
			return fmt.Errorf("referenced-tables curve: %w", err)
		}
	}
	joins.panels = append(joins.panels, p)
	r.progress(e.name + " referenced tables")

	// Agents before the tables curve, which leaves thousands of tables
	// behind until the cleanup.
	p = newPanel(e.name)
	for _, k := range []int{1, 2, 4, 8, 16} {
		if err := r.concurrent(ctx, p, e, dh, k); err != nil {
			return fmt.Errorf("agents curve: %w", err)
		}
	}
	conc.panels = append(conc.panels, p)
	r.progress(e.name + " agents")

	return r.tablesCurve(ctx, e, exec, &made, tableCounts, tables)
}

// tablesCurve grows the schema from one count of tableCounts to the
// next and measures listing at each; x is the number DIRECT's catalog
// query counts (the load fixture's and any other tables in the database
// included). On SQLite the tables go into a file and source of their
// own, thrown away afterwards: SQLite scans its whole schema table to
// create or drop one, so ten thousand tables take minutes to drop.
func (r *curveRunner) tablesCurve(ctx context.Context, e *engineSetup, exec curveExec, made *int, tableCounts []int, tables *curve) error {
	a, cat := r.agents[0], r.agents[1]
	var dh *dbhubProc
	if e.dbhubURL != "" {
		dh = e.dbhub
	}
	if e.kind == "sqlite" {
		dir, err := os.MkdirTemp("", "dbeast-curves-tables-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		path := filepath.Join(dir, "tables.sqlite")
		d, err := newSQLDirect("sqlite", "file:"+path)
		if err != nil {
			return err
		}
		defer d.close()
		id, err := r.b.addSource("sqlite", "curves tables", "", path)
		if err != nil {
			return err
		}
		defer r.b.api("DELETE", "/sources/"+id, nil, nil)
		for _, ag := range []*agent{a, cat} {
			if err := r.b.api("PUT", "/sharing", map[string]any{"connection_id": ag.id, "source_id": id, "database_level": "read", "tables": []any{}}, nil); err != nil {
				return err
			}
		}
		e = &engineSetup{name: e.name, kind: e.kind, q: e.q, sourceID: id, direct: d, path: path}
		if exec, _, err = newCurveExec(e); err != nil {
			return err
		}
		n := 0
		made = &n
	}
	p := newPanel(e.name)
	for _, n := range tableCounts {
		if e.kind == "mysql" && n > curveFlags.mysqlTables {
			tables.notes = append(tables.notes, fmt.Sprintf("%s measured up to %d tables (-curve-mysql-tables).", e.name, curveFlags.mysqlTables))
			break
		}
		if n > *made {
			if err := exec(ctx, curveTablesFixture(e.q, *made, n)); err != nil {
				return err
			}
			*made = n
		}
		count, err := e.direct.run(ctx, listSQL(e))
		if err != nil {
			return fmt.Errorf("tables curve: %w", err)
		}
		var shares []map[string]string
		schema := strings.TrimSuffix(e.q, ".")
		for i := 1; i <= min(n, 1024); i++ {
			shares = append(shares, map[string]string{"schema": schema, "name": fmt.Sprintf(curveTableName, i), "access": "read"})
		}
		if err := r.b.api("PUT", "/sharing", map[string]any{"connection_id": cat.id, "source_id": e.sourceID, "database_level": "none", "tables": shares}, nil); err != nil {
			return fmt.Errorf("tables curve: %w", err)
		}
		ps := []probe{directProbe(e.direct, listSQL(e), count),
			r.dbeastProbe("dbeast", a, "list_tables", map[string]any{"source_id": e.sourceID}, min(count, 500)),
			r.catalogProbe("dbeast list_catalog", cat, false)}
		if e.dbhubURL != "" {
			ps = append(ps, dbhubProbe(e.dbhubURL, "search_objects", map[string]any{"object_type": "table", "schema": schema, "detail_level": "names", "limit": 1000}))
		}
		r.progress(fmt.Sprintf("%s %d tables made", e.name, count))
		if err := r.measure(ctx, p, float64(count), dh, ps...); err != nil {
			return fmt.Errorf("tables curve: %w", err)
		}
		r.progress(fmt.Sprintf("%s %d tables", e.name, count))
	}
	// The catalog agent's access back as the others have it.
	if err := r.b.api("PUT", "/sharing", map[string]any{"connection_id": cat.id, "source_id": e.sourceID, "database_level": "read", "tables": []any{}}, nil); err != nil {
		return err
	}
	tables.panels = append(tables.panels, p)
	return nil
}

// concurrent runs k agents at curveFlags.agentRate point reads per second
// for curveFlags.agentTime per system: k DIRECT connections, k dbeast
// agents, k DBHub clients, one system after the other.
func (r *curveRunner) concurrent(ctx context.Context, p *panel, e *engineSetup, dh *dbhubProc, k int) error {
	sql := workloads[0].sql(e.q)
	type sysRun struct {
		sys string
		run func(ctx context.Context, i int) (time.Duration, bool, error) // i: the client; false: not completed (429)
	}
	directs := make([]runner, k)
	for i := range directs {
		d, err := openDirect(ctx, e)
		if err != nil {
			return err
		}
		defer d.close()
		directs[i] = d
	}
	runs := []sysRun{
		{"DIRECT", func(ctx context.Context, i int) (time.Duration, bool, error) {
			t0 := time.Now()
			_, err := directs[i].run(ctx, sql)
			return time.Since(t0), true, err
		}},
		{"dbeast", func(ctx context.Context, i int) (time.Duration, bool, error) {
			a := r.agents[i]
			if err := a.ensure(ctx); err != nil {
				return 0, false, err
			}
			t0 := time.Now()
			out, _, err := a.query(ctx, e.sourceID, sql)
			el := time.Since(t0)
			if out == outHTTP429 {
				return el, false, nil
			}
			if err == nil && out != outCompleted {
				err = fmt.Errorf("outcome %d", out)
			}
			return el, true, err
		}},
	}
	if e.dbhubURL != "" {
		runs = append(runs, sysRun{"DBHub", func(ctx context.Context, i int) (time.Duration, bool, error) {
			t0 := time.Now()
			err := dbhubQuery(ctx, e.dbhubURL, sql)
			return time.Since(t0), true, err
		}})
	}
	for _, s := range runs {
		var mu sync.Mutex
		var lat []time.Duration
		var firstErr error
		w := watchRSS(r.b, dh)
		cpu0 := r.cpuNow(dh)
		calls := 0
		var wg sync.WaitGroup
		deadline := time.Now().Add(curveFlags.agentTime)
		for i := 0; i < k; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				tick := time.NewTicker(time.Duration(float64(time.Second) / curveFlags.agentRate))
				defer tick.Stop()
				for time.Now().Before(deadline) {
					el, ok, err := s.run(ctx, i)
					mu.Lock()
					if err != nil && firstErr == nil {
						firstErr = err
					}
					if ok && err == nil {
						lat = append(lat, el)
					}
					calls++
					mu.Unlock()
					<-tick.C
				}
			}(i)
		}
		wg.Wait()
		br, dhm := w.stop()
		cpu1 := r.cpuNow(dh)
		if firstErr != nil {
			return fmt.Errorf("%s with %d agents: %w", s.sys, k, firstErr)
		}
		if len(lat) == 0 {
			return fmt.Errorf("%s with %d agents: no read completed", s.sys, k)
		}
		p.lat[s.sys] = append(p.lat[s.sys], xy{float64(k), ms(percentile(lat, 50))})
		p.low[s.sys] = append(p.low[s.sys], xy{float64(k), ms(percentile(lat, 25))})
		switch s.sys {
		case "dbeast":
			p.mem["dbeast"] = append(p.mem["dbeast"], xy{float64(k), br})
			p.cpu["dbeast"] = append(p.cpu["dbeast"], xy{float64(k), ms(cpu1.broker-cpu0.broker) / float64(calls)})
		case "DBHub":
			if dhm > 0 {
				p.mem["DBHub"] = append(p.mem["DBHub"], xy{float64(k), dhm})
				p.cpu["DBHub"] = append(p.cpu["DBHub"], xy{float64(k), ms(cpu1.dbhub-cpu0.dbhub) / float64(calls)})
			}
		}
	}
	return nil
}

// openDirect opens one more DIRECT connection to e.
func openDirect(ctx context.Context, e *engineSetup) (runner, error) {
	switch e.kind {
	case "postgres":
		return newPGDirect(ctx, e.dsn)
	case "mysql":
		cfg, err := mysql.ParseDSN(e.dsn)
		if err != nil {
			return nil, err
		}
		cfg.MultiStatements = false
		return newSQLDirect("mysql", cfg.FormatDSN())
	default:
		return newSQLDirect("sqlite", "file:"+e.path)
	}
}

// sourcesCurve adds SQLite sources up to the contract's 128 and measures,
// at each count, a point read on the first engine (dbeast and DIRECT)
// and list_catalog. The 16 agent connections exist throughout (the
// contract's limit); the agents curve is the one where they are busy.
func (r *curveRunner) sourcesCurve(ctx context.Context, engs []*engineSetup) (*curve, error) {
	e := engs[0]
	for _, c := range engs {
		if c.kind == "postgres" {
			e = c
			break
		}
	}
	c := &curve{file: "sources", title: "Latency and memory vs sources (" + e.name + " point read; list_catalog)",
		xLabel: "sources", latLabel: "median latency (ms)", memLabel: "peak RSS (MiB)", inputName: "sources",
		notes: []string{"Every source is shared with the measuring agent at level read, so list_catalog lists them all; the added sources are SQLite files with one table; 16 agent connections (the contract's limit) exist throughout."}}
	p := newPanel(e.name + " source")
	dir, err := os.MkdirTemp("", "dbeast-curves-sources-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	a := r.agents[0]
	_, have, err := r.catalogProbe("", a, true).run(ctx)
	if err != nil {
		return nil, err
	}
	sql := workloads[0].sql(e.q)
	for _, target := range []int{1, 2, 4, 8, 16, 32, 64, 128} {
		if target < have {
			continue
		}
		for have < target {
			path := filepath.Join(dir, fmt.Sprintf("s%03d.sqlite", have))
			d, err := newSQLDirect("sqlite", "file:"+path)
			if err != nil {
				return nil, err
			}
			_, err = d.db.ExecContext(ctx, "CREATE TABLE t (id INT)")
			d.close()
			if err != nil {
				return nil, err
			}
			id, err := r.b.addSource("sqlite", fmt.Sprintf("curve source %d", have+1), "", path)
			if err != nil {
				return nil, fmt.Errorf("sources curve: %w", err)
			}
			if err := r.b.api("PUT", "/sharing", map[string]any{"connection_id": a.id, "source_id": id, "database_level": "read", "tables": []any{}}, nil); err != nil {
				return nil, err
			}
			have++
		}
		if err := r.measure(ctx, p, float64(have), nil,
			directProbe(e.direct, sql, 1),
			r.dbeastProbe("dbeast", a, "query_sql", map[string]any{"source_id": e.sourceID, "sql": sql}, 1),
			r.catalogProbe("dbeast list_catalog", a, true)); err != nil {
			return nil, fmt.Errorf("sources curve: %w", err)
		}
	}
	c.panels = []*panel{p}
	return c, nil
}

// reportCurve prints a curve's medians and its series' linearity, and
// returns the series that grow worse than linearly.
func reportCurve(w io.Writer, c *curve, path string) []string {
	fmt.Fprintf(w, "\n### %s\n\n![%s](%s)\n\n", c.title, c.title, filepath.Base(path))
	var flagged []string
	for _, p := range c.panels {
		// Columns: each latency series, dbeast's time beyond DIRECT's
		// where the panel has both, each memory series.
		type column struct {
			head  string
			shown []xy // the medians in the table
			check []xy // what the growth check fits
			what  string
		}
		var cols []column
		for _, n := range seriesNames(p.lat) {
			cols = append(cols, column{n, p.lat[n], p.low[n], n})
		}
		if over := overhead(p.lat); over != nil {
			cols = append(cols, column{"dbeast − DIRECT", over, overhead(p.low), "dbeast − DIRECT"})
		}
		for _, n := range seriesNames(p.cpu) {
			cols = append(cols, column{n + " CPU/call (ms)", p.cpu[n], p.cpu[n], n + " CPU per call"})
		}
		for _, n := range seriesNames(p.mem) {
			cols = append(cols, column{n + " " + shortMem(c.memLabel), p.mem[n], p.mem[n], n + " memory"})
		}
		fmt.Fprintf(w, "%s, %s:\n\n| %s |", p.title, c.latLabel, c.inputName)
		for _, col := range cols {
			fmt.Fprintf(w, " %s |", col.head)
		}
		fmt.Fprintf(w, "\n|---|%s\n", strings.Repeat("---|", len(cols)))
		xs := map[float64]bool{}
		for _, pts := range p.lat {
			for _, pt := range pts {
				xs[pt.x] = true
			}
		}
		var sorted []float64
		for x := range xs {
			sorted = append(sorted, x)
		}
		sort.Float64s(sorted)
		at := func(pts []xy, x float64) string {
			for _, pt := range pts {
				if pt.x == x {
					return fmt.Sprintf("%.3g", pt.y)
				}
			}
			return "–"
		}
		for _, x := range sorted {
			fmt.Fprintf(w, "| %s |", label(x))
			for _, col := range cols {
				fmt.Fprintf(w, " %s |", at(col.shown, x))
			}
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "| growth (log-log slope of the upper half; latency: lower quartiles) |")
		for _, col := range cols {
			g := checkGrowth(col.check)
			fmt.Fprintf(w, " %s |", g)
			if g.superLinear {
				flagged = append(flagged, fmt.Sprintf("%s, %s, %s: %s", c.title, p.title, col.what, g))
			}
		}
		fmt.Fprintln(w)
		fmt.Fprintln(w)
	}
	for _, n := range c.notes {
		fmt.Fprintf(w, "%s\n", n)
	}
	return flagged
}

// overhead is dbeast's time beyond DIRECT's at each input both have: the
// broker's own cost, whose growth the check judges apart from the
// database's (PostgreSQL's planner grows faster than linearly in the
// tables a query joins, for DIRECT as much as for dbeast). Nil when the
// panel lacks either series.
func overhead(low map[string][]xy) []xy {
	d, b := low["DIRECT"], low["dbeast"]
	if len(d) == 0 || len(b) == 0 {
		return nil
	}
	var out []xy
	for _, pb := range b {
		for _, pd := range d {
			if pd.x == pb.x {
				out = append(out, xy{pb.x, pb.y - pd.y})
			}
		}
	}
	return out
}

// shortMem names a memory column by its unit.
func shortMem(label string) string {
	if i := strings.Index(label, "("); i >= 0 {
		return strings.TrimSpace(label[:i]) + " " + label[i:]
	}
	return label
}
