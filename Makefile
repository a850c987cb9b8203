# rtlab: `make run` does the main job on this machine, `make test` proves it.
VENV ?= .venv
PY := $(VENV)/bin/python
RTLAB := $(VENV)/bin/rtlab
STAMP := $(VENV)/.setup-done
SETUP_INPUTS := pyproject.toml deps/apt.txt scripts/setup.sh $(wildcard deps/setup.d/*.sh) \
	native/Cargo.toml native/pyproject.toml $(wildcard native/src/*.rs) \
	plugins/qemu-cycles/Cargo.toml $(wildcard plugins/qemu-cycles/src/*.rs)

.PHONY: setup run test test-kernels bench results fuzz lint clean

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

# The tests that build and run the RTOS kernels you bring (README: bring your own kernels;
# each skips in one line without its variables), two at a time over one build/ cache:
# a module's tests on one worker, test_every_rtos.py's RTOSes side by side; the 30
# slowest tests listed at the end (where a cold run's time goes: its builds).
KERNEL_TESTS := tests/lab/targets tests/lab/test_rtos_matrix.py tests/lab/test_uf2.py \
	tests/lab/test_uf2_rp2350.py tests/test_results_pages.py
test-kernels: setup
	$(PY) -m pytest -q -n 2 --dist loadgroup --durations=30 $(KERNEL_TESTS)

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
