// Command dbeast-bench is the loopback benchmark and load program behind
// `make load` and `make bench`: it measures, in one run, the latency of the
// same queries through the Go driver on an open connection (DIRECT),
// through dbeast's query_sql over MCP HTTP covered by standing read access,
// and optionally through DBHub's execute_sql (the reference), per engine
// and workload; then it drives 16 agents at their allowed rate against
// dbeast and reports completed reads per second, 429s, limit_exceeded,
// p50/p99 and the broker's RSS before, during and after. It starts its own
// `dbeast serve` on free loopback ports with a fresh state directory, is
// bounded by its flags and stops by itself. It prints a Markdown report.
//
// PostgreSQL and MariaDB are measured when their DSNs are given (by flag or
// DBEAST_TEST_POSTGRES_DSN / DBEAST_TEST_MYSQL_DSN); SQLite always is.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	_ "modernc.org/sqlite"
)

type options struct {
	dbeast        string
	pgDSN, myDSN  string
	samples       int
	repeats       int
	warmup        int
	loadDuration  time.Duration
	agents        int
	agentRate     float64
	settle        time.Duration
	dbhub         string
	out           string
	skipLatency   bool
	skipLoad      bool
	requestPacing time.Duration
	rebegin       bool
	cpuProfile    string
	baseline      string
	baselineName  string
	engines       string
	workload      string
}

func main() {
	var o options
	flag.StringVar(&o.dbeast, "dbeast", "bin/dbeast", "the dbeast binary to start with `serve`")
	flag.StringVar(&o.pgDSN, "pg", os.Getenv("DBEAST_TEST_POSTGRES_DSN"), "PostgreSQL DSN (URL form); empty skips PostgreSQL")
	flag.StringVar(&o.myDSN, "mysql", os.Getenv("DBEAST_TEST_MYSQL_DSN"), "MariaDB/MySQL DSN (go-sql-driver form); empty skips it")
	flag.IntVar(&o.samples, "samples", 60, "measured queries per engine, workload, system and repeat")
	flag.IntVar(&o.repeats, "repeats", 3, "interleaved repeats")
	flag.IntVar(&o.warmup, "warmup", 3, "unmeasured queries before each measured series")
	flag.DurationVar(&o.loadDuration, "duration", 60*time.Second, "length of the 16-agent load")
	flag.IntVar(&o.agents, "agents", 16, "agents in the load")
	flag.Float64Var(&o.agentRate, "rate", 20, "point reads per second each agent sends (the contract's per-client limit)")
	flag.DurationVar(&o.settle, "settle", 30*time.Second, "how long to wait for the broker's RSS to settle after the load")
	flag.StringVar(&o.dbhub, "dbhub", "", "the DBHub executable (node_modules/.bin/dbhub); empty skips DBHub")
	flag.StringVar(&o.out, "out", "", "also write the report to this file")
	flag.BoolVar(&o.skipLatency, "skip-latency", false, "skip the latency comparison")
	flag.BoolVar(&o.skipLoad, "skip-load", false, "skip the 16-agent load")
	flag.DurationVar(&o.requestPacing, "pacing", 50*time.Millisecond, "least time between two query_sql requests of the latency series (one agent; the broker allows a client 20 requests/s)")
	flag.StringVar(&o.cpuProfile, "cpuprofile", "", "run the broker inside this process and write a CPU profile of the latency series to FILE (RSS then includes the bench itself)")
	flag.StringVar(&o.baseline, "baseline", "", "a second dbeast binary (e.g. an older build) measured in the same run as the baseline column")
	flag.StringVar(&o.baselineName, "baseline-name", "the baseline build", "how the report names the baseline")
	flag.StringVar(&o.engines, "engines", "sqlite,postgres,mysql", "engines to measure, comma-separated")
	flag.StringVar(&o.workload, "workload", "", "measure only workloads whose name contains this text")
	flag.BoolVar(&o.rebegin, "rebegin", false, "load agents begin a new session when the request store is full (limit_exceeded) instead of carrying on")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "dbeast-bench:", err)
		os.Exit(1)
	}
}

