package engines

import "context"

// HealthWarner is an optional ability of an Engine: warnings for a
// source's connection test about bounds the source's account cannot
// enforce (PostgreSQL: temp_file_limit, which only a superuser or a role
// granted SET on it may set, and which the server leaves unlimited by
// default). A warning does not make the source unhealthy; it tells the
// person what one read may cost there and what the administrator can set.
// The broker calls it once, right after Open, on an engine no operation
// has used.
type HealthWarner interface {
	HealthWarnings(ctx context.Context) ([]Reason, error)
}
