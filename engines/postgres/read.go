package postgres

import (
	"context"
	"errors"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
)

// beginProof starts the transaction the first proof runs in. It is READ
// COMMITTED on purpose: the reading transaction must take its locks before
// its REPEATABLE READ snapshot exists, so the relations to lock are found
// here, in a transaction of their own, and proven again after the locks.
const beginProof = "BEGIN ISOLATION LEVEL READ COMMITTED READ ONLY"

// beginRead starts the reading transaction.
const beginRead = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"

// recoveryQuery tells a standby apart: it cannot take the locks a stable
// read needs.
const recoveryQuery = "SELECT pg_catalog.pg_is_in_recovery()"

// funcQuery lists every pg_catalog function with one of the given names.
const funcQuery = `SELECT p.proname, p.oid, p.provolatile FROM pg_catalog.pg_proc p
WHERE p.pronamespace = 11 AND p.proname = ANY($1::pg_catalog.text[])`

// writeCheck is run at the end of every read: a read that got a
// transaction id wrote something and is refused.
const writeCheck = "SELECT pg_catalog.pg_current_xact_id_if_assigned() IS NULL"

// syntaxFunctions are names the verifier reports as functions but that
// PostgreSQL parses as expressions, not pg_proc calls.
var syntaxFunctions = map[string]bool{"coalesce": true, "nullif": true, "greatest": true, "least": true}

// ListTables returns the tables, views and materialized views the account
// can select from outside the system schemas. Partitioned tables are listed
// as tables; the proof refuses them later.
func (e *Engine) ListTables(ctx context.Context) ([]engines.TableEntry, error) {
	ctx, cancel := opContext(ctx)
	defer cancel()
	if err := e.start(ctx); err != nil {
		return nil, err
	}
	// In a transaction with search_path = pg_catalog, pg_temp, so no operator of the
	// account's own search_path can take part in the listing.
	if err := e.simple(ctx, beginProof+"; "+sessionSettings(ctx)); err != nil {
		e.rollback()
		return nil, mapErr(ctx, err)
	}
	defer e.rollback()
	rows, err := e.query(ctx, `SELECT n.nspname, c.relname, c.relkind
FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'v', 'm', 'p')
  AND n.nspname <> 'information_schema' AND n.nspname NOT LIKE 'pg\_%'
  AND pg_catalog.has_schema_privilege(n.oid, 'USAGE')
  AND pg_catalog.has_table_privilege(c.oid, 'SELECT')`)
	if err != nil {
		return nil, mapErr(ctx, err)
	}
	out := make([]engines.TableEntry, 0, len(rows))
	for _, r := range rows {
		kind := kindTable
		switch firstByte(r[2]) {
		case 'v':
			kind = kindView
		case 'm':
			kind = kindMatView
		}
		out = append(out, engines.TableEntry{Table: verifier.Table{Schema: string(r[0]), Name: string(r[1])}, Kind: kind})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Table.Less(out[j].Table) })
	e.rollback()
	e.reset(ctx)
	return out, nil
}

// Describe proves one relation and returns its columns and identity.
func (e *Engine) Describe(ctx context.Context, t verifier.Table) (*engines.Proof, error) {
	ctx, cancel := opContext(ctx)
	defer cancel()
	if err := e.start(ctx); err != nil {
		return nil, err
	}
	if err := e.simple(ctx, beginProof+"; "+sessionSettings(ctx)); err != nil {
		e.rollback()
		return nil, mapErr(ctx, err)
	}
	defer e.rollback()
	r, err := newProver(e).proveTable(ctx, t)
	if err != nil {
		return nil, mapErr(ctx, err)
	}
	pr := r.proof()
	e.rollback()
	e.reset(ctx)
	return &pr, nil
}

