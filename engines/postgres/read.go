package postgres

import (
	"context"
	"sort"
	"strconv"
	"strings"

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
	return out, nil
}

// Describe proves one relation and returns its columns and identity.
func (e *Engine) Describe(ctx context.Context, t verifier.Table) (*engines.Proof, error) {
	ctx, cancel := opContext(ctx)
	defer cancel()
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
	return &pr, nil
}

// Read runs a verified read. The sequence is: prove every table (and what
// its views read) in a first transaction; begin REPEATABLE READ READ ONLY;
// lock tables and views before any snapshot is taken, then materialized
// views; prove again under the snapshot and require the same identities;
// check pins, column obligations and functions; prepare the normalized SQL;
// check the functions its plan calls (funcguard.go); execute the prepared
// statement with text results; refuse if the transaction got an id; roll
// back.
func (e *Engine) Read(ctx context.Context, req engines.ReadRequest) (*engines.Result, []engines.Proof, error) {
	ctx, cancel := opContext(ctx)
	defer cancel()
	v := req.Verdict
	if v == nil || (v.Mode != "" && v.Mode != verifier.ModeRead) || (v.Op != "" && v.Op != verifier.OpRead) || len(v.Tables) == 0 {
		return nil, nil, engines.NewError(engines.CodeDenied, engines.ReasonBlocked, nil)
	}

	// First proof, outside the reading snapshot.
	first, lp, err := e.proveAll(ctx, req, true)
	if err != nil {
		return nil, nil, err
	}

	// The reading transaction: locks first, so the snapshot follows them.
	if err := e.simple(ctx, beginRead+"; "+sessionSettings(ctx)); err != nil {
		e.rollback()
		return nil, nil, mapErr(ctx, err)
	}
	defer e.rollback()
	if err := e.lock(ctx, lp); err != nil {
		return nil, nil, err
	}
	// The relation guard (relguard.go), before anything else runs in this
	// transaction: every relation the server's analysis and rewrite of the
	// statement locked must be one the proof covered.
	held, err := e.relLocks(ctx)
	if err != nil {
		return nil, nil, err
	}
	sd, err := e.prepare(ctx, v.NormalizedSQL)
	if err != nil {
		return nil, nil, err
	}
	if err := e.checkRelLocks(ctx, held, lp.oids); err != nil {
		return nil, nil, err
	}
	second, lp2, err := e.proveAll(ctx, req, false)
	if err != nil {
		return nil, nil, err
	}
	proofs := make([]engines.Proof, 0, len(v.Tables))
	for i := range first {
		if first[i].identity != second[i].identity {
			return nil, nil, engines.NewError(engines.CodeFailed, ReasonChangedDuring, nil)
		}
		proofs = append(proofs, second[i].proof())
	}

	// Execution may lock more (a function running a query of its own);
	// that too must stay within the proof. The catalogs the re-proof read
	// are held by now, so they are not seen here (a documented limit).
	if held, err = e.relLocks(ctx); err != nil {
		return nil, nil, err
	}
	// The function guard (funcguard.go): the server's plan may call only
	// the verdict's functions and those of the proven views. Planning is
	// inside the lock window the check below covers.
	allowed, err := e.allowedCalls(ctx, v.Functions, lp2.funcs)
	if err != nil {
		return nil, nil, err
	}
	if err := e.checkPlanFunctions(ctx, sd.Name, allowed); err != nil {
		return nil, nil, err
	}
	res, err := e.execPrepared(ctx, sd, req.Limits)
	if err != nil {
		return nil, nil, err
	}
	if err := e.checkRelLocks(ctx, held, lp.oids); err != nil {
		return nil, nil, err
	}
	if err := e.checkNoWrite(ctx); err != nil {
		return nil, nil, err
	}
	return res, proofs, nil
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
		rows, err := e.query(ctx, recoveryQuery)
		if err != nil {
			return nil, lockPlan{}, mapErr(ctx, err)
		}
		if len(rows) != 1 || (string(rows[0][0]) != "t" && string(rows[0][0]) != "f") {
			return nil, lockPlan{}, engines.NewError(engines.CodeFailed, engines.ReasonExecution, nil)
		}
		if isTrue(rows[0][0]) {
			return nil, lockPlan{}, ineligible(ReasonStandby)
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
			want = append(want, n)
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

// lock takes the plan's locks. LOCK TABLE takes no snapshot, so the
// REPEATABLE READ snapshot is taken after them, by the first query.
// Materialized views cannot be named by LOCK TABLE; a TABLESAMPLE read of
// no rows takes their lock without running their definition.
func (e *Engine) lock(ctx context.Context, lp lockPlan) error {
	var b strings.Builder
	if len(lp.tables) > 0 {
		b.WriteString("LOCK TABLE " + strings.Join(lp.tables, ", ") + " IN SHARE UPDATE EXCLUSIVE MODE; ")
	}
	if len(lp.views) > 0 {
		b.WriteString("LOCK TABLE " + strings.Join(lp.views, ", ") + " IN ACCESS SHARE MODE; ")
	}
	for _, m := range lp.matviews {
		b.WriteString("SELECT 1 FROM " + m + " TABLESAMPLE SYSTEM (0) LIMIT 0; ")
	}
	if b.Len() == 0 {
		return nil
	}
	if err := e.simple(ctx, b.String()); err != nil {
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

// checkNoWrite refuses a read whose transaction was assigned an id.
func (e *Engine) checkNoWrite(ctx context.Context) error {
	rows, err := e.query(ctx, writeCheck)
	if err != nil {
		return mapErr(ctx, err)
	}
	if len(rows) != 1 || !isTrue(rows[0][0]) {
		return engines.NewError(engines.CodeDenied, ReasonWroteDuringRead, nil)
	}
	return nil
}

// nextName returns a fresh prepared statement name.
func (e *Engine) nextName() string {
	e.seq++
	return "dbeast_" + strconv.Itoa(e.seq)
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
