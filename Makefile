# dbeast: `make help` lists the targets.
GO ?= go
BIN := bin/dbeast
TEST_TIMEOUT ?= 20m
# staticcheck 2026.2.2, the first release line that knows Go 1.26; go run
# fetches this exact version through the module proxy (checks in
# staticcheck.conf).
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
# gremlins v0.6.0 (mutation testing, make mutation), installed into bin/ by
# go install through the module proxy at this exact version.
GREMLINS_PKG ?= github.com/go-gremlins/gremlins/cmd/gremlins@v0.6.0

.PHONY: help build demo test race vet lint fmt bench load curves .dbhub fuzz mutation conformance matrix dbeast-matrix chromium tray dist dist-test

help: ## list the targets
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-14s %s\n", $$1, $$2}'

build: ## build the dbeast binary into bin/
	$(GO) build -o $(BIN) ./cmd/dbeast

demo: build ## run the broker on the embedded SQLite shop database
	./$(BIN) demo

test: vet ## run every test that can run here (live servers via DBEAST_TEST_*_DSN), then list what was skipped and why
	@rcfile=$$(mktemp); \
	( $(GO) test -json -count=1 -timeout $(TEST_TIMEOUT) ./...; echo $$? > $$rcfile ) | $(GO) run ./cmd/dbeast-testreport; rep=$$?; \
	rc=$$(cat $$rcfile); rm -f $$rcfile; [ "$$rc" = 0 ] && [ "$$rep" = 0 ]

race: ## run every test under the race detector (same DSNs as make test)
	$(GO) test -race -count=1 -timeout $(TEST_TIMEOUT) ./...

vet: ## gofmt check and go vet
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

lint: ## staticcheck (pinned version, checks in staticcheck.conf)
	$(GO) run $(STATICCHECK) ./...

bench: ## run the Go benchmarks, then the loopback load program (make load), then the scaling curves (make curves)
	$(GO) test -run '^$$' -bench . -benchmem ./...
	$(MAKE) load
	$(MAKE) curves

DBHUB_DIR := cmd/dbeast-bench/dbhub
LOAD_ARGS ?=

load: build ## DIRECT vs dbeast vs DBHub per engine and workload, then 16 agents for 60 s (LOAD_ARGS, e.g. -duration 10s)
	@if [ -x $(DBHUB_DIR)/node_modules/.bin/dbhub ]; then :; elif command -v npm >/dev/null; then \
	  (cd $(DBHUB_DIR) && npm ci --silent --no-audit --no-fund >/dev/null 2>&1) || echo "load: DBHub (pinned in $(DBHUB_DIR)/package-lock.json) could not be installed; measuring without it"; \
	else echo "load: npm not found; measuring without DBHub"; fi
	$(GO) build -o bin/dbeast-bench ./cmd/dbeast-bench
	dbhub=""; [ -x $(DBHUB_DIR)/node_modules/.bin/dbhub ] && dbhub=$(DBHUB_DIR)/node_modules/.bin/dbhub; \
	./bin/dbeast-bench -dbeast ./$(BIN) -dbhub "$$dbhub" $(LOAD_ARGS)

CURVES_DIR ?= docs/curves
CURVES_ARGS ?=

# .dbhub installs DBHub for the curves as load does for itself.
.dbhub:
	@if [ -x $(DBHUB_DIR)/node_modules/.bin/dbhub ]; then :; elif command -v npm >/dev/null; then \
	  (cd $(DBHUB_DIR) && npm ci --silent --no-audit --no-fund >/dev/null 2>&1) || echo "curves: DBHub (pinned in $(DBHUB_DIR)/package-lock.json) could not be installed; measuring without it"; \
	else echo "curves: npm not found; measuring without DBHub"; fi

curves: build .dbhub ## the scaling curves (issue 32) as PNGs and report.md in CURVES_DIR (docs/curves); CURVES_ARGS adds flags
	$(GO) build -o bin/dbeast-bench ./cmd/dbeast-bench
	dbhub=""; [ -x $(DBHUB_DIR)/node_modules/.bin/dbhub ] && dbhub=$(DBHUB_DIR)/node_modules/.bin/dbhub; \
	./bin/dbeast-bench -dbeast ./$(BIN) -dbhub "$$dbhub" -skip-latency -skip-load -curves $(CURVES_DIR) -out $(CURVES_DIR)/report.md $(CURVES_ARGS)

fuzz: ## run every fuzz target for FUZZTIME (default 20000x; a count, see docs/conformance.md)
	@for p in ./verifier/postgres ./verifier/mysql ./verifier/sqlite ./fuzz; do \
	  for f in $$($(GO) test -list '^Fuzz' $$p | grep '^Fuzz'); do \
	    echo "== $$p $$f"; \
	    par=""; [ "$$p" = ./fuzz ] && par="-parallel 1"; \
	    $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $${FUZZTIME:-20000x} $$par $$p || exit 1; \
	  done; \
	done

mutation: ## mutation score of the verifiers and the engines' proof/guard files, per file, resumable (build/mutation.sh; report in artifacts/mutation/)
	@[ -x bin/gremlins ] && [ "$$(cat bin/.gremlins 2>/dev/null)" = "$(GREMLINS_PKG)" ] || \
	  { GOBIN=$(CURDIR)/bin $(GO) install $(GREMLINS_PKG) && echo "$(GREMLINS_PKG)" > bin/.gremlins; }
	GREMLINS=$(CURDIR)/bin/gremlins GREMLINS_PKG=$(GREMLINS_PKG) GO=$(GO) build/mutation.sh

conformance: build ## long differential run against the live engines (CASES=20000, WORKERS=1 by default)
	./$(BIN) conformance --engine sqlite --cases $${CASES:-20000} --workers $${WORKERS:-1}
	@if [ -n "$$DBEAST_TEST_POSTGRES_DSN" ]; then ./$(BIN) conformance --engine postgres --cases $${CASES:-20000} --workers $${WORKERS:-1}; fi
	@if [ -n "$$DBEAST_TEST_MYSQL_DSN" ]; then ./$(BIN) conformance --engine mysql --cases $${CASES:-20000} --workers $${WORKERS:-1}; fi

matrix: ## PostgreSQL 13-18 without Docker: contract suite + conformance slice per version (conformance/matrix/run.sh)
	conformance/matrix/run.sh

dbeast-matrix: ## build dbeast-matrix (dbeast conformance plus the testcontainers version matrix; needs Docker to run)
	$(GO) build -o bin/dbeast-matrix ./cmd/dbeast-matrix

chromium: ## install Debian's Chromium for the console browser tests
	@command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium)

dist: ## versioned release archives + SHA-256 checksums in dist/ (VERSION, TARGETS; see build/dist.sh)
	build/dist.sh

dist-test: ## build one release archive (linux/amd64) and check it (slow: a -trimpath cgo build)
	DBEAST_TEST_DIST=1 $(GO) test -count=1 -timeout 60m -run TestDist -v ./cmd/dbeast

tray: ## build the tray app
	$(GO) build -o bin/dbeast-tray ./tray/cmd/dbeast-tray