// Read runs a verified read. The sequence is: prove every table (and what
// its views read) in a first transaction, or take that first proof from
// the cache (cache.go); begin REPEATABLE READ READ ONLY; lock tables and
// views before any snapshot is taken, then materialized views; prepare the
// normalized SQL and list the relation locks (relguard.go); prove again
// under the snapshot and require the same identities; check pins, column
// obligations and functions; list the locks again and check the functions
// the plan calls (funcguard.go); execute the prepared statement with text
// results; list the locks again; refuse if the transaction got an id;
// roll back and reset the session.
//
// Everything from BEGIN to the plan check is one pipeline (one round
// trip), and execution through ROLLBACK and the session reset another:
// no step in either needs an earlier step's answer, and the server runs
// them in order, so the order above is kept exactly. A cached first proof
// whose identities the re-proof does not reproduce is dropped and the
// read starts over with a fresh one. Once both guards passed for the same
// SQL, identities, functions and server version, a read skips the lock
// listings and the EXPLAIN (cache.go).
func (e *Engine) Read(ctx context.Context, req engines.ReadRequest) (*engines.Result, []engines.Proof, error) {
	ctx, cancel := opContext(ctx)
	defer cancel()
	v := req.Verdict
	if v == nil || (v.Mode != "" && v.Mode != verifier.ModeRead) || (v.Op != "" && v.Op != verifier.OpRead) || len(v.Tables) == 0 {
		return nil, nil, engines.NewError(engines.CodeDenied, engines.ReasonBlocked, nil)
	}
	if err := e.start(ctx); err != nil {
		return nil, nil, err
	}
	names := make([]string, len(v.Tables))
	for i, t := range v.Tables {
		names[i] = t.String()
	}
	key := proofKey(names, v.Functions)
	ent := e.pool.cache.proof(key)
	cached := ent != nil
	for {
		if ent == nil {
			var err error
			if ent, err = e.firstProof(ctx, req); err != nil {
				return nil, nil, err
			}
		}
		res, proofs, err := e.readWithTableLocks(ctx, req, ent)
		if errors.Is(err, errStale) {
			e.pool.cache.dropProof(key)
			if cached {
				cached, ent = false, nil
				continue
			}
			var pf *prepareFailed
			if errors.As(err, &pf) {
				return nil, nil, pf.mapped
			}
			return nil, nil, engines.NewError(engines.CodeFailed, ReasonChangedDuring, nil)
		}
		if err != nil {
			return nil, nil, err
		}
		if !cached {
			e.pool.cache.putProof(key, ent)
		}
		return res, proofs, nil
	}
}

// errStale is a private cause: the re-proof under the reading snapshot did
// not reproduce the first proof's identities.
var errStale = errors.New("postgres: the first proof is stale")

// prepareFailed is a private cause: the statement did not prepare with a
// name-resolution or type error (SQLSTATE class 42). The verifier's
// statement prepares on the relations its first proof saw, so over a
// cached first proof it means the relations changed (a column dropped or
// renamed): the read starts over with a fresh proof, which refuses with
// the reason (ReasonColumnMissing) instead of "failed on the server"
// (issue 29). Over a fresh proof it is the server's error, mapped.
type prepareFailed struct{ mapped *engines.Error }

func (p *prepareFailed) Error() string        { return "postgres: the statement did not prepare" }
func (p *prepareFailed) Is(target error) bool { return target == errStale }
func (p *prepareFailed) Unwrap() error        { return p.mapped }

// firstProof proves the verdict's tables in their own transaction and
// records the catalog queries it ran.
func (e *Engine) firstProof(ctx context.Context, req engines.ReadRequest) (*proofEntry, error) {
	var rec []recordedQuery
	e.rec = &rec
	first, lp, err := e.proveAll(ctx, req, true)
	e.rec = nil
	if err != nil {
		return nil, err
	}
	return &proofEntry{queries: rec, first: first, lp: lp}, nil
}

