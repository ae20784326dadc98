// Package conformancecmd is the command line of the differential harness,
// shared by `dbeast conformance` (servers given by DSN, and the embedded
// SQLite) and cmd/dbeast-matrix (the same, plus the container version
// matrix for a server engine without a DSN). It lives under cmd/ because
// flags are read only there, and it imports no container code: the
// matrix is handed in as a Matrix function, so the dbeast binary does not
// link testcontainers.
package conformancecmd

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/dbeast/dbeast/conformance"
	"github.com/dbeast/dbeast/verifier/dialect"
)

// Matrix runs check once per server of engine's container version
// matrix, with each server's DSN and image, and returns the first error.
// Main calls it for a server engine that has no DSN.
type Matrix func(ctx context.Context, engine string, stderr io.Writer, check func(dsn, image string) error) error

// Report is the --report file: the run's parameters and one
// summary per engine.
type Report struct {
	Seed    int64                  `json:"seed"`
	Cases   int                    `json:"generated_cases"`
	Workers int                    `json:"workers"`
	Corpus  bool                   `json:"corpus"`
	Engines []*conformance.Summary `json:"engines"`
}

// DSNEnv names the environment variable each server engine's DSN comes
// from when --dsn is not given.
var DSNEnv = map[string]string{"postgres": "DBEAST_TEST_POSTGRES_DSN", "mysql": "DBEAST_TEST_MYSQL_DSN"}

// Main parses args and runs the harness; name prefixes its messages
// ("dbeast conformance", "dbeast-matrix") and matrix, when not nil,
// checks a server engine that has no DSN (nil: such an engine is a usage
// error, never a pass). Exit status: 0 no disagreements, 1
// disagreements, 2 usage or connection errors.
func Main(ctx context.Context, name string, matrix Matrix, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	engineFlag := fs.String("engine", "sqlite", "engines to check, comma-separated: postgres, mysql, sqlite (or all)")
	dsn := fs.String("dsn", "", "DSN of the server engine (default: $DBEAST_TEST_POSTGRES_DSN or $DBEAST_TEST_MYSQL_DSN); only with one server engine")
	cases := fs.Int("cases", 2000, "generated cases per engine")
	seed := fs.Int64("seed", 1, "generator seed; the same seed gives the same cases")
	useCorpus := fs.Bool("corpus", true, "also run the read cases of corpus/<dialect>")
	duration := fs.Duration("duration", 0, "stop each engine after this long (0: run all cases)")
	shrink := fs.Bool("shrink", true, "shrink failing generated cases to a minimal SQL")
	report := fs.String("report", "", "write a JSON report with every disagreement's artifact to this file")
	regressions := fs.String("regressions", "conformance/testdata/regressions", "append shrunk disagreements as corpus cases to <dir>/<dialect>.txt (empty: do not write)")
	workers := fs.Int("workers", 1, "parallel workers per engine, each on its own connections to the one fixture")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the run to this file (for profiling the harness)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *workers < 1 {
		fmt.Fprintf(stderr, "%s: --workers must be at least 1\n", name)
		return 2
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintf(stderr, "%s: cpuprofile: %v\n", name, err)
			return 2
		}
		defer f.Close()
		defer pprof.StopCPUProfile()
	}
	names := strings.Split(*engineFlag, ",")
	if *engineFlag == "all" {
		names = []string{"sqlite", "postgres", "mysql"}
	}
	servers := 0
	for _, n := range names {
		switch n {
		case "sqlite":
		case "postgres", "mysql":
			servers++
		default:
			fmt.Fprintf(stderr, "%s: unknown engine %q (want postgres, mysql or sqlite)\n", name, n)
			return 2
		}
	}
	if *dsn != "" && servers != 1 {
		fmt.Fprintf(stderr, "%s: --dsn needs exactly one of postgres or mysql in --engine\n", name)
		return 2
	}
	rep := Report{Seed: *seed, Cases: *cases, Workers: *workers, Corpus: *useCorpus}
	status := 0
	opts := runOpts{workers: *workers, cases: *cases, seed: *seed, corpus: *useCorpus, duration: *duration, shrink: *shrink, regressions: *regressions}
	emit := func(s *conformance.Summary) {
		rep.Engines = append(rep.Engines, s)
		PrintSummary(stdout, s)
		if len(s.Disagreements) > 0 {
			status = 1
		}
	}
	for _, n := range names {
		if err := runEngine(ctx, n, *dsn, matrix, opts, stderr, emit); err != nil {
			fmt.Fprintf(stderr, "%s: %s: %v\n", name, n, err)
			return 2
		}
	}
	if *report != "" {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err == nil {
			err = os.WriteFile(*report, append(b, '\n'), 0o644)
		}
		if err != nil {
			fmt.Fprintf(stderr, "%s: report: %v\n", name, err)
			return 2
		}
	}
	return status
}

