package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dbeast/dbeast/broker"
	"github.com/dbeast/dbeast/fuzz"
	"github.com/dbeast/dbeast/internal/shop"
	"github.com/dbeast/dbeast/verifier"
)

// childProcess is a dbeast command running in its own process.
type childProcess struct {
	cmd    *exec.Cmd
	stderr *syncBuffer
	done   chan struct{} // closed once the process has exited
	state  atomic.Pointer[os.ProcessState]
}

// startChild re-executes the test binary as `dbeast args…`.
func startChild(t *testing.T, stdin io.Reader, args ...string) (*childProcess, io.Reader) {
	t.Helper()
	// The child runs main in its own process (its own C stacks and exit
	// status) through TestMain (runMainEnv), without a separate build.
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), runMainEnv+"=1")
	cmd.Stdin = stdin
	c := &childProcess{cmd: cmd, stderr: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stderr = c.stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		cmd.Wait()
		c.state.Store(cmd.ProcessState)
		close(c.done)
	}()
	t.Cleanup(func() {
		select {
		case <-c.done:
		default:
			cmd.Process.Signal(os.Interrupt)
			select {
			case <-c.done:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				<-c.done
			}
		}
	})
	return c, out
}

// exited reports whether the process has ended, and how.
func (c *childProcess) exited() (string, bool) {
	select {
	case <-c.done:
		st := c.state.Load()
		tail := c.stderr.String()
		if i := strings.Index(tail, "\ngoroutine "); i >= 0 {
			tail = tail[:i] // the signal line and the crashing stack's head
		}
		if len(tail) > 2000 {
			tail = tail[:2000]
		}
		return fmt.Sprintf("the process exited (%v); stderr:\n%s", st, tail), true
	default:
		return "", false
	}
}

// deepAll (DBEAST_TEST_DEEP_ALL=1) runs the deep-input tests at every
// size and in every mode; make test runs the quick form.
var deepAll = os.Getenv("DBEAST_TEST_DEEP_ALL") != ""

// deepSizes are the sizes a family is sent at: the largest that fits the
// 64 KiB limit always; with DBEAST_TEST_DEEP_ALL=1, every power of two
// from 64 up to it as well.
func deepSizes(max int) []int {
	if !deepAll {
		return []int{max}
	}
	var out []int
	for n := 64; n < max; n *= 2 {
		out = append(out, n)
	}
	return append(out, max)
}

// deepSource is one engine's source for the deep-input test.
type deepSource struct {
	dialect verifier.Dialect
	body    map[string]any // POST /api/sources
	table   string
}