// readWithTableLocks runs the reading transaction for a first proof (fresh or
// cached) and returns errStale when the re-proof differs from it.
func (e *Engine) readWithTableLocks(ctx context.Context, req engines.ReadRequest, ent *proofEntry) (*engines.Result, []engines.Proof, error) {
	v, lp := req.Verdict, ent.lp
	defer func() { e.pre = nil }()
	defer e.rollback()
	name := e.nextName()
	gkey := guardKey(v.NormalizedSQL, ent.first, v.Functions, e.pg.ParameterStatus("server_version"))
	guarded := !e.pool.cache.guard(gkey) // run both guards: no verdict cached
	proven := oidArray(lp.oids)

	// Trip 1: BEGIN … plan check.
	var p1 pipeline
	p1.query(beginRead)
	for _, st := range settingStatements(ctx) {
		p1.query(st)
	}
	locks := map[*step]bool{}
	for _, st := range lockStatements(lp) {
		locks[p1.query(st)] = true
	}
	var newStmts []*step
	catalog := e.catalogSteps(&p1, &newStmts) // catalogguard.go: before anything plans; sets temp_file_limit
	prep := p1.prepare(name, v.NormalizedSQL)
	var afterPrepare, parts, beforeExec, explain *step
	if guarded {
		afterPrepare = p1.query(relLockQuery)
		parts = p1.query(partsAllQuery, proven)
	}
	p1.query("SET LOCAL plan_cache_mode = force_generic_plan")
	proofSteps := make([]*step, len(ent.queries))
	for i, q := range ent.queries {
		proofSteps[i] = e.statement(&p1, q.sql, q.args, &newStmts)
	}
	var viewFuncs *step
	if len(lp.funcs) > 0 {
		viewFuncs = p1.query(viewFuncQuery, oidArray(lp.funcs))
	}
	if guarded {
		beforeExec = p1.query(relLockQuery)
		explain = p1.query(explainPrefix + name)
	}
	p1.sync()
	failed, err := e.run(ctx, &p1)
	for _, st := range newStmts {
		if !st.done {
			delete(e.pc.stmts, st.sql)
		}
	}
	if err != nil {
		if locks[failed] {
			return nil, nil, lockErr(ctx, err)
		}
		if failed == catalog {
			return nil, nil, catalogErr(ctx, err)
		}
		var pgErr *pgconn.PgError
		if failed == prep && ctx.Err() == nil && errors.As(err, &pgErr) && strings.HasPrefix(pgErr.Code, "42") {
			return nil, nil, &prepareFailed{mapped: mapErr(ctx, err)}
		}
		return nil, nil, mapErr(ctx, err)
	}
	if len(prep.sd.ParamOIDs) != 0 {
		return nil, nil, engines.NewError(engines.CodeDenied, ReasonParameters, nil)
	}

	// The re-proof, over the answers fetched after the locks.
	for i, q := range ent.queries {
		e.prefetch(q.sql, q.args, proofSteps[i].rows)
	}
	if viewFuncs != nil {
		e.prefetch(viewFuncQuery, viewFuncs.args, viewFuncs.rows)
	}
	if explain != nil {
		e.prefetch(explain.sql, nil, explain.rows)
	}
	if err := e.checkPrimary(ctx); err != nil {
		return nil, nil, err
	}
	second, lp2, err := e.proveAll(ctx, req, false)
	if err != nil {
		return nil, nil, err
	}
	proofs := make([]engines.Proof, 0, len(v.Tables))
	for i := range ent.first {
		if ent.first[i].identity != second[i].identity {
			e.rollback()
			if err := e.simple(ctx, "DEALLOCATE "+name); err != nil {
				return nil, nil, mapErr(ctx, err)
			}
			return nil, nil, errStale
		}
		proofs = append(proofs, second[i].proof())
	}
	// The same identities: the plan locked exactly the proven relations.
	var partSet map[uint32]bool
	if guarded {
		if partSet, err = oidSet(parts.rows); err != nil {
			return nil, nil, err
		}
		// Before PREPARE the transaction held only the plan's locks:
		// every lock now must be proven or a part of a proven relation.
		if err := checkLockRows(nil, afterPrepare.rows, lp.oids, partSet); err != nil {
			return nil, nil, err
		}
	}
	// The function guard (funcguard.go): the server's plan may call only
	// the verdict's functions and those of the proven views.
	allowed, err := e.allowedCalls(ctx, v.Functions, lp2.funcs)
	if err != nil {
		return nil, nil, err
	}
	if guarded {
		if err := e.checkPlanFunctions(ctx, name, allowed); err != nil {
			return nil, nil, err
		}
	}
	e.pre = nil

	// Trip 2: execute, the relation guard again, the write check, ROLLBACK
	// and, after a sync point, the session reset.
	var res *engines.Result
	var p2 pipeline
	exec := p2.execPrepared(name, func(rr *pgconn.ResultReader) error {
		if !sameFields(rr.FieldDescriptions(), prep.sd.Fields) {
			rr.Close()
			return engines.NewError(engines.CodeFailed, ReasonPlanChanged, nil)
		}
		b, _, err := collect(rr, req.Limits)
		if err != nil {
			return err
		}
		res = b.Result()
		return nil
	})
	var afterExec *step
	if guarded {
		afterExec = p2.query(relLockQuery)
	}
	noWrite := p2.query(writeCheck)
	p2.query("ROLLBACK")
	p2.sync()
	reset := resetSteps(&p2, name)
	p2.sync()
	failed, err = e.run(ctx, &p2)
	if err != nil && (failed == nil || !reset[failed]) {
		var pgErr *pgconn.PgError
		if failed == exec && ctx.Err() == nil && errors.As(err, &pgErr) && pgErr.Code == "0A000" {
			return nil, nil, engines.NewError(engines.CodeFailed, ReasonPlanChanged, err)
		}
		return nil, nil, mapErr(ctx, err)
	}
	if guarded {
		if err := checkLockRows(beforeExec.rows, afterExec.rows, lp.oids, partSet); err != nil {
			return nil, nil, err
		}
	}
	if len(noWrite.rows) != 1 || !isTrue(noWrite.rows[0][0]) {
		return nil, nil, engines.NewError(engines.CodeDenied, ReasonWroteDuringRead, nil)
	}
	if guarded {
		e.pool.cache.putGuard(gkey)
	}
	// A read that may have loaded time-zone data (the verdict's
	// ZoneNames: a zone name in a constant) leaves it in the backend's
	// zone cache, about 24 KB a name, for the life of the connection:
	// such a connection is retired, so pooling adds no lasting cost to a
	// per-statement one (issue 29; verifier/postgres/cost.go).
	e.reusable = !v.ZoneNames
	for st := range reset {
		e.reusable = e.reusable && st.done
	}
	return res, proofs, nil
}

