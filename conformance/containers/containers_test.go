package containers

import (
	"bufio"
	"context"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dbeast/dbeast/conformance"
	"github.com/dbeast/dbeast/verifier/dialect"
)

// composeImages returns the image: values of docker/compose.yaml in file
// order.
func composeImages(t *testing.T) []string {
	t.Helper()
	f, err := os.Open("../../docker/compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if v, ok := strings.CutPrefix(line, "image:"); ok {
			out = append(out, strings.Trim(strings.TrimSpace(v), `"'`))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestMatrixMatchesCompose pins that the testcontainers matrix and the
// compose file start the same images with the same tags, and that each
// image is filed under the engine that can check it.
func TestMatrixMatchesCompose(t *testing.T) {
	compose := composeImages(t)
	var matrix []string
	for _, m := range Matrix {
		matrix = append(matrix, m.Image)
	}
	if len(compose) != 9 {
		t.Fatalf("compose.yaml has %d images, want the 9 of the matrix: %v", len(compose), compose)
	}
	if !reflect.DeepEqual(matrix, compose) {
		t.Fatalf("Matrix %v, compose.yaml %v", matrix, compose)
	}
	tests := []struct {
		engine string
		want   []string
	}{
		{"postgres", []string{"postgres:13", "postgres:14", "postgres:15", "postgres:16", "postgres:17"}},
		{"mysql", []string{"mysql:8.0", "mysql:8.4", "mariadb:10.11", "mariadb:11.4"}},
		{"sqlite", nil},
		{"oracle", nil},
	}
	for _, tc := range tests {
		var got []string
		for _, m := range MatrixFor(tc.engine) {
			if m.Engine != tc.engine {
				t.Errorf("MatrixFor(%s) returned %+v", tc.engine, m)
			}
			got = append(got, m.Image)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("MatrixFor(%s) = %v, want %v", tc.engine, got, tc.want)
		}
	}
}

// TestDockerAvailableNoEngine pins that, without a Docker engine, the
// check answers ErrNoDocker within a few seconds and RunMatrix refuses to
// start anything; a cancelled context is "unavailable" on any machine.
func TestDockerAvailableNoEngine(t *testing.T) {
	cctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := DockerAvailable(cctx, time.Second); !errors.Is(err, ErrNoDocker) {
		t.Errorf("cancelled context: %v, want ErrNoDocker", err)
	}
	start := time.Now()
	err := DockerAvailable(context.Background(), 3*time.Second)
	elapsed := time.Since(start)
	if elapsed > 4*time.Second {
		t.Errorf("DockerAvailable took %s, want at most its 3 s timeout", elapsed)
	}
	if err == nil {
		t.Skip("a Docker engine answered; the no-engine path is not reachable on this machine")
	}
	if !errors.Is(err, ErrNoDocker) {
		t.Fatalf("DockerAvailable: %v, want ErrNoDocker", err)
	}
	ran := false
	err = RunMatrix(context.Background(), "postgres", func(*Server) error { ran = true; return nil })
	if !errors.Is(err, ErrNoDocker) || ran {
		t.Fatalf("RunMatrix without Docker: err %v, ran %v", err, ran)
	}
	if err := RunMatrix(context.Background(), "sqlite", func(*Server) error { return nil }); err == nil || errors.Is(err, ErrNoDocker) {
		t.Errorf("RunMatrix(sqlite): %v, want no-matrix error", err)
	}
}

// TestMatrixContainers starts every version of the matrix, checks that
// each reports its own major version, and runs a short slice of generated
// cases with zero disagreements. It needs a Docker engine and skips,
// saying so, without one.
func TestMatrixContainers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts nine database containers; not in -short")
	}
	if err := DockerAvailable(context.Background(), 0); err != nil {
		t.Skipf("no Docker engine reachable, the container matrix cannot run here: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	for _, engine := range []string{"postgres", "mysql"} {
		err := RunMatrix(ctx, engine, func(s *Server) error {
			var (
				e   conformance.Engine
				err error
			)
			if engine == "postgres" {
				e, err = conformance.OpenPostgres(ctx, s.DSN)
			} else {
				e, err = conformance.OpenMySQL(ctx, s.DSN)
			}
			if err != nil {
				return err
			}
			defer e.Close()
			tag := s.Image[strings.Index(s.Image, ":")+1:]
			if !strings.HasPrefix(e.Version(), tag+".") {
				t.Errorf("%s reports version %q", s.Image, e.Version())
			}
			r := &conformance.Runner{Engine: e, Verify: dialect.Verify, Shrink: true}
			sum, err := r.Run(ctx, conformance.GeneratedCases(e, 1, 200))
			if err != nil {
				return err
			}
			if len(sum.Disagreements) > 0 {
				t.Errorf("%s: %d disagreements, first %+v", s.Image, len(sum.Disagreements), sum.Disagreements[0])
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%s matrix: %v", engine, err)
		}
	}
}