// engineSetup is one engine under test.
type engineSetup struct {
	name     string
	kind     string
	q        string // table qualifier with the dot
	sourceID string
	direct   runner
	dbhubURL string
	dbhub    *dbhubProc
	// baseSource is the source's id in the baseline broker, if any.
	baseSource string
	// dsn and path are what the source was added with.
	dsn, path string
}

func run(o options) error {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "dbeast-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var report strings.Builder
	w := io.MultiWriter(os.Stdout, &report)
	fmt.Fprintf(w, "# dbeast-bench %s\n\n", time.Now().UTC().Format("2006-01-02 15:04 MST"))
	load1, _, _ := loadavg()
	fmt.Fprintf(w, "Machine: %d CPUs, %s/%s, load average %s at start.\n\n", runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, load1)

	var b *brokerProc
	if o.cpuProfile != "" {
		b, err = startInProcess(dir)
	} else {
		b, err = startBroker(o.dbeast, dir)
	}
	if err != nil {
		return err
	}
	defer b.stop()
	var dbhubs []*dbhubProc
	defer func() {
		for _, d := range dbhubs {
			d.stop()
		}
	}()

	var engs []*engineSetup
	want := map[string]bool{}
	for _, e := range strings.Split(o.engines, ",") {
		want[strings.TrimSpace(e)] = true
	}
	if !want["postgres"] {
		o.pgDSN = ""
	}
	if !want["mysql"] {
		o.myDSN = ""
	}
	// SQLite: a file in the run's directory.
	sqlitePath := filepath.Join(dir, "bench.sqlite")
	sd, err := newSQLDirect("sqlite", "file:"+sqlitePath)
	if err != nil {
		return err
	}
	if err := setupSQL(ctx, sd.db, "main."); err != nil {
		return fmt.Errorf("sqlite: %w", err)
	}
	sid, err := b.addSource("sqlite", "bench sqlite", "", sqlitePath)
	if err != nil {
		return err
	}
	if want["sqlite"] {
		engs = append(engs, &engineSetup{name: "SQLite", kind: "sqlite", q: "main.", sourceID: sid, direct: sd, path: sqlitePath})
	} else {
		defer sd.close()
	}
	if o.pgDSN != "" {
		if err := setupPostgres(ctx, o.pgDSN); err != nil {
			return err
		}
		pd, err := newPGDirect(ctx, o.pgDSN)
		if err != nil {
			return err
		}
		id, err := b.addSource("postgres", "bench postgres", o.pgDSN, "")
		if err != nil {
			return err
		}
		e := &engineSetup{name: "PostgreSQL", kind: "postgres", q: pgSchema + ".", sourceID: id, direct: pd, dsn: o.pgDSN}
		if o.dbhub != "" {
			d, err := startDBHub(o.dbhub, o.pgDSN)
			if err != nil {
				return fmt.Errorf("dbhub (postgres): %w", err)
			}
			dbhubs = append(dbhubs, d)
			e.dbhubURL, e.dbhub = d.url, d
		}
		engs = append(engs, e)
	}
	if o.myDSN != "" {
		cfg, err := mysql.ParseDSN(o.myDSN)
		if err != nil {
			return fmt.Errorf("mysql DSN: %w", err)
		}
		cfg.MultiStatements = false
		md, err := newSQLDirect("mysql", cfg.FormatDSN())
		if err != nil {
			return err
		}
		if err := setupSQL(ctx, md.db, cfg.DBName+"."); err != nil {
			return fmt.Errorf("mysql: %w", err)
		}
		id, err := b.addSource("mysql", "bench mariadb", o.myDSN, "")
		if err != nil {
			return err
		}
		e := &engineSetup{name: "MariaDB", kind: "mysql", q: cfg.DBName + ".", sourceID: id, direct: md, dsn: o.myDSN}
		if o.dbhub != "" {
			d, err := startDBHub(o.dbhub, mysqlURL(cfg))
			if err != nil {
				return fmt.Errorf("dbhub (mariadb): %w", err)
			}
			dbhubs = append(dbhubs, d)
			e.dbhubURL, e.dbhub = d.url, d
		}
		engs = append(engs, e)
	}
	defer func() {
		for _, e := range engs {
			e.direct.close()
		}
	}()
	var sources []string
	for _, e := range engs {
		sources = append(sources, e.sourceID)
	}
	var baseAgent *agent
	if o.baseline != "" {
		bdir := filepath.Join(dir, "baseline")
		if err := os.MkdirAll(bdir, 0o700); err != nil {
			return err
		}
		bb, err := startBroker(o.baseline, bdir)
		if err != nil {
			return fmt.Errorf("baseline broker: %w", err)
		}
		defer bb.stop()
		var ids []string
		for _, e := range engs {
			if e.baseSource, err = bb.addSource(e.kind, "baseline "+e.kind, e.dsn, e.path); err != nil {
				return fmt.Errorf("baseline broker: %w", err)
			}
			ids = append(ids, e.baseSource)
		}
		if baseAgent, err = bb.newAgent("baseline agent", ids); err != nil {
			return fmt.Errorf("baseline broker: %w", err)
		}
	}
	agents := make([]*agent, o.agents)
	for i := range agents {
		if agents[i], err = b.newAgent(fmt.Sprintf("bench agent %d", i+1), sources); err != nil {
			return err
		}
	}

	if !o.skipLatency {
		if o.cpuProfile != "" {
			f, err := os.Create(o.cpuProfile)
			if err != nil {
				return err
			}
			if err := pprof.StartCPUProfile(f); err != nil {
				return err
			}
			err = latency(ctx, w, o, engs, agents, baseAgent)
			pprof.StopCPUProfile()
			f.Close()
			if err != nil {
				return err
			}
		} else if err := latency(ctx, w, o, engs, agents, baseAgent); err != nil {
			return err
		}
	}
	if !o.skipLoad {
		// Every server engine measured: the pools and their locks are
		// what the load exercises, and SQLite has none.
		for _, e := range engs {
			if e.kind == "sqlite" {
				continue
			}
			fmt.Fprintf(w, "\n## %d agents, %s point reads\n\n", o.agents, e.name)
			res := runLoad(ctx, b, agents, e.sourceID, workloads[0].sql(e.q), o.agentRate, o.loadDuration, o.settle, o.rebegin)
			fmt.Fprintln(w, res.String())
		}
	}
	if curveFlags.dir != "" {
		if err := runCurves(ctx, w, o, b, engs, agents); err != nil {
			return err
		}
	}
	l1, l5, _ := loadavg()
	fmt.Fprintf(w, "\nLoad average at the end: %s (1 min), %s (5 min).\n", l1, l5)
	if o.out != "" {
		return os.WriteFile(o.out, []byte(report.String()), 0o644)
	}
	return nil
}

