package broker

import (
	"context"

	"github.com/dbeast/dbeast/engines"
)

// testConnection connects to src once within the setup deadline and,
// when the engine can (engines.AccessChecker), checks the privileges its
// proofs need, so a source test reports a missing PROCESS or LOCK TABLES
// before any agent's read fails on it, and collects the engine's health
// warnings (engines.HealthWarner; a failed check warns of nothing). The
// error is the engine's.
func testConnection(ctx context.Context, drv engines.Driver, src engines.Source) ([]engines.Reason, error) {
	octx, cancel := context.WithTimeout(ctx, engines.SetupDeadline)
	defer cancel()
	eng, err := drv.Open(octx, src)
	if err != nil {
		return nil, err
	}
	defer eng.Close()
	if ac, ok := eng.(engines.AccessChecker); ok {
		if err := ac.CheckAccess(octx); err != nil {
			return nil, err
		}
	}
	var warnings []engines.Reason
	if hw, ok := eng.(engines.HealthWarner); ok {
		warnings, _ = hw.HealthWarnings(octx)
	}
	return warnings, nil
}
