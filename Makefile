# rtlab: `make run` does the main job on this machine, `make test` proves it.
VENV ?= .venv
PY := $(VENV)/bin/python
RTLAB := $(VENV)/bin/rtlab
STAMP := $(VENV)/.setup-done
SETUP_INPUTS := pyproject.toml deps/apt.txt scripts/setup.sh $(wildcard deps/setup.d/*.sh) \
	native/Cargo.toml native/pyproject.toml $(wildcard native/src/*.rs) \
	plugins/qemu-cycles/Cargo.toml $(wildcard plugins/qemu-cycles/src/*.rs)

.PHONY: setup run test test-kernels test-boards bench results fuzz lint clean

setup: $(STAMP)

$(STAMP): $(SETUP_INPUTS)
	VENV=$(VENV) scripts/setup.sh
	touch $@

run: setup
	VENV=$(VENV) scripts/run-example.sh

# Two pytest workers: a module's tests stay on one (tests/conftest.py groups them), so
# its builds and guests are made once; twice the throughput of one on the 2-core floor.
TEST_WORKERS ?= 2
test: setup
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/lint-imports --no-cache  # the layering of docs/architecture.md (pyproject.toml)
	$(VENV)/bin/mypy  # pyproject.toml [tool.mypy]: strict where types are the interface
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadgroup

# The tests that need the RTOS kernels you bring (marked `kernel`; each skips in one line
# without its variables, and make test fails a kernel skip that is unmarked), two at a
# time over one build/ cache: a module's tests on one worker, test_every_rtos.py's RTOSes
# side by side; the 30 slowest listed at the end (where a cold run's time goes: builds).
# test-kernels: every RTOS on each board family's first boards; test-boards: the other
# boards and configurations (each a build of its own: the M7/M33/M0 mps2 cases, the other
# Nucleos and NuttX's own Nucleo builds, NuttX's assert build). Both: every kernel test.
KERNEL_RUN := $(PY) -m pytest -q -n 2 --dist loadgroup --durations=30 tests
test-kernels: setup
	$(KERNEL_RUN) -m "kernel and not boards"

test-boards: setup
	$(KERNEL_RUN) -m "kernel and boards"

bench: setup
	$(PY) bench/run_all.py

# docs/results/*.md from the commands they name (rtbench-qemu-freertos needs
# FREERTOS_KERNEL_PATH); `make test` checks them (tests/test_results_pages.py)
results: setup
	$(PY) bench/results_pages.py write rtbench-qemu-freertos rtbench-host analyze-speed

fuzz: setup
	$(PY) bench/fuzz_parsers.py --seconds 300

lint: setup
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/lint-imports --no-cache
	$(PY) scripts/module_sizes.py
	$(VENV)/bin/mypy

clean:
	rm -rf build .pytest_cache
