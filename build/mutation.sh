#!/bin/sh
# build/mutation.sh: mutation testing of the safety-critical code (make
# mutation, issue 34). For each source file it runs gremlins (pinned by the
# Makefile) on that file alone: gremlins flips a condition, a boundary, an
# operator or a sign, runs the package's tests, and calls the mutant killed
# when a test fails. A mutant that lives is a change to the safety code that
# no test notices; docs/conformance.md ("Mutation testing") lists each one
# as killed by a later test or equivalent, with the reason.
#
# Bounded: one worker, nice 19, a per-file timeout (MUTATION_FILE_TIMEOUT)
# and a whole-run budget (MUTATION_BUDGET seconds; files not started in time
# are listed as "not run" and the next run picks them up).
# Resumable: each file's result is kept in artifacts/mutation/files/ under
# the SHA-256 of the file, its package's tests, the dialect's corpus and the
# gremlins flags; a run skips a file whose key is unchanged, so adding a
# test reruns only the packages it can affect. MUTATION_FRESH=1 drops the
# kept results; MUTATION_REPORT_ONLY=1 runs nothing and writes the report
# from what is kept.
#
# The engines' proof, guard, revalidation and cache files need live servers
# (DBEAST_TEST_POSTGRES_DSN, DBEAST_TEST_MYSQL_DSN; without one, that
# engine's files are listed as "not run: no DSN"). Their packages' whole
# suites take minutes, so each mutant runs the tests that exercise those
# files (MUTATION_ENGINE_RUN, a go test -run pattern).
#
#   MUTATION_FILES="verifier/sqlite/cost.go" build/mutation.sh   # chosen files
#   MUTATION_SCOPE=verifier build/mutation.sh                     # verifier only
set -eu
GO=${GO:-go}
GREMLINS=${GREMLINS:?GREMLINS names the gremlins binary (make mutation installs it)}
OUT=${MUTATION_OUT:-artifacts/mutation}
SCOPE=${MUTATION_SCOPE:-all}
FILE_TIMEOUT=${MUTATION_FILE_TIMEOUT:-3600}
BUDGET=${MUTATION_BUDGET:-0}
COEFF=${MUTATION_TIMEOUT_COEFFICIENT:-30}
ENGINE_RUN=${MUTATION_ENGINE_RUN:-Proof|Guard|Reval|Cache|Catalog|Func|Rel|Grant|Dep|Verdict}
command -v jq >/dev/null || { echo "mutation: jq is needed for the report (apt-get install jq)"; exit 1; }
command -v sha256sum >/dev/null || { echo "mutation: sha256sum is needed"; exit 1; }

