// Package containers starts the conformance harness's server version
// matrix (Matrix: the images of docker/compose.yaml) with testcontainers,
// one container at a time, when a Docker engine is reachable;
// DockerAvailable answers ErrNoDocker quickly when none is.
//
// It is its own package so that only cmd/dbeast-matrix links
// testcontainers (and with it Docker's client, OpenTelemetry and, from
// testcontainers' non-test code, the testing package): the shipped dbeast
// binary checks servers given by DSN only.
package containers

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/testcontainers/testcontainers-go"
	tclog "github.com/testcontainers/testcontainers-go/log"
	tcmysql "github.com/testcontainers/testcontainers-go/modules/mysql"
	tcpostgres "github.com/testcontainers/testcontainers-go/modules/postgres"
	"github.com/testcontainers/testcontainers-go/wait"
)

// MatrixImage is one server version of the container matrix: the engine
// name the harness knows it by (postgres or mysql; MariaDB is a mysql
// engine) and the Docker image with its tag.
type MatrixImage struct {
	Engine string
	Image  string
}

// Matrix is the server version matrix, the same images and tags as
// docker/compose.yaml (a test pins that the two agree): PostgreSQL 13–17,
// MySQL 8.0 and 8.4, MariaDB 10.11 and 11.4.
var Matrix = []MatrixImage{
	{"postgres", "postgres:13"},
	{"postgres", "postgres:14"},
	{"postgres", "postgres:15"},
	{"postgres", "postgres:16"},
	{"postgres", "postgres:17"},
	{"mysql", "mysql:8.0"},
	{"mysql", "mysql:8.4"},
	{"mysql", "mariadb:10.11"},
	{"mysql", "mariadb:11.4"},
}

// MatrixFor returns the matrix images of one engine, in matrix order; nil
// for an engine without containers (sqlite, or an unknown name).
func MatrixFor(engine string) []MatrixImage {
	var out []MatrixImage
	for _, m := range Matrix {
		if m.Engine == engine {
			out = append(out, m)
		}
	}
	return out
}

// ErrNoDocker means no Docker engine answered: there is no socket or
// DOCKER_HOST, the daemon is down, or it did not answer within the
// timeout. The container matrix cannot run; the caller must say so and
// fail, never pass silently.
var ErrNoDocker = errors.New("containers: no Docker engine reachable")

// DefaultDockerTimeout bounds DockerAvailable when its timeout is zero.
const DefaultDockerTimeout = 5 * time.Second

// quiet is testcontainers' logger for everything the harness starts: its
// default logger writes every step of pulling and starting to stderr,
// which would interleave with the harness's own progress lines.
var quiet = tclog.NewNoopLogger()

var silenceOnce sync.Once

// silence also replaces testcontainers' process-wide default logger: some
// of its paths (the Docker info banner, the reaper, wait strategies) log
// through it regardless of the per-request logger. The dbeast binary has
// no other testcontainers user.
func silence() { silenceOnce.Do(func() { tclog.SetDefault(quiet) }) }

// DockerAvailable reports whether a Docker engine answers, using
// testcontainers' own provider discovery and health check (the Info
// endpoint). It returns nil or an error wrapping ErrNoDocker, within
// timeout (zero: DefaultDockerTimeout) even if discovery itself blocks:
// testcontainers resolves the host with a background context, so the
// check runs in its own goroutine and is abandoned at the deadline. It
// never creates a container, so the Ryuk reaper is not started.
func DockerAvailable(ctx context.Context, timeout time.Duration) error {
	silence()
	if timeout <= 0 {
		timeout = DefaultDockerTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				// Host discovery panics in some testcontainers paths
				// (Must* helpers) when no host exists.
				done <- fmt.Errorf("%w: docker discovery panicked", ErrNoDocker)
			}
		}()
		p, err := testcontainers.NewDockerProvider(testcontainers.WithLogger(quiet))
		if err != nil {
			done <- fmt.Errorf("%w: %s", ErrNoDocker, oneLine(err))
			return
		}
		// Health closes the provider.
		if err := p.Health(ctx); err != nil {
			done <- fmt.Errorf("%w: %s", ErrNoDocker, oneLine(err))
			return
		}
		done <- nil
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return fmt.Errorf("%w: no answer within %s", ErrNoDocker, timeout)
	}
}

// oneLine joins the lines of a discovery error (testcontainers joins one
// error per place it looked) so the reason stays one line on stderr.
func oneLine(err error) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", "; ")), " ")
}

