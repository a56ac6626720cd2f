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

test: $(STAMP)
	$(BIN)/python -m pytest -q $(ARGS)

bench: $(STAMP)
	$(BIN)/pip install --quiet -e '.[bench]'
	$(BIN)/python bench/rules_bench.py
	$(BIN)/python bench/engine_bench.py

lint: $(STAMP)
	$(BIN)/pip install --quiet -e '.[dev]'
	$(BIN)/ruff check engine seotda_tui tests bench
	$(BIN)/mypy

clean:
	rm -rf $(VENV) build *.egg-info
