// Command dbeast-matrix is `dbeast conformance` with the server version
// matrix in containers: for a server engine (postgres, mysql) without
// --dsn and without its DBEAST_TEST_*_DSN variable it starts each image
// of conformance/containers.Matrix with testcontainers, one at a time,
// and checks each. It is its own binary so that the dbeast daemon, which
// holds database passwords and agent tokens, never links testcontainers,
// Docker's client or the test packages they pull in.
//
//	dbeast-matrix --engine postgres,mysql --cases 20000 --report matrix.json
//
// The flags and exit status are those of `dbeast conformance` (see
// docs/conformance.md); without a reachable Docker engine it exits 2
// without checking anything.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/dbeast/dbeast/cmd/internal/conformancecmd"
	"github.com/dbeast/dbeast/conformance/containers"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := conformancecmd.Main(ctx, "dbeast-matrix", matrix, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// matrix runs check on each container of engine's version matrix. With
// no Docker engine reachable it fails, naming the variable, before any
// container starts: a missing server is never a pass.
func matrix(ctx context.Context, engine string, stderr io.Writer, check func(dsn, image string) error) error {
	env := conformancecmd.DSNEnv[engine]
	fmt.Fprintf(stderr, "%s: no DSN (--dsn or %s); trying the container matrix (%d versions) with testcontainers\n",
		engine, env, len(containers.MatrixFor(engine)))
	err := containers.RunMatrix(ctx, engine, func(s *containers.Server) error {
		fmt.Fprintf(stderr, "%s: container %s started\n", engine, s.Image)
		return check(s.DSN, s.Image)
	})
	if errors.Is(err, containers.ErrNoDocker) {
		return fmt.Errorf("no DSN and no Docker engine reachable, so nothing was checked: pass --dsn, set %s, or start Docker for the container matrix (%w)", env, err)
	}
	return err
}