// statement adds to p the execution of one of the engine's own catalog
// queries as a statement prepared on this connection, preparing it first
// (and noting the prepare in created) when the connection has not yet:
// the server then parses and plans the query once per connection instead
// of once per read. The caller drops the names of prepares that did not
// succeed from e.pc.stmts after the pipeline ran.
func (e *Engine) statement(p *pipeline, sql string, args []string, created *[]*step) *step {
	stmt, ok := e.pc.stmts[sql]
	if !ok {
		stmt = e.nextName()
		*created = append(*created, p.prepare(stmt, sql))
		e.pc.stmts[sql] = stmt // undone by the caller unless the prepare succeeds
	}
	return p.execStatement(stmt, sql, args)
}

// resetSteps adds to p the statements that end a read's session state
// after its transaction: DISCARD ALL without its DEALLOCATE ALL and
// DISCARD PLANS, so the engine's own prepared catalog queries and their
// plans stay (a verified read can leave no other state than its own
// prepared statement, which is deallocated here; the rest is a net).
func resetSteps(p *pipeline, stmt string) map[*step]bool {
	out := map[*step]bool{}
	for _, q := range []string{"CLOSE ALL", "SET SESSION AUTHORIZATION DEFAULT", "RESET ALL",
		"DEALLOCATE " + stmt, "UNLISTEN *", "SELECT pg_catalog.pg_advisory_unlock_all()", "DISCARD TEMP", "DISCARD SEQUENCES"} {
		out[p.query(q)] = true
	}
	return out
}

// checkPrimary refuses a standby: it cannot take the locks a stable read
// needs.
func (e *Engine) checkPrimary(ctx context.Context) error {
	rows, err := e.query(ctx, recoveryQuery)
	if err != nil {
		return mapErr(ctx, err)
	}
	if len(rows) != 1 || (string(rows[0][0]) != "t" && string(rows[0][0]) != "f") {
		return engines.NewError(engines.CodeFailed, engines.ReasonExecution, nil)
	}
	if isTrue(rows[0][0]) {
		return ineligible(ReasonStandby)
	}
	return nil
}

// proveAll proves the verdict's tables, checks pins, column obligations and
// functions, and returns the top-level proofs in verdict order with the
// lock plan. With separate it runs in its own read-only transaction, which
// also checks that the server is a primary.
func (e *Engine) proveAll(ctx context.Context, req engines.ReadRequest, separate bool) ([]*relProof, lockPlan, error) {
	v := req.Verdict
	if separate {
		if err := e.simple(ctx, beginProof+"; "+sessionSettings(ctx)); err != nil {
			e.rollback()
			return nil, lockPlan{}, mapErr(ctx, err)
		}
		defer e.rollback()
		if err := e.checkPrimary(ctx); err != nil {
			return nil, lockPlan{}, err
		}
	}
	p := newProver(e)
	out := make([]*relProof, 0, len(v.Tables))
	for _, t := range v.Tables {
		r, err := p.proveTable(ctx, t)
		if err != nil {
			return nil, lockPlan{}, err
		}
		if pin, ok := req.Pins[t.String()]; ok && pin != r.identity {
			return nil, lockPlan{}, engines.NewError(engines.CodeIdentityChanged, engines.ReasonIdentityChanged, nil)
		}
		if err := checkColumns(r, v.Columns[t.String()]); err != nil {
			return nil, lockPlan{}, err
		}
		out = append(out, r)
	}
	if err := checkColumnTypes(p, v.ColumnTypes); err != nil {
		return nil, lockPlan{}, err
	}
	if err := e.checkFunctions(ctx, v.Functions); err != nil {
		return nil, lockPlan{}, err
	}
	lp, err := p.plan()
	if err != nil {
		return nil, lockPlan{}, err
	}
	return out, lp, nil
}