// Server is one running container of the matrix and the DSN the harness
// connects with: a superuser (postgres, or root with an empty password)
// on the container's mapped loopback port.
type Server struct {
	MatrixImage
	DSN string
	c   testcontainers.Container
}

// Terminate stops and removes the container. It uses its own bounded
// context so that an interrupted run (ctx already done) still cleans up.
func (s *Server) Terminate() error {
	if s == nil || s.c == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := s.c.Terminate(ctx, testcontainers.StopTimeout(10*time.Second)); err != nil {
		return fmt.Errorf("containers: terminate %s: %w", s.Image, err)
	}
	return nil
}

// startupDeadline bounds the wait for a server to accept connections
// after its container started (MySQL 8's first-start initialisation takes
// tens of seconds on a busy machine); pulling the image is bounded only by
// the caller's context.
const startupDeadline = 3 * time.Minute

// StartServer starts one matrix image and waits until it accepts
// connections. On error any half-started container is already removed.
func StartServer(ctx context.Context, m MatrixImage) (*Server, error) {
	silence()
	var (
		c   testcontainers.Container
		dsn string
		err error
	)
	switch m.Engine {
	case "postgres":
		var pc *tcpostgres.PostgresContainer
		pc, err = tcpostgres.Run(ctx, m.Image,
			testcontainers.WithLogger(quiet),
			tcpostgres.WithUsername("postgres"),
			tcpostgres.WithPassword("postgres"),
			tcpostgres.WithDatabase("postgres"),
			testcontainers.WithWaitStrategyAndDeadline(startupDeadline,
				// The image's entrypoint starts the server twice: once to
				// initialise, then for real.
				wait.ForLog("database system is ready to accept connections").WithOccurrence(2),
				wait.ForListeningPort("5432/tcp")),
		)
		if pc != nil {
			c = pc
		}
		if err == nil {
			dsn, err = pc.ConnectionString(ctx, "sslmode=disable")
		}
	case "mysql":
		var mc *tcmysql.MySQLContainer
		mc, err = tcmysql.Run(ctx, m.Image,
			testcontainers.WithLogger(quiet),
			tcmysql.WithUsername("root"),
			tcmysql.WithPassword(""),
			tcmysql.WithDatabase("dbeast_test"),
			// MariaDB images read the MYSQL_* variables too, but name the
			// empty root password differently.
			testcontainers.WithEnv(map[string]string{"MARIADB_ALLOW_EMPTY_ROOT_PASSWORD": "yes"}),
			// The module waits for MySQL's own banner; MariaDB prints its
			// own. The temporary init server listens on port 0, so the
			// banner with port 3306 is the real server.
			testcontainers.WithWaitStrategyAndDeadline(startupDeadline,
				wait.ForLog(`port: 3306  (MySQL Community Server|mariadb\.org binary distribution)`).AsRegexp(),
				wait.ForListeningPort("3306/tcp")),
		)
		if mc != nil {
			c = mc
		}
		if err == nil {
			dsn, err = mc.ConnectionString(ctx)
		}
	default:
		return nil, fmt.Errorf("containers: no container image for engine %q", m.Engine)
	}
	s := &Server{MatrixImage: m, DSN: dsn, c: c}
	if err != nil {
		terr := s.Terminate()
		return nil, errors.Join(fmt.Errorf("containers: start %s: %w", m.Image, err), terr)
	}
	return s, nil
}

// RunMatrix runs fn once per matrix image of engine, each on a freshly
// started container that is terminated before the next one starts (two
// cores do not run nine servers at once). It first checks that Docker is
// reachable (an error wrapping ErrNoDocker if not, before anything
// starts). It stops at the first error: from starting a container, from
// fn, or from ctx; the container fn ran on is terminated either way.
func RunMatrix(ctx context.Context, engine string, fn func(s *Server) error) error {
	images := MatrixFor(engine)
	if len(images) == 0 {
		return fmt.Errorf("containers: no container matrix for engine %q", engine)
	}
	if err := DockerAvailable(ctx, 0); err != nil {
		return err
	}
	for _, m := range images {
		if err := ctx.Err(); err != nil {
			return err
		}
		s, err := StartServer(ctx, m)
		if err != nil {
			return err
		}
		err = fn(s)
		if terr := s.Terminate(); err == nil {
			err = terr
		}
		if err != nil {
			return err
		}
	}
	return nil
}
