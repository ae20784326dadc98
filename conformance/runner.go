package conformance

import (
	"context"
	"fmt"
	"io"
	"reflect"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dbeast/dbeast/verifier"
)

// Runner checks cases against one engine. The zero value is not usable:
// Engine and Verify are required.
type Runner struct {
	Engine Engine
	// Workers are more engines on Engine's fixture (from Engine.Worker):
	// each checks its share of the cases on its own connections, in
	// parallel with Engine. Case i goes to engine i mod (1+len(Workers)).
	Workers []Engine
	Verify  VerifyFunc
	// Shrink enables delta debugging of failing generated cases.
	Shrink bool
	// MaxShrinkChecks bounds the server checks spent shrinking one case;
	// zero means 1000.
	MaxShrinkChecks int
	// Progress, if set, receives a progress line every ProgressEvery.
	Progress io.Writer
	// ProgressEvery is the progress interval; zero means 5 seconds.
	ProgressEvery time.Duration
	// SkipRefused skips trying refused cases on the server (no
	// over-refusal count).
	SkipRefused bool
}

// Summary is the result of a run on one engine.
type Summary struct {
	Engine  string `json:"engine"`
	Version string `json:"version"`
	// Image is the container image the server ran from when the harness
	// started it (containers.RunMatrix); empty for a server given by DSN.
	Image          string         `json:"image,omitempty"`
	Cases          int            `json:"cases"`
	Accepted       int            `json:"accepted"`
	Refused        int            `json:"refused"`
	ServerErrors   int            `json:"server_errors"` // accepted, but the normalized SQL failed on the fixture
	OverRefusals   int            `json:"over_refusals"`
	OverRefusalSQL []string       `json:"over_refusal_examples,omitempty"`
	RefusalCodes   map[string]int `json:"refusal_codes"`
	Disagreements  []Disagreement `json:"disagreements"`
	Seconds        float64        `json:"seconds"`
	CasesPerSecond float64        `json:"cases_per_second"`
}

// untried are the refusal codes whose cases are never tried on the server.
// Past the alias and reference bounds a generated read is a long chain of
// CTEs or joins, and planning it is the cost the bound exists for (past
// the expanded-reference bound, a CTE chain that took MariaDB 10.11 to
// 18.6 GB and the kernel's OOM killer):
// PostgreSQL 15 plans a 2,000-CTE chain for minutes, past statement_timeout
// and pg_terminate_backend, and SQLite's one-second probe passes or times
// out depending on the machine's load, so the over-refusal count of the
// same cases would vary between runs.
var untried = map[verifier.Code]bool{
	verifier.CodeExpressionTooLarge: true, verifier.CodeTooDeep: true, verifier.CodeInputTooLarge: true,
	verifier.CodeTooManyAliases: true, verifier.CodeTooManyReferences: true, verifier.CodeTooManyExpandedReferences: true,
}

// result is the outcome of checking one SQL text.
type result struct {
	verdict  *verifier.Verdict
	refusal  *verifier.Refusal
	obs      *Observation
	problems []Problem
}

// discharger is an Engine that checks a verdict's column-type
// obligations against the server's catalog, as the product's engine does
// before it reads (PostgreSQL).
type discharger interface {
	Discharge(ctx context.Context, v *verifier.Verdict) (bool, error)
}

// flavored is an Engine that knows its server's verifier flavor (MySQL).
type flavored interface{ Flavor() verifier.Flavor }

func (r *Runner) input(sql string, mode verifier.Mode) verifier.Input {
	in := verifier.Input{Dialect: r.Engine.Dialect(), SQL: sql, Mode: mode, Database: r.Engine.Database()}
	if f, ok := r.Engine.(flavored); ok {
		in.Flavor = f.Flavor()
	}
	return in
}

// verify calls the verifier, turning a panic into a verifier error.
func (r *Runner) verify(in verifier.Input) (v *verifier.Verdict, err error) {
	defer func() {
		if p := recover(); p != nil {
			v, err = nil, fmt.Errorf("conformance: verifier panicked: %v", p)
		}
	}()
	return r.Verify(in)
}

// check verifies sql and, when accepted, checks it on the server e.
func (r *Runner) check(ctx context.Context, e Engine, sql string, mode verifier.Mode) (*result, error) {
	res := &result{}
	v, err := r.verify(r.input(sql, mode))
	if err != nil {
		if ref, ok := verifier.AsRefusal(err); ok {
			res.refusal = ref
			return res, nil
		}
		res.problems = append(res.problems, Problem{KindVerifierError, err.Error()})
		return res, nil
	}
	res.verdict = v
	if v.Mode != "" && v.Mode != verifier.ModeRead {
		// The harness checks reads; writes and full SQL are out of scope.
		return res, nil
	}
	v2, err := r.verify(r.input(v.NormalizedSQL, mode))
	switch {
	case err != nil:
		res.problems = append(res.problems, Problem{KindVerdictUnstable, "normalized SQL is refused: " + err.Error()})
	default:
		res.problems = append(res.problems, compareVerdicts(v, v2)...)
	}
	if d, ok := e.(discharger); ok && len(v.ColumnTypes) > 0 {
		met, err := d.Discharge(ctx, v)
		if err != nil {
			return nil, err
		}
		if !met {
			// The engine refuses a read whose type obligations the
			// server's columns do not meet; so does the harness.
			res.verdict, res.refusal = nil, verifier.RefuseCast("")
			return res, nil
		}
	}
	obs, err := e.CheckAccepted(ctx, sql, v)
	if err != nil {
		return nil, err
	}
	res.obs = obs
	res.problems = append(res.problems, obs.Problems...)
	return res, nil
}