// checkColumns requires every column the query names through a table to
// be one of its proven columns: PostgreSQL would otherwise read alias.name
// as the call name(alias).
func checkColumns(r *relProof, want []string) error {
	have := make(map[string]bool, len(r.columns))
	for _, c := range r.columns {
		have[c.Name] = true
	}
	for _, w := range want {
		if !have[w] {
			return ineligible(engines.ReasonColumnMissing)
		}
	}
	return nil
}

// checkFunctions requires every function name to resolve, in pg_catalog,
// only to built-in IMMUTABLE or STABLE functions: with search_path set to
// pg_catalog alone, those are the only candidates the server can pick.
func (e *Engine) checkFunctions(ctx context.Context, names []string) error {
	var want []string
	for _, n := range names {
		if !verifier.PostgresFunctions[n] {
			return ineligible(engines.ReasonFunction)
		}
		if !syntaxFunctions[n] {
			want = append(want, e.serverFunction(n))
		}
	}
	if len(want) == 0 {
		return nil
	}
	rows, err := e.query(ctx, funcQuery, textArray(want))
	if err != nil {
		return mapErr(ctx, err)
	}
	found := map[string]bool{}
	for _, r := range rows {
		oid, err := parseOID(r[1])
		if err != nil || oid >= firstUserOID {
			return ineligible(engines.ReasonFunction)
		}
		if v := string(r[2]); v != "i" && v != "s" {
			return ineligible(engines.ReasonFunction)
		}
		found[string(r[0])] = true
	}
	for _, n := range want {
		if !found[n] {
			return ineligible(engines.ReasonFunction)
		}
	}
	return nil
}

// lockStatements returns the plan's locks as statements. LOCK TABLE
// takes no snapshot, so the REPEATABLE READ snapshot is taken after them,
// by the first query. Materialized views cannot be named by LOCK TABLE; a
// TABLESAMPLE read of no rows takes their lock without running their
// definition.
func lockStatements(lp lockPlan) []string {
	var out []string
	if len(lp.tables) > 0 {
		out = append(out, "LOCK TABLE "+strings.Join(lp.tables, ", ")+" IN SHARE UPDATE EXCLUSIVE MODE")
	}
	if len(lp.views) > 0 {
		out = append(out, "LOCK TABLE "+strings.Join(lp.views, ", ")+" IN ACCESS SHARE MODE")
	}
	for _, m := range lp.matviews {
		out = append(out, "SELECT 1 FROM "+m+" TABLESAMPLE SYSTEM (0) LIMIT 0")
	}
	return out
}

// lock takes the plan's locks in the open transaction.
func (e *Engine) lock(ctx context.Context, lp lockPlan) error {
	stmts := lockStatements(lp)
	if len(stmts) == 0 {
		return nil
	}
	if err := e.simple(ctx, strings.Join(stmts, "; ")); err != nil {
		return lockErr(ctx, err)
	}
	return nil
}

// lockErr names the lock refusals: a missing privilege, a standby.
func lockErr(ctx context.Context, err error) error {
	m := mapErr(ctx, err)
	switch m.Reason {
	case ReasonPrivilege:
		return engines.NewError(engines.CodeDenied, ReasonLockPrivilege, err)
	case ReasonReadOnlyTxn:
		return engines.NewError(engines.CodeIneligible, ReasonStandby, err)
	}
	return m
}

// nextName returns a fresh prepared statement name.
func (e *Engine) nextName() string {
	e.pc.seq++
	return "dbeast_" + strconv.Itoa(e.pc.seq)
}

// textArray renders strings as a PostgreSQL array literal, each element
// double-quoted.
func textArray(items []string) string {
	parts := make([]string, len(items))
	for i, s := range items {
		s = strings.ReplaceAll(s, `\`, `\\`)
		s = strings.ReplaceAll(s, `"`, `\"`)
		parts[i] = `"` + s + `"`
	}
	return "{" + strings.Join(parts, ",") + "}"
}
