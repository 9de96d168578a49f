# The commands the README names. Each installs what it needs itself.
#   make demo   - build the component and run the fake agent loop
#   make test   - formatting, clippy (host and guest), every test
#   make soak   - the property tests with many more cases (SOAK_CASES, default 100000)
#   make wit    - print the component's WIT as built

CARGO ?= cargo
GUEST_FLAGS := --profile guest --target wasm32-wasip2 -p toolcap-guest --target-dir target/wasm-guest
GUEST_WASM := target/wasm-guest/wasm32-wasip2/guest/toolcap_guest.wasm
HOST_CRATES := -p toolcap-core -p host-demo -p toolcap-tests

.PHONY: demo test soak check fmt-check clippy guest setup wit

SOAK_CASES ?= 100000

setup:
	@command -v rustup >/dev/null && rustup target list --installed | grep -qx wasm32-wasip2 \
		|| rustup target add wasm32-wasip2

guest: setup
	$(CARGO) build $(GUEST_FLAGS)

demo: setup
	$(CARGO) run --release -p host-demo

test: setup check
	$(CARGO) test --release $(HOST_CRATES)

soak:
	PROPTEST_CASES=$(SOAK_CASES) $(CARGO) test --release -p toolcap-core

check: fmt-check clippy

fmt-check:
	$(CARGO) fmt --all -- --check

clippy: setup
	$(CARGO) clippy --release $(HOST_CRATES) --all-targets -- -D warnings
	$(CARGO) clippy $(GUEST_FLAGS) -- -D warnings

wit: guest
	npx --yes @bytecodealliance/jco@1.35.0 wit $(GUEST_WASM)
