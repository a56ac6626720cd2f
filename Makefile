# Everything a fresh machine with python3 (>=3.11) and make needs.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test bench lint clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/seotda-server $(ARGS)

# `make test`: the whole suite with the Textual tuning (seotda_tui/tuning/) on, then the
# STOCK_TESTS again on Textual's stock paths (SEOTDA_STOCK_TEXTUAL=1, ~1.5 min): the crash
# guard (test_tuning), every SVG snapshot (the same screens both ways), the pilot UI and the
# SSH lobby, table and server tests, and the compositor comparisons. Left out there: the tests
# of the speed-ups themselves (they measure what stock Textual does not do) and the slow ones.
# `make test ARGS="tests/test_foo.py"` runs only those, tuning on.
STOCK_TESTS := tests/test_tuning.py tests/test_snapshots.py tests/test_app_pilot.py \
	tests/test_ssh_lobby.py tests/test_ssh_table.py tests/test_ssh_server.py tests/test_compositor.py

test: $(STAMP)
ifeq ($(ARGS),)
	$(BIN)/python -m pytest -q
	SEOTDA_STOCK_TEXTUAL=1 $(BIN)/python -m pytest -q $(STOCK_TESTS)
else
	$(BIN)/python -m pytest -q $(ARGS)
endif

bench: $(STAMP)
	$(BIN)/pip install --quiet -e '.[bench]'
	$(BIN)/python bench/rules_bench.py
	$(BIN)/python bench/engine_bench.py

lint: $(STAMP)
	$(BIN)/pip install --quiet -e '.[dev]'
	$(BIN)/ruff check engine seotda_tui tests bench
	$(BIN)/mypy
	$(BIN)/lint-imports  # the layer contracts in pyproject.toml (also tests/test_architecture.py)

clean:
	rm -rf $(VENV) build *.egg-info