// mysqlURL renders a go-sql-driver config as the URL DBHub takes.
func mysqlURL(c *mysql.Config) string {
	user := c.User
	if c.Passwd != "" {
		user += ":" + c.Passwd
	}
	return "mysql://" + user + "@" + c.Addr + "/" + c.DBName
}

// loadavg returns /proc/loadavg's first three fields.
func loadavg() (string, string, string) {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?", "?", "?"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "?", "?", "?"
	}
	return f[0], f[1], f[2]
}

// series is the samples of one engine, workload and system.
type series map[string][]time.Duration

func latency(ctx context.Context, w io.Writer, o options, engs []*engineSetup, agents []*agent, base *agent) error {
	samples := map[string]series{} // key engine/workload
	key := func(e *engineSetup, wl workload) string { return e.name + "\x00" + wl.name }
	var last time.Time
	pace := func() {
		if d := o.requestPacing - time.Since(last); d > 0 {
			time.Sleep(d)
		}
		last = time.Now()
	}
	for rep := 0; rep < o.repeats; rep++ {
		for _, e := range engs {
			for _, wl := range workloads {
				if !strings.Contains(wl.name, o.workload) {
					continue
				}
				k := key(e, wl)
				if samples[k] == nil {
					samples[k] = series{}
				}
				q := wl.sql(e.q)
				for i := 0; i < o.warmup+o.samples; i++ {
					// DIRECT, dbeast and DBHub in turn, query by query.
					t0 := time.Now()
					n, err := e.direct.run(ctx, q)
					el := time.Since(t0)
					if err == nil {
						err = checkRows(n, wl.rows)
					}
					if err != nil {
						return fmt.Errorf("%s %s DIRECT: %w", e.name, wl.name, err)
					}
					if i >= o.warmup {
						samples[k]["DIRECT"] = append(samples[k]["DIRECT"], el)
					}

					a := agents[0]
					for {
						if err := a.ensure(ctx); err != nil {
							return err
						}
						pace()
						t0 = time.Now()
						out, n, err := a.query(ctx, e.sourceID, q)
						el = time.Since(t0)
						if out == outHTTP429 {
							continue
						}
						if err == nil && out != outCompleted {
							err = fmt.Errorf("outcome %d", out)
						}
						if err == nil {
							err = checkRows(n, wl.rows)
						}
						if err != nil {
							return fmt.Errorf("%s %s dbeast: %w", e.name, wl.name, err)
						}
						break
					}
					if i >= o.warmup {
						samples[k]["dbeast"] = append(samples[k]["dbeast"], el)
					}

					if base != nil {
						for {
							if err := base.ensure(ctx); err != nil {
								return err
							}
							pace()
							t0 = time.Now()
							out, n, err := base.query(ctx, e.baseSource, q)
							el = time.Since(t0)
							if out == outHTTP429 {
								continue
							}
							if err == nil && out != outCompleted {
								err = fmt.Errorf("outcome %d", out)
							}
							if err == nil {
								err = checkRows(n, wl.rows)
							}
							if err != nil {
								return fmt.Errorf("%s %s baseline: %w", e.name, wl.name, err)
							}
							break
						}
						if i >= o.warmup {
							samples[k]["baseline"] = append(samples[k]["baseline"], el)
						}
					}

					if e.dbhubURL != "" {
						t0 = time.Now()
						err := dbhubQuery(ctx, e.dbhubURL, q)
						el = time.Since(t0)
						if err != nil {
							return fmt.Errorf("%s %s DBHub: %w", e.name, wl.name, err)
						}
						if i >= o.warmup {
							samples[k]["DBHub"] = append(samples[k]["DBHub"], el)
						}
					}
				}
			}
		}
	}
	for _, a := range agents {
		a.end(ctx)
	}
	fmt.Fprintf(w, "## Latency: median (p95) in ms, %d samples per cell (%d repeats × %d, interleaved query by query)\n\n", o.repeats*o.samples, o.repeats, o.samples)
	if base != nil {
		fmt.Fprintf(w, "The baseline column is %s, measured in the same run.\n\n", o.baselineName)
	}
	fmt.Fprintln(w, "| engine | workload | DIRECT | dbeast | DBHub | baseline | dbeast/DIRECT | dbeast/DBHub | baseline/DIRECT |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|")
	for _, e := range engs {
		for _, wl := range workloads {
			if !strings.Contains(wl.name, o.workload) {
				continue
			}
			s := samples[key(e, wl)]
			cell := func(sys string) string {
				if len(s[sys]) == 0 {
					return "–"
				}
				return fmt.Sprintf("%.2f (%.2f)", ms(percentile(s[sys], 50)), ms(percentile(s[sys], 95)))
			}
			ratio := func(a, b string) string {
				if len(s[a]) == 0 || len(s[b]) == 0 {
					return "–"
				}
				return fmt.Sprintf("%.1fx", float64(percentile(s[a], 50))/float64(percentile(s[b], 50)))
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", e.name, wl.name, cell("DIRECT"), cell("dbeast"), cell("DBHub"),
				cell("baseline"), ratio("dbeast", "DIRECT"), ratio("dbeast", "DBHub"), ratio("baseline", "DIRECT"))
		}
	}
	return nil
}
