# Two commands matter: `make run` and `make test` (README). Everything else they need
# is installed or built on the way, so both work on a fresh Debian machine with Node 20.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
export REDOCLY_TELEMETRY := off
export REDOCLY_SUPPRESS_UPDATE_NOTICE := true
STAMP := node_modules/.install-stamp
CHROMIUM := /usr/bin/chromium
SQLITE3 := /usr/bin/sqlite3

.PHONY: run test install generate check-generated build lint-spec test-unit clean bench test-reliability test-cluster

run: generate build
	node dist/src/cli/seed-demo.js
	npm start --silent

# --forbid-pending here and in the two suites below: a test that does not run fails CI.
# Test files run in parallel, one process per core: each file makes its own databases and
# ports (test/support/db.ts), and much of a file's time is spent waiting on MariaDB and on
# the services it starts.
test: install $(CHROMIUM) $(SQLITE3) check-generated lint-spec build
	url=$$(scripts/ensure-mysql.sh); \
	DIALECTS=sqlite,mysql MYSQL_TEST_URL="$$url" npx mocha --forbid-pending --parallel --jobs $$(nproc)

# Build tools for better-sqlite3's native addon (node-gyp): present on our machines,
# installed on a bare one. The addon compiles SQLite from source (its prebuilt binaries are
# not reachable here), about 70 s of `npm ci`; ccache keeps the objects between clones, with
# paths taken relative to the clone, so a second clone on the machine links them in 2 s.
$(STAMP): package.json package-lock.json
	@command -v g++ >/dev/null && command -v python3 >/dev/null && command -v make >/dev/null || \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq g++ make python3)
	@command -v ccache >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ccache) || true
	if command -v ccache >/dev/null; then export CC="ccache gcc" CXX="ccache g++" CCACHE_BASEDIR="$(CURDIR)"; fi; \
	  npm ci --no-audit --no-fund --loglevel=error
	touch $@

install: $(STAMP)

# The browser suite (test/browser) drives Debian's Chromium through playwright-core;
# installed only when missing.
$(CHROMIUM):
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium

# test/db/operator-loading.test.ts runs the sqlite3 shell as an operator would.
$(SQLITE3):
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq sqlite3

generate: install
	node scripts/generate.mjs

check-generated: install
	node scripts/generate.mjs --check

lint-spec: install
	npx redocly lint generated/openapi.json generated/openapi-routes.json --config redocly.yaml

build: install
	rm -rf dist
	npx tsc -p tsconfig.json

# Without MySQL: the quick loop while editing.
test-unit: build $(CHROMIUM) $(SQLITE3)
	npx mocha

# Faults, load and soak (test/reliability, about 11 minutes): the built service against a
# private MariaDB that the tests start, stop and restart themselves on a port of their own;
# the shared server is never touched. Figures go to test-output/reliability.json. Then, on the
# shared server, the fuzzing at four times `make test`'s volume (20,000 malformed requests per
# engine) and the contract through its users' tools (.mocharc.cjs, SUITES=tools): about 5 minutes.
test-reliability: build $(CHROMIUM)
	test -x /usr/sbin/mariadbd || scripts/ensure-mysql.sh >/dev/null
	npx mocha --no-config --forbid-pending --timeout 600000 --exit 'dist/test/reliability/**/*.test.js'
	url=$$(scripts/ensure-mysql.sh); \
	DIALECTS=sqlite,mysql MYSQL_TEST_URL="$$url" FUZZ_REQUESTS=20000 npx mocha --no-config --forbid-pending --timeout 600000 --exit dist/test/fuzz/malformed-requests.test.js && \
	SUITES=tools DIALECTS=sqlite,mysql MYSQL_TEST_URL="$$url" npx mocha --forbid-pending --parallel --jobs $$(nproc)

# Several nodes: a private MariaDB primary with a replica replicating from it and three
# service nodes (test/cluster); a private three-node Galera cluster and two service nodes
# under faults (test/galera). Ports of their own; the shared server is never touched.
# Figures go to test-output/cluster.json and test-output/galera.json.
test-cluster: build
	test -x /usr/sbin/mariadbd || scripts/ensure-mysql.sh >/dev/null
	test -f /usr/lib/galera/libgalera_smm.so || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq galera-4 rsync)
	npx mocha --no-config --forbid-pending --timeout 600000 --exit 'dist/test/cluster/**/*.test.js' 'dist/test/galera/**/*.test.js'

# Three sides on the same requests in the same run: the bare node:http server (baseline.mjs),
# the floor of the service's libraries (floor.mjs: express 5, express.json(), ajv, res.json()
# around the same SQL and token check) and the service; service / floor and floor / bare in
# req/s and CPU per request (targets: service >= 0.95x the floor's req/s, <= 1.1x its CPU),
# `in` kind and mix, MySQL and SQLite; then WORKERS=2 against 1 and query shapes at 10k, 100k
# and 1M rows (scripts/bench/README.md, about 20 minutes once its databases are seeded).
# Writes scripts/bench/results.json and prints one table. BENCH_ARGS passes options, e.g.
# BENCH_ARGS="--quick" or "--only compare".
bench: build
	url=$$(scripts/ensure-mysql.sh); \
	MYSQL_URL="$$url" node scripts/bench/run.mjs $(BENCH_ARGS)

clean:
	rm -rf dist node_modules data
