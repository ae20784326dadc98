package broker

import (
	"context"

	"github.com/dbeast/dbeast/engines"
)

// testConnection connects to src once within the setup deadline and,
// when the engine can (engines.AccessChecker), checks the privileges its
// proofs need, so a source test reports a missing PROCESS or LOCK TABLES
// before any agent's read fails on it. The error is the engine's.
func testConnection(ctx context.Context, drv engines.Driver, src engines.Source) error {
	octx, cancel := context.WithTimeout(ctx, engines.SetupDeadline)
	defer cancel()
	eng, err := drv.Open(octx, src)
	if err != nil {
		return err
	}
	defer eng.Close()
	if ac, ok := eng.(engines.AccessChecker); ok {
		return ac.CheckAccess(ctx)
	}
	return nil
}
