package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5/pgconn"
)

// The catalog guard refuses every verified read on a database where an
// object created after initdb changes what built-in syntax does on
// built-in types. Such an object runs its function while the server
// plans or executes the read, yet the plan prints it as the built-in
// syntax it hijacks, so the function guard (funcguard.go) cannot see it:
//
//   - a cast (pg_cast) whose source and target are both built-in types:
//     lower(5) or CAST(5 AS text) then calls its function, and an
//     IMMUTABLE one is folded at plan time, during the function guard's
//     own EXPLAIN. A cast from or to a type that is not built in (citext,
//     hstore, PostGIS install such casts) never applies: a verified read
//     has no value of such a type (column types are proven built-in, the
//     verifier casts only to built-in types, and every function and
//     operator it may call is built in).
//   - an operator (pg_operator) in pg_catalog: t.s + t.s resolves to it.
//     An operator in any other schema cannot be reached by the printed
//     SQL: the engine's search_path is pg_catalog, pg_temp, PostgreSQL
//     never searches pg_temp for operators, and the verifier refuses
//     OPERATOR(schema.op). (Extensions such as pg_trgm define operators on
//     text in their own schema; they stay readable.)
//   - a default btree or hash operator class (pg_opclass) for a built-in
//     type: ORDER BY, DISTINCT, GROUP BY, UNION, window partitions and
//     hashing look up the type's default btree and hash classes, in any
//     schema. Default classes of other access methods (btree_gist's) are
//     only used to build indexes, and the proof refuses indexes that
//     depend on anything not built in.
//   - an operator or support function (pg_amop, pg_amproc) added to a
//     built-in operator family (a RANGE frame calls the family's in_range
//     function), or to any btree or hash family on built-in types (merge
//     joins and sorts may pick any btree family holding the built-in
//     equality operator).
//
// The guard runs in the reading transaction's first pipeline (read.go),
// after the table locks and before the statement is prepared, planned or
// the re-proof runs. A pipeline runs without the client's decisions, so
// the refusal is the server's own: the guard query divides by zero when
// such an object exists, and the server skips every later step of the
// pipeline (nothing plans the statement); catalogErr turns that error
// into the refusal. Its comparisons are oid against an oid literal, so
// only the built-in oid operators (which no user object can shadow: a
// second operator of the same name and types in pg_catalog is refused by
// a unique index) decide it. It runs in a savepoint that is rolled back,
// releasing its catalog locks, so the relation guard (relguard.go) keeps
// seeing only the statement's own.
//
// The same pipeline then sets the read's bound on temporary files
// (tempFileLimit). Both follow the table locks: a SELECT takes the
// REPEATABLE READ snapshot, so neither can join the SET LOCAL statements
// that begin the transaction.
//
// What it cannot see: an object created after it ran and before the plan
// (catalog lookups use the latest catalog state, not the read's
// snapshot), and a superuser's direct edits of the built-in rows
// themselves; the administrator is trusted not to do either on purpose.

// catalogQuery fails with division_by_zero when any such object is
// present and returns 1 otherwise. 11 is pg_catalog's namespace, 403 and
// 405 are the btree and hash access methods; 16384 is
// FirstNormalObjectId.
const catalogQuery = `SELECT 1 / CASE WHEN
  EXISTS (SELECT 1 FROM pg_catalog.pg_cast c WHERE c.oid >= '16384'::pg_catalog.oid
    AND c.castsource < '16384'::pg_catalog.oid AND c.casttarget < '16384'::pg_catalog.oid)
  OR EXISTS (SELECT 1 FROM pg_catalog.pg_operator o WHERE o.oid >= '16384'::pg_catalog.oid
    AND o.oprnamespace = '11'::pg_catalog.oid)
  OR EXISTS (SELECT 1 FROM pg_catalog.pg_opclass c WHERE c.oid >= '16384'::pg_catalog.oid AND c.opcdefault
    AND c.opcintype < '16384'::pg_catalog.oid
    AND (c.opcmethod = '403'::pg_catalog.oid OR c.opcmethod = '405'::pg_catalog.oid))
  OR EXISTS (SELECT 1 FROM pg_catalog.pg_amop a WHERE a.oid >= '16384'::pg_catalog.oid
    AND (a.amopfamily < '16384'::pg_catalog.oid
      OR ((a.amopmethod = '403'::pg_catalog.oid OR a.amopmethod = '405'::pg_catalog.oid)
        AND a.amoplefttype < '16384'::pg_catalog.oid AND a.amoprighttype < '16384'::pg_catalog.oid)))
  OR EXISTS (SELECT 1 FROM pg_catalog.pg_amproc p JOIN pg_catalog.pg_opfamily f ON f.oid = p.amprocfamily
    WHERE p.oid >= '16384'::pg_catalog.oid
    AND (p.amprocfamily < '16384'::pg_catalog.oid
      OR ((f.opfmethod = '403'::pg_catalog.oid OR f.opfmethod = '405'::pg_catalog.oid)
        AND p.amproclefttype < '16384'::pg_catalog.oid AND p.amprocrighttype < '16384'::pg_catalog.oid)))
  THEN 0 ELSE 1 END`

// catalogSavepoint names the savepoint the guard runs in.
const catalogSavepoint = "dbeast_catalog_check"

// tempFileLimit bounds the temporary files one verified read may write
// (sorts, hashes and window buffers that spill): 256 MB. A running
// string_agg … OVER (ORDER BY …) over 300 rows of 10 KB writes 450 MB.
// temp_file_limit is a superuser setting: as SET LOCAL it would fail the
// transaction of any other account, so it is set only for a superuser;
// for any other account the server's own temp_file_limit applies, which
// the administrator sets (postgresql.conf, or ALTER ROLE … SET
// temp_file_limit, which reaches pooled connections when they are
// replaced: pool.go). set_config(…, true) lasts until the transaction
// ends.
const tempFileLimit = `SELECT pg_catalog.set_config('temp_file_limit', '256MB', true)
WHERE pg_catalog.current_setting('is_superuser') = 'on'`

// catalogSteps adds the catalog guard and the temporary file limit to
// the reading transaction's pipeline and returns the guard's step. Both
// run as statements prepared once per pooled connection (read.go's
// statement), so a warm read does not plan the guard's five catalog
// scans again (about 0.3 ms of server time per read). The guard's
// prepare, when the connection needs one, is inside the savepoint too:
// parsing it locks the catalogs it reads, and those locks must go with
// the savepoint. A prepared statement outlives the rollback to the
// savepoint (prepared statements are not transactional), and its plan is
// only a plan: each execution reads the catalogs as they are then, and
// the server replans it after any change to their definitions.
func (e *Engine) catalogSteps(p *pipeline, created *[]*step) *step {
	p.query("SAVEPOINT " + catalogSavepoint)
	guard := e.statement(p, catalogQuery, nil, created)
	p.query("ROLLBACK TO SAVEPOINT " + catalogSavepoint)
	p.query("RELEASE SAVEPOINT " + catalogSavepoint)
	e.statement(p, e.tempFileLimitSQL(), nil, created) // templimit.go
	return guard
}

// catalogErr maps the guard step's error: its own division by zero is the
// refusal; anything else (a cancel, a lost connection) is mapped as usual.
func catalogErr(ctx context.Context, err error) error {
	var pgErr *pgconn.PgError
	if ctx.Err() == nil && errors.As(err, &pgErr) && pgErr.Code == "22012" {
		return ineligible(ReasonCatalogTampered)
	}
	return mapErr(ctx, err)
}