mkdir -p "$OUT/files" "$OUT/logs"
if [ "${MUTATION_FRESH:-0}" = 1 ]; then rm -f "$OUT"/files/* "$OUT"/logs/*; fi
flags="--workers 1 --timeout-coefficient $COEFF"
gver=${GREMLINS_PKG:-gremlins}

FIRST="verifier/dialect/dialect.go verifier/verifier.go verifier/outputs.go verifier/cost.go verifier/refusal.go
verifier/sqlite/cost.go verifier/sqlite/growth.go verifier/sqlite/full.go verifier/sqlite/verify.go
verifier/sqlite/scope.go verifier/sqlite/write.go verifier/sqlite/walk.go verifier/sqlite/funcs.go
verifier/mysql/cost.go verifier/mysql/growth.go verifier/mysql/sqlmode.go verifier/mysql/verify.go
verifier/mysql/scope.go verifier/mysql/write.go verifier/mysql/funcs.go verifier/mysql/walk.go
verifier/postgres/cost.go verifier/postgres/growth.go verifier/postgres/attribute.go verifier/postgres/verify.go
verifier/postgres/outputs.go verifier/postgres/write.go verifier/postgres/funcs.go verifier/postgres/casts.go
verifier/postgres/printfuncs.go verifier/postgres/print.go verifier/postgres/walk.go verifier/depth.go"

# The file list: the verifier packages' sources, then the engines' proof,
# guard, revalidation and cache files. Generated tables (keywords.go) and
# the pg_query wrapper under internal/ are left out: they are data and a
# third-party parser, not decisions.
list_files() {
	if [ -n "${MUTATION_FILES:-}" ]; then
		for f in $MUTATION_FILES; do echo "$f"; done
		return
	fi
	if [ "$SCOPE" = all ] || [ "$SCOPE" = verifier ]; then
		# The decisions first (entry points, scope, growth and cost bounds,
		# write gates, allowlists, printers), the parsers and lexers last, so
		# a run cut short by its budget has scored what matters most.
		for f in $FIRST; do echo "$f"; done
		for d in verifier verifier/dialect verifier/sqlite verifier/mysql verifier/postgres; do
			for f in "$d"/*.go; do
				case "$f" in *_test.go | verifier/postgres/keywords.go) continue ;; esac
				case " $(echo $FIRST) " in *" $f "*) continue ;; esac
				echo "$f"
			done
		done
	fi
	if [ "$SCOPE" = all ] || [ "$SCOPE" = engines ]; then
		for e in sqlite postgres mysql; do
			for f in engines/$e/proof*.go engines/$e/*guard*.go engines/$e/revalidate.go engines/$e/cache.go; do
				case "$f" in *_test.go) continue ;; esac
				[ -f "$f" ] && echo "$f"
			done
		done
	fi
	return 0
}

# dialect_of prints the corpus dialect a file's tests read (corpus/<d>/).
dialect_of() {
	case "$1" in
	*/sqlite/*) echo sqlite ;;
	*/mysql/*) echo mysql ;;
	*/postgres/*) echo postgres ;;
	*) echo "" ;;
	esac
}

key_of() {
	f=$1
	d=$(dirname "$f")
	dia=$(dialect_of "$f")
	{
		echo "$gver $flags $ENGINE_RUN"
		sha256sum "$f"
		for t in "$d"/*_test.go; do [ -f "$t" ] && sha256sum "$t"; done
		if [ -n "$dia" ] && [ -d "corpus/$dia" ]; then sha256sum corpus/"$dia"/* ; fi
		# The verifier root package's tests read every dialect's corpus.
		if [ -z "$dia" ] && [ -d corpus ]; then find corpus -type f | sort | xargs sha256sum; fi
	} 2>/dev/null | sha256sum | cut -c1-64
}

start=$(date +%s)
: >"$OUT/notrun.txt"
for f in $(list_files); do
	d=$(dirname "$f")
	b=$(basename "$f")
	id=$(echo "$f" | tr / _)
	res="$OUT/files/$id.json"
	key=$(key_of "$f")
	if [ -f "$res" ] && [ "$(jq -r '.dbeast_key // ""' "$res")" = "$key" ]; then
		echo "== $f: kept result (unchanged)"
		continue
	fi
	if [ "${MUTATION_REPORT_ONLY:-0}" = 1 ] || { [ "$BUDGET" -gt 0 ] && [ $(($(date +%s) - start)) -ge "$BUDGET" ]; }; then
		if [ -f "$res" ]; then
			echo "$f	stale: the result shown predates a change to the file, its tests or the corpus (budget)" >>"$OUT/notrun.txt"
		else
			echo "$f	not run: budget" >>"$OUT/notrun.txt"
		fi
		continue
	fi
	# -count=1: gremlins times each mutant against the coverage run, which
	# must therefore run the tests, not replay go test's cache.
	goflags="${GOFLAGS:-} -count=1"
	case "$f" in
	engines/postgres/*)
		if [ -z "${DBEAST_TEST_POSTGRES_DSN:-}" ]; then echo "$f	not run: no DSN" >>"$OUT/notrun.txt"; continue; fi
		goflags="$goflags -run=$ENGINE_RUN" ;;
	engines/mysql/*)
		if [ -z "${DBEAST_TEST_MYSQL_DSN:-}" ]; then echo "$f	not run: no DSN" >>"$OUT/notrun.txt"; continue; fi
		goflags="$goflags -run=$ENGINE_RUN" ;;
	engines/*) goflags="$goflags -run=$ENGINE_RUN" ;;
	esac
	# Every other file of the package, and anything in a subfolder, is
	# excluded, so the run mutates this file only.
	others=$(for o in "$d"/*.go; do
		ob=$(basename "$o")
		case "$ob" in *_test.go | "$b") continue ;; esac
		printf '%s|' "$(echo "$ob" | sed 's/\./\\./g')"
	done)
	others=${others%|}
	set -- -E '/'
	if [ -n "$others" ]; then set -- "$@" -E "^($others)\$"; fi
	echo "== $f"
	tmp="$OUT/files/$id.tmp"
	rm -f "$tmp"
	t0=$(date +%s)
	# shellcheck disable=SC2086 # $flags is a list of flags
	if GOFLAGS="$goflags" timeout "$FILE_TIMEOUT" nice -n 19 "$GREMLINS" unleash $flags "$@" -o "$tmp" "./$d" >"$OUT/logs/$id.log" 2>&1 && [ -s "$tmp" ]; then
		jq --arg key "$key" --arg file "$f" --argjson secs $(($(date +%s) - t0)) \
			'. + {dbeast_key: $key, dbeast_file: $file, dbeast_seconds: $secs}' "$tmp" >"$res"
		rm -f "$tmp"
		grep -E '^(Killed|Timed out)' "$OUT/logs/$id.log" | tr '\n' ' '
		echo
	else
		rm -f "$tmp"
		echo "$f	not run: gremlins failed or passed the ${FILE_TIMEOUT}s file timeout (log: $OUT/logs/$id.log)" >>"$OUT/notrun.txt"
		echo "   failed or timed out; see $OUT/logs/$id.log"
	fi
done

# The report: one row per file, the survivors by position, the totals per
# group (verifier, engines).
jq -s -r --rawfile notrun "$OUT/notrun.txt" '
  def count(s): [.files[].mutations[] | select(.status == s)] | length;
  def row: {file: .dbeast_file, killed: count("KILLED"), lived: count("LIVED"),
            timedout: count("TIMED OUT"), notcovered: count("NOT COVERED"),
            notviable: count("NOT VIABLE"), seconds: .dbeast_seconds,
            survivors: [.files[].mutations[] | select(.status == "LIVED")
                        | "\(.line):\(.column) \(.type)"] | sort};
  def pct(k; l): if (k + l) == 0 then "-" else ((k * 1000 / (k + l) | floor) / 10 | tostring) + "%" end;
  def group(g): [.[] | select(.file | startswith(g))]
    | {killed: (map(.killed) | add // 0), lived: (map(.lived) | add // 0),
       timedout: (map(.timedout) | add // 0), notcovered: (map(.notcovered) | add // 0),
       notviable: (map(.notviable) | add // 0)};
  def line(n; t): "| \(n) | \(t.killed) | \(t.lived) | \(t.timedout) | \(t.notcovered) | \(t.notviable) | \(pct(t.killed; t.lived)) |";
  [.[] | row] | sort_by(.file) as $rows |
  "# Mutation testing report (make mutation)\n",
  "Killed / (killed + survived) is the score; a timed-out mutant made the tests hang or overrun and counts as neither.\n",
  "| group | killed | survived | timed out | not covered | not viable | score |",
  "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
  line("verifier"; $rows | group("verifier/")),
  line("engines"; $rows | group("engines/")),
  "",
  "| file | killed | survived | timed out | not covered | not viable | score |",
  "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
  ($rows[] | line(.file; .)),
  "",
  "## Survivors",
  ($rows[] | select(.lived > 0) | "- \(.file): \(.survivors | join(", "))"),
  "",
  "## Not run",
  ($notrun | if . == "" then "(none)" else . end)
' "$OUT"/files/*.json >"$OUT/report.md" 2>/dev/null || echo "mutation: no results yet" >"$OUT/report.md"
echo "report: $OUT/report.md"