func compareVerdicts(a, b *verifier.Verdict) []Problem {
	var out []Problem
	if a.NormalizedSQL != b.NormalizedSQL {
		out = append(out, Problem{KindVerdictUnstable, "normalized text changes on re-verify: " + b.NormalizedSQL})
	}
	if !reflect.DeepEqual(a.TableNames(), b.TableNames()) {
		out = append(out, Problem{KindVerdictUnstable, fmt.Sprintf("tables differ: %v vs %v", a.TableNames(), b.TableNames())})
	}
	if !reflect.DeepEqual(emptyNil(a.Functions), emptyNil(b.Functions)) {
		out = append(out, Problem{KindVerdictUnstable, fmt.Sprintf("functions differ: %v vs %v", a.Functions, b.Functions)})
	}
	if len(a.Columns) != len(b.Columns) || (len(a.Columns) > 0 && !reflect.DeepEqual(a.Columns, b.Columns)) {
		out = append(out, Problem{KindVerdictUnstable, fmt.Sprintf("columns differ: %v vs %v", a.Columns, b.Columns)})
	}
	if a.Op != b.Op {
		out = append(out, Problem{KindVerdictUnstable, "op differs"})
	}
	return out
}

func emptyNil(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

// Run checks every case and returns the summary. It stops early only when
// ctx ends or the engine loses its connection (returned as the error,
// with the summary so far).
func (r *Runner) Run(ctx context.Context, cases []Case) (*Summary, error) {
	return r.RunSource(ctx, SliceSource(cases), len(cases))
}

// indexed is a disagreement or an over-refusal with its case's position,
// for merging the workers' partial summaries in case order.
type indexed[T any] struct {
	i int
	v T
}

// partial is one worker's share of a summary.
type partial struct {
	s            Summary
	disagree     []indexed[Disagreement]
	overRefusals []indexed[string]
	err          error
	errAt        int
}

// RunSource checks the cases src yields (total of them, for progress) on
// Engine and Workers and returns the merged summary: the counts are the
// sums, disagreements and over-refusal examples are in case order, so the
// summary of a complete run does not depend on the number of workers. It
// stops early when ctx ends or an engine loses its connection (the error
// of the earliest such case is returned, with the summary so far).
func (r *Runner) RunSource(ctx context.Context, src CaseSource, total int) (*Summary, error) {
	engines := append([]Engine{r.Engine}, r.Workers...)
	n := len(engines)
	start := time.Now()
	every := r.ProgressEvery
	if every == 0 {
		every = 5 * time.Second
	}
	// One producer draws the cases in order and deals case i to worker
	// i mod n; a worker that fails closes stop, which ends the rest.
	feeds := make([]chan indexed[Case], n)
	for w := range feeds {
		feeds[w] = make(chan indexed[Case], 64)
	}
	stop := make(chan struct{})
	var stopOnce sync.Once
	halt := func() { stopOnce.Do(func() { close(stop) }) }
	go func() {
		defer func() {
			for _, f := range feeds {
				close(f)
			}
		}()
		for i := 0; ; i++ {
			c, ok := src()
			if !ok {
				return
			}
			select {
			case feeds[i%n] <- indexed[Case]{i, c}:
			case <-stop:
				return
			}
		}
	}()
	var done, disagreements atomic.Int64
	parts := make([]*partial, n)
	var wg sync.WaitGroup
	for w := range engines {
		p := &partial{s: Summary{RefusalCodes: map[string]int{}}}
		parts[w] = p
		wg.Add(1)
		go func(e Engine, feed <-chan indexed[Case]) {
			defer wg.Done()
			defer func() {
				if p.err != nil {
					halt()
				}
			}()
			for ic := range feed {
				select {
				case <-stop:
					return
				default:
				}
				if err := ctx.Err(); err != nil {
					p.err, p.errAt = err, ic.i
					return
				}
				before := len(p.disagree)
				if err := r.one(ctx, e, ic.i, ic.v, p); err != nil {
					p.err, p.errAt = err, ic.i
					return
				}
				done.Add(1)
				disagreements.Add(int64(len(p.disagree) - before))
			}
		}(engines[w], feeds[w])
	}
	finished := make(chan struct{})
	if r.Progress != nil {
		go func() {
			t := time.NewTicker(every)
			defer t.Stop()
			for {
				select {
				case <-finished:
					return
				case now := <-t.C:
					el := now.Sub(start).Seconds()
					d := done.Load()
					fmt.Fprintf(r.Progress, "%s: %d/%d cases, %d disagreements, %.0f cases/s\n", r.Engine.Name(), d, total, disagreements.Load(), float64(d)/el)
				}
			}
		}()
	}
	wg.Wait()
	close(finished)
	halt()
	s := &Summary{Engine: r.Engine.Name(), Version: r.Engine.Version(), RefusalCodes: map[string]int{}}
	var runErr error
	errAt := -1
	var dis []indexed[Disagreement]
	var over []indexed[string]
	for _, p := range parts {
		s.Cases += p.s.Cases
		s.Accepted += p.s.Accepted
		s.Refused += p.s.Refused
		s.ServerErrors += p.s.ServerErrors
		s.OverRefusals += p.s.OverRefusals
		for k, v := range p.s.RefusalCodes {
			s.RefusalCodes[k] += v
		}
		dis = append(dis, p.disagree...)
		over = append(over, p.overRefusals...)
		if p.err != nil && (errAt < 0 || p.errAt < errAt) {
			runErr, errAt = p.err, p.errAt
		}
	}
	sort.Slice(dis, func(a, b int) bool { return dis[a].i < dis[b].i })
	sort.Slice(over, func(a, b int) bool { return over[a].i < over[b].i })
	for _, d := range dis {
		s.Disagreements = append(s.Disagreements, d.v)
	}
	for _, o := range over[:min(len(over), maxOverRefusalExamples)] {
		s.OverRefusalSQL = append(s.OverRefusalSQL, o.v)
	}
	s.Seconds = time.Since(start).Seconds()
	if s.Seconds > 0 {
		s.CasesPerSecond = float64(s.Cases) / s.Seconds
	}
	return s, runErr
}

// maxOverRefusalExamples bounds Summary.OverRefusalSQL.
const maxOverRefusalExamples = 20

// one checks case c (the i-th) on e and adds its outcome to p.
func (r *Runner) one(ctx context.Context, e Engine, i int, c Case, p *partial) error {
	s := &p.s
	res, err := r.check(ctx, e, c.SQL, c.Mode)
	if err != nil {
		return fmt.Errorf("conformance: case %s: %w", c.Name, err)
	}
	s.Cases++
	switch {
	case res.refusal != nil:
		s.Refused++
		s.RefusalCodes[string(res.refusal.Code)]++
		// A query refused for its expression growth is not tried: on
		// the server it is the blow-up the refusal prevents (SQLite
		// spends minutes and gigabytes preparing one). Nor is one refused
		// for its depth or size (gen.Deep's): past the bound it is the
		// input that exhausts a parser's stack, which the shared servers
		// should not be made to parse.
		if !r.SkipRefused && (c.Mode == "" || c.Mode == verifier.ModeRead) && !untried[res.refusal.Code] {
			ok, err := e.TryRefused(ctx, c.SQL)
			if err != nil {
				return fmt.Errorf("conformance: case %s: %w", c.Name, err)
			}
			if ok {
				s.OverRefusals++
				if len(p.overRefusals) < maxOverRefusalExamples {
					p.overRefusals = append(p.overRefusals, indexed[string]{i, c.SQL})
				}
			}
		}
	case res.verdict != nil:
		s.Accepted++
		if res.obs != nil && res.obs.NormalizedError != "" {
			s.ServerErrors++
		}
	}
	if len(res.problems) > 0 {
		d := Disagreement{Case: c, Kind: primaryKind(res.problems), Verdict: verdictJSON(res.verdict), Problems: res.problems, Observation: res.obs}
		if r.Shrink && c.Source == FromGenerated {
			shrunk, sv, err := r.shrink(ctx, e, c, d.Kind)
			if err != nil {
				return err
			}
			if shrunk != c.SQL {
				d.ShrunkSQL, d.ShrunkVerdict = shrunk, verdictJSON(sv)
			}
		}
		p.disagree = append(p.disagree, indexed[Disagreement]{i, d})
	}
	return nil
}

// sortedKeys returns the keys of m, sorted.
func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// severity orders kinds from most to least serious: access beyond the
// verdict first, instability of the verdict last.
var severity = []Kind{KindTouchedTable, KindCalledFunction, KindExplainRelation, KindCastObligation, KindWrite, KindOtherAction,
	KindNotOneStatement, KindRowsDiffer, KindVerdictUnstable, KindVerifierError}

// primaryKind is the most serious kind among problems; shrinking keeps it.
func primaryKind(ps []Problem) Kind {
	for _, k := range severity {
		for _, p := range ps {
			if p.Kind == k {
				return k
			}
		}
	}
	return ps[0].Kind
}
