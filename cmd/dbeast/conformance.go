package main

import (
	"context"
	"io"
	"os"
	"os/signal"

	"github.com/dbeast/dbeast/cmd/internal/conformancecmd"
)

func init() {
	commands["conformance"] = command{
		summary: "differential check of the verifier against live engines",
		run:     runConformance,
	}
}

func runConformance(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return conformanceMain(ctx, args, os.Stdout, os.Stderr)
}

// conformanceMain is runConformance with its context and streams, for
// tests. It checks servers given by DSN and the embedded SQLite only; the
// container version matrix is cmd/dbeast-matrix, so that this binary does
// not link testcontainers.
func conformanceMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return conformancecmd.Main(ctx, "dbeast conformance", nil, args, stdout, stderr)
}