// runOpts are the flags that shape one engine's run.
type runOpts struct {
	workers     int
	cases       int
	seed        int64
	corpus      bool
	duration    time.Duration
	shrink      bool
	regressions string
}

// runEngine runs one engine and hands every summary to emit as soon as
// it is complete: one for SQLite or a server given by DSN, one per
// version of the container matrix otherwise. Without a DSN and without a
// matrix it fails, naming the variable: a missing server is never a pass.
func runEngine(ctx context.Context, name, dsn string, matrix Matrix, o runOpts, stderr io.Writer, emit func(*conformance.Summary)) error {
	if name == "sqlite" {
		return runTarget(ctx, name, "", "", o, stderr, emit)
	}
	if dsn == "" {
		dsn = os.Getenv(DSNEnv[name])
	}
	if dsn != "" {
		return runTarget(ctx, name, dsn, "", o, stderr, emit)
	}
	if matrix == nil {
		return fmt.Errorf("no DSN, so nothing was checked: pass --dsn or set %s (dbeast-matrix checks the container version matrix with Docker)", DSNEnv[name])
	}
	return matrix(ctx, name, stderr, func(dsn, image string) error {
		return runTarget(ctx, name, dsn, image, o, stderr, emit)
	})
}

// runTarget checks one server (or the embedded SQLite) and emits its
// summary, also when the run stopped early with an error.
func runTarget(ctx context.Context, name, dsn, image string, o runOpts, stderr io.Writer, emit func(*conformance.Summary)) error {
	octx, cancel := context.WithTimeout(ctx, conformance.OpenTimeout)
	var (
		e   conformance.Engine
		err error
	)
	switch name {
	case "sqlite":
		e, err = conformance.OpenSQLite(octx)
	case "postgres":
		e, err = conformance.OpenPostgres(octx, dsn)
	case "mysql":
		e, err = conformance.OpenMySQL(octx, dsn)
	}
	if err != nil {
		cancel()
		return err
	}
	defer e.Close()
	// More workers share the fixture e created (and the lock e holds).
	var workers []conformance.Engine
	defer func() {
		for _, w := range workers {
			w.Close()
		}
	}()
	for len(workers) < o.workers-1 {
		w, err := e.Worker(octx)
		if err != nil {
			cancel()
			return err
		}
		workers = append(workers, w)
	}
	cancel()
	var cs []conformance.Case
	if o.corpus {
		if cs, err = conformance.CorpusCases(e); err != nil {
			return err
		}
	}
	// Generated cases are drawn as the run goes, not up front.
	src := conformance.Concat(conformance.SliceSource(cs), conformance.GeneratedSource(e, o.seed, o.cases))
	total := len(cs) + o.cases
	fmt.Fprintf(stderr, "%s %s: %d cases, %d workers\n", e.Name(), e.Version(), total, o.workers)
	rctx := ctx
	if o.duration > 0 {
		var cancel context.CancelFunc
		rctx, cancel = context.WithTimeout(ctx, o.duration)
		defer cancel()
	}
	r := &conformance.Runner{Engine: e, Workers: workers, Verify: dialect.Verify, Shrink: o.shrink, Progress: stderr}
	s, err := r.RunSource(rctx, src, total)
	if err != nil && errors.Is(rctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		// --duration ended the run; the case in flight may fail with the
		// driver's own error (go-sql-driver: "bad connection"), not the
		// context's.
		err = nil
	}
	if s != nil {
		s.Image = image
		emit(s)
	}
	if o.regressions != "" && s != nil && len(s.Disagreements) > 0 {
		added, werr := conformance.WriteRegressions(o.regressions, string(e.Dialect()), e.Name(), s.Disagreements)
		if werr != nil {
			return werr
		}
		fmt.Fprintf(stderr, "%s: %d regression cases added under %s\n", e.Name(), added, o.regressions)
	}
	return err
}

// PrintSummary writes one engine's summary line and its disagreements,
// each with its minimal SQL.
func PrintSummary(w io.Writer, s *conformance.Summary) {
	image := ""
	if s.Image != "" {
		image = " (container " + s.Image + ")"
	}
	fmt.Fprintf(w, "%s %s%s: %d cases in %.1fs (%.0f cases/s): %d accepted, %d refused, %d accepted but failed on the fixture, %d over-refusals, %d disagreements\n",
		s.Engine, s.Version, image, s.Cases, s.Seconds, s.CasesPerSecond, s.Accepted, s.Refused, s.ServerErrors, s.OverRefusals, len(s.Disagreements))
	for _, d := range s.Disagreements {
		sql := d.ShrunkSQL
		if sql == "" {
			sql = d.Case.SQL
		}
		detail := ""
		if len(d.Problems) > 0 {
			detail = d.Problems[0].Detail
		}
		fmt.Fprintf(w, "  %s [%s] %s\n    minimal SQL: %q\n", d.Case.Name, d.Kind, detail, sql)
	}
}
