package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/dbeast/dbeast/conformance"
	"github.com/dbeast/dbeast/verifier/dialect"
)

func init() {
	commands["conformance"] = command{
		summary: "differential check of the verifier against live engines",
		run:     runConformance,
	}
}

// conformanceReport is the --report file: the run's parameters and one
// summary per engine.
type conformanceReport struct {
	Seed    int64                  `json:"seed"`
	Cases   int                    `json:"generated_cases"`
	Corpus  bool                   `json:"corpus"`
	Engines []*conformance.Summary `json:"engines"`
}

func runConformance(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return conformanceMain(ctx, args, os.Stdout, os.Stderr)
}

// dsnEnv names the environment variable each server engine's DSN comes
// from when --dsn is not given.
var dsnEnv = map[string]string{"postgres": "DBEAST_TEST_POSTGRES_DSN", "mysql": "DBEAST_TEST_MYSQL_DSN"}

// conformanceMain is runConformance with its context and streams, for
// tests. Exit status: 0 no disagreements, 1 disagreements, 2 usage or
// connection errors.
func conformanceMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("conformance", flag.ContinueOnError)
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
	if err := fs.Parse(args); err != nil {
		return 2
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
			fmt.Fprintf(stderr, "dbeast conformance: unknown engine %q (want postgres, mysql or sqlite)\n", n)
			return 2
		}
	}
	if *dsn != "" && servers != 1 {
		fmt.Fprintln(stderr, "dbeast conformance: --dsn needs exactly one of postgres or mysql in --engine")
		return 2
	}
	rep := conformanceReport{Seed: *seed, Cases: *cases, Corpus: *useCorpus}
	status := 0
	for _, name := range names {
		s, err := conformanceEngine(ctx, name, *dsn, *cases, *seed, *useCorpus, *duration, *shrink, *regressions, stderr)
		if s != nil {
			rep.Engines = append(rep.Engines, s)
			printSummary(stdout, s)
			if len(s.Disagreements) > 0 {
				status = 1
			}
		}
		if err != nil {
			fmt.Fprintf(stderr, "dbeast conformance: %s: %v\n", name, err)
			return 2
		}
	}
	if *report != "" {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err == nil {
			err = os.WriteFile(*report, append(b, '\n'), 0o644)
		}
		if err != nil {
			fmt.Fprintf(stderr, "dbeast conformance: report: %v\n", err)
			return 2
		}
	}
	return status
}

func conformanceEngine(ctx context.Context, name, dsn string, n int, seed int64, useCorpus bool, d time.Duration,
	shrink bool, regressions string, stderr io.Writer) (*conformance.Summary, error) {
	if name != "sqlite" && dsn == "" {
		dsn = os.Getenv(dsnEnv[name])
		if dsn == "" {
			// Starting containers (testcontainers-go) is not built in; see
			// docker/README.md for the compose matrix.
			return nil, fmt.Errorf("no DSN: pass --dsn or set %s", dsnEnv[name])
		}
	}
	octx, cancel := context.WithTimeout(ctx, time.Minute)
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
	cancel()
	if err != nil {
		return nil, err
	}
	defer e.Close()
	var cs []conformance.Case
	if useCorpus {
		if cs, err = conformance.CorpusCases(e); err != nil {
			return nil, err
		}
	}
	cs = append(cs, conformance.GeneratedCases(e, seed, n)...)
	fmt.Fprintf(stderr, "%s %s: %d cases\n", e.Name(), e.Version(), len(cs))
	rctx := ctx
	if d > 0 {
		var cancel context.CancelFunc
		rctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	r := &conformance.Runner{Engine: e, Verify: dialect.Verify, Shrink: shrink, Progress: stderr}
	s, err := r.Run(rctx, cs)
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		err = nil // --duration ended the run
	}
	if regressions != "" && s != nil && len(s.Disagreements) > 0 {
		added, werr := conformance.WriteRegressions(regressions, string(e.Dialect()), e.Name(), s.Disagreements)
		if werr != nil {
			return s, werr
		}
		fmt.Fprintf(stderr, "%s: %d regression cases added under %s\n", e.Name(), added, regressions)
	}
	return s, err
}

func printSummary(w io.Writer, s *conformance.Summary) {
	fmt.Fprintf(w, "%s %s: %d cases in %.1fs (%.0f cases/s): %d accepted, %d refused, %d accepted but failed on the fixture, %d over-refusals, %d disagreements\n",
		s.Engine, s.Version, s.Cases, s.Seconds, s.CasesPerSecond, s.Accepted, s.Refused, s.ServerErrors, s.OverRefusals, len(s.Disagreements))
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