// deepSources are the SQLite demo database and, when their DSNs are set,
// the test PostgreSQL and MariaDB/MySQL servers.
func deepSources(t *testing.T) []deepSource {
	db := filepath.Join(t.TempDir(), "shop.db")
	if _, err := shop.Ensure(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	out := []deepSource{{verifier.SQLite, map[string]any{"kind": "sqlite", "path": db}, "main.products"}}
	if dsn := os.Getenv("DBEAST_TEST_POSTGRES_DSN"); dsn != "" {
		out = append(out, deepSource{verifier.Postgres, map[string]any{"kind": "postgres", "dsn": dsn}, "public.t"})
	} else {
		t.Log("DBEAST_TEST_POSTGRES_DSN is not set: PostgreSQL is not covered")
	}
	if dsn := os.Getenv("DBEAST_TEST_MYSQL_DSN"); dsn != "" {
		_, rest, _ := strings.Cut(dsn, "/")
		name, _, _ := strings.Cut(rest, "?")
		out = append(out, deepSource{verifier.MySQL, map[string]any{"kind": "mysql", "dsn": dsn}, name + ".t"})
	} else {
		t.Log("DBEAST_TEST_MYSQL_DSN is not set: MySQL/MariaDB is not covered")
	}
	return out
}

// staticRefusal are the verifier messages a deep family near the input
// limit may be refused with: the depth bound, or the size limit.
var staticRefusal = refusalMessages{
	verifier.Refuse(verifier.CodeTooDeep).Message,
	verifier.Refuse(verifier.CodeInputTooLarge).Message,
}

// refusalMessages are static refusal messages; an answer may add the
// construct and byte offset after ": " (verifier.Annotate).
type refusalMessages []string

// has reports whether msg is one of the messages, annotated or not.
func (ms refusalMessages) has(msg string) bool {
	for _, m := range ms {
		if msg == m || strings.HasPrefix(msg, m+": ") {
			return true
		}
	}
	return false
}

// TestDeepInputsDoNotKillServe sends every deep and long SQL family of
// package fuzz, at the largest size under the 64 KiB limit (every power
// of two too with DBEAST_TEST_DEEP_ALL=1), through a running `dbeast
// serve` process as query_sql (and as request_sql: two families, every
// deep one with DBEAST_TEST_DEEP_ALL=1), on SQLite, PostgreSQL and
// MariaDB sources. A deep family past the bound (each element adds at
// least a level) must be refused with the static too_deep
// (or size) message; a flat one may be anything but a crash; and the
// process must still be up and answering after each. Before the
// pre-parse bound, PostgreSQL's first 24,000-operator chain killed the
// process with SIGSEGV inside pg_query.
func TestDeepInputsDoNotKillServe(t *testing.T) {
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "console-token")
	s := startServeHarness(t, serveOptions{args: stateServeArgs(filepath.Join(dir, "state"), tokenFile, "error"), tokenFile: tokenFile})
	sources := deepSources(t)
	var wg sync.WaitGroup
	for _, src := range sources {
		var created struct {
			SourceID string `json:"source_id"`
		}
		s.console(t, "POST", "/api/sources", src.body, &created)
		// One connection per source: each has its own rate bucket, so the
		// three engines are exercised side by side.
		var nc struct {
			Token        string `json:"token"`
			ConnectionID string `json:"connection_id"`
		}
		s.console(t, "POST", "/api/connections", map[string]any{"label": "deep " + string(src.dialect)}, &nc)
		s.console(t, "PUT", "/api/sharing", broker.SharingEntry{ConnectionID: nc.ConnectionID, SourceID: created.SourceID, DatabaseLevel: broker.LevelAsk}, nil)
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Run(string(src.dialect), func(t *testing.T) {
				sess := s.call(t, nc.Token, "begin_session", map[string]any{"label": "deep inputs"})
				tok, _ := sess.result["session_token"].(string)
				if tok == "" {
					t.Fatalf("begin_session: %+v", sess)
				}
				for _, sh := range fuzz.Shapes {
					if !sh.Applies(src.dialect) {
						continue
					}
					for _, n := range deepSizes(sh.MaxN(src.dialect, src.table)) {
						sql := sh.Build(src.dialect, src.table, n)
						// request_sql verifies in full mode through the same
						// bound; the quick run sends it the first chain and
						// the parentheses, the full run every deep family. A
						// flat family would only queue for approval.
						tools := []string{"query_sql", "request_sql"}
						if !sh.Deep || !deepAll && sh.Name != fuzz.Shapes[0].Name && sh.Name != "parentheses" {
							tools = tools[:1]
						}
						for _, tool := range tools {
							r := s.call(t, nc.Token, tool, map[string]any{"session_token": tok, "source_id": created.SourceID, "sql": sql})
							if sh.Deep && n > verifier.MaxTreeDepth && !staticRefusal.has(r.message) {
								t.Errorf("%s %s n=%d (%d bytes): not refused as too deep: %+v", tool, sh.Name, n, len(sql), r)
							}
							if r.code == "" && r.result == nil {
								t.Errorf("%s %s n=%d: an empty answer", tool, sh.Name, n)
							}
						}
					}
				}
				// Still up: the catalog answers and the session is intact.
				if r := s.call(t, nc.Token, "list_catalog", map[string]any{"session_token": tok}); r.code != "" {
					t.Fatalf("list_catalog after the deep inputs: %+v", r)
				}
			})
		}()
	}
	wg.Wait()
	if msg, ok := s.exited(); ok {
		t.Fatal(msg)
	}
}

// TestDeepInputsDoNotKillVerify sends every deep family at the largest size
// under the limit (every power of two too with DBEAST_TEST_DEEP_ALL=1)
// through `dbeast verify --jsonl`, in read and full mode (table_write
// with DBEAST_TEST_DEEP_ALL=1), per dialect in one process: each line must get a verdict, a deep
// family's a too_deep (or size) rejection, and the process must exit 0.
func TestDeepInputsDoNotKillVerify(t *testing.T) {
	for _, d := range []verifier.Dialect{verifier.Postgres, verifier.MySQL, verifier.SQLite} {
		t.Run(string(d), func(t *testing.T) {
			table := map[verifier.Dialect]string{verifier.Postgres: "public.t", verifier.MySQL: "shop.t", verifier.SQLite: "main.t"}[d]
			var in bytes.Buffer
			var deep []bool // per input line: past the bound, so it must be refused
			enc := json.NewEncoder(&in)
			for _, sh := range fuzz.Shapes {
				if !sh.Applies(d) || !sh.Deep {
					continue // flat families: TestShapesAtTheLimit (package fuzz) and the serve test
				}
				for _, n := range deepSizes(sh.MaxN(d, table)) {
					modes := []verifier.Mode{verifier.ModeRead, verifier.ModeFull}
					if deepAll {
						modes = append(modes, verifier.ModeTableWrite)
					}
					for _, mode := range modes {
						enc.Encode(map[string]string{"sql": sh.Build(d, table, n), "mode": string(mode)})
						deep = append(deep, n > verifier.MaxTreeDepth)
					}
				}
			}
			c, out := startChild(t, &in, "verify", "--dialect", string(d), "--database", "shop", "--jsonl")
			sc := bufio.NewScanner(out)
			sc.Buffer(nil, 1<<20)
			i := 0
			for ; sc.Scan(); i++ {
				var v verdictJSON
				if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
					t.Fatalf("line %d: %v", i, err)
				}
				if i < len(deep) && deep[i] && !(v.Verdict == "reject" && staticRefusal.has(v.Reason)) {
					t.Errorf("input %d: a deep family not refused as too deep: %s %s", i, v.Verdict, v.Code)
				}
			}
			<-c.done
			if msg, _ := c.exited(); !c.state.Load().Success() || i != len(deep) {
				t.Fatalf("%d of %d verdicts; %s", i, len(deep), msg)
			}
		})
	}
}

// TestDeepInputsAtTheBoundFitAQuarterStack runs `dbeast verify` on a
// main thread of 2 MiB, a quarter of the default 8 MiB, with every deep
// family at the largest size the pre-parse bound admits: the deepest
// trees any parser is ever given. Each must get a verdict and the process
// must exit 0, so the bound keeps pg_query's recursion at under a quarter
// of the stack Go's threads have (800 nested subqueries, the costliest
// form, need between 512 KiB and 1 MiB).
func TestDeepInputsAtTheBoundFitAQuarterStack(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("sh is not on PATH; it sets the child's stack limit")
	}
	for _, d := range []verifier.Dialect{verifier.Postgres, verifier.MySQL, verifier.SQLite} {
		t.Run(string(d), func(t *testing.T) {
			table := map[verifier.Dialect]string{verifier.Postgres: "public.t", verifier.MySQL: "shop.t", verifier.SQLite: "main.t"}[d]
			var in bytes.Buffer
			lines := 0
			for _, s := range fuzz.Shapes {
				if !s.Applies(d) || !s.Deep {
					continue
				}
				// The largest n the bound admits (admission shrinks with n).
				lo, hi := 0, s.MaxN(d, table)
				for lo < hi {
					m := (lo + hi + 1) / 2
					if verifier.CheckDepth(d, s.Build(d, table, m)) == nil {
						lo = m
					} else {
						hi = m - 1
					}
				}
				if lo < 100 {
					t.Errorf("%s: the bound admits only n=%d", s.Name, lo)
				}
				for _, mode := range []verifier.Mode{verifier.ModeRead, verifier.ModeFull} {
					b, _ := json.Marshal(map[string]string{"sql": s.Build(d, table, lo), "mode": string(mode)})
					in.Write(append(b, '\n'))
					lines++
				}
			}
			cmd := exec.Command(sh, "-c", `ulimit -s 2048 && exec "$0" "$@"`, os.Args[0], "verify", "--dialect", string(d), "--database", "shop", "--jsonl")
			cmd.Env = append(os.Environ(), runMainEnv+"=1") // TestMain runs main
			cmd.Stdin = &in
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			got := strings.Count(stdout.String(), "\n")
			if err != nil || got != lines {
				head := stderr.String()
				if i := strings.Index(head, "\ngoroutine "); i >= 0 {
					head = head[:i]
				}
				t.Fatalf("%d of %d verdicts, %v; stderr:\n%.2000s", got, lines, err, head)
			}
		})
	}
}
