# Everything a fresh machine with python3 (>=3.11) and make needs.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test soak bench lint clean i18n i18n-extract

# The message catalogues (seotda_tui/i18n.py): the .po files are the source, kept in git; the
# .mo files gettext reads are compiled from them by Babel before `make run` and `make test`
# (and by `make i18n`), so they can never be older than the .po they come from.
LOCALE := seotda_tui/locale
PO     := $(wildcard $(LOCALE)/*/LC_MESSAGES/seotda.po)
MO     := $(PO:.po=.mo)
BABEL_KEYWORDS := -k _ -k N_ -k ngettext:1,2 -k RoomError:2 -k OptionsError -k IllegalAction -k Refusal:2

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

$(LOCALE)/%/LC_MESSAGES/seotda.mo: $(LOCALE)/%/LC_MESSAGES/seotda.po $(STAMP)
	$(BIN)/pybabel compile --statistics -D seotda -i $< -o $@

i18n: $(MO)

# After changing texts in the code: the template, then new msgids into every .po (translate
# them, then `make i18n`; tests/test_i18n.py fails while one is missing).
i18n-extract: $(STAMP)
	$(BIN)/pybabel extract --no-location --sort-output -F babel.cfg $(BABEL_KEYWORDS) \
		--no-default-keywords -o $(LOCALE)/seotda.pot engine seotda_tui
	$(BIN)/pybabel update --no-fuzzy-matching --ignore-obsolete -D seotda \
		-i $(LOCALE)/seotda.pot -d $(LOCALE)

run: $(STAMP) $(MO)
	$(BIN)/seotda-server $(ARGS)

# `make test`: two pytest runs at once, each spread over the cores by pytest-xdist (-n). No test
# needs another's worker (each has its own port, tmp_path and monkeypatched env), so xdist hands
# them out one by one (its default); tests/conftest.py starts the longest files first. (No
# xdist_group marks: pytest-xdist 3.8's --dist loadgroup stops grouping under pytest 9.2
# without a word, pytest-xdist issue #1386.)
# - the whole suite with the Textual tuning (seotda_tui/tuning/) on, its output on the terminal;
# - beside it, the STOCK_TESTS again on Textual's stock paths (SEOTDA_STOCK_TEXTUAL=1), its output
#   kept in a file and printed after: the crash guard (test_tuning), every SVG snapshot (the same
#   screens both ways), the pilot UI and the SSH lobby, table and server tests, and the compositor
#   comparisons. Left out there: the tests of the speed-ups themselves (they measure what stock
#   Textual does not do) and the slow ones.
# Either failing fails `make test`. Long checks run at their short size (tests/tiers.py).
# `make soak`: the same two runs with SEOTDA_SOAK=1, every check at its long size (README, "Tests").
# `make test ARGS="tests/test_foo.py"` (or `make soak ARGS=...`) runs only those, tuning on.
STOCK_TESTS := tests/test_tuning.py tests/test_snapshots.py tests/test_app_pilot.py \
	tests/test_ssh_lobby.py tests/test_ssh_table.py tests/test_ssh_server.py tests/test_compositor.py \
	tests/test_i18n_snapshots.py tests/test_line_measures.py tests/test_xterm_parser.py
# Workers: the tests wait (on servers, screens, timers, subprocesses starting) much of their
# time, so the tuned run takes three workers a core, the stock run one more process beside it
# (2 cores, quiet box, 2,055 tests: 4 workers took 378 s wall and 654 s CPU with 1.73 cores busy;
# 6 took 310 s and 595 s CPU; 2 workers had left the box half idle). One test per dispatch (--maxschedchunk 1): xdist's
# default hands each worker a contiguous first batch, which gave one worker every slow file
# (tests/conftest.py starts them first) and left it running alone for minutes at the end.
WORKERS       ?= $(shell echo $$(( $$(nproc) * 3 )))
STOCK_WORKERS ?= 1
# Each worker, and each server the tests start as a subprocess, imports the package: bytecode
# caches (__pycache__, git-ignored) spare them compiling it, and pytest rewriting the tests, again.
PYTEST := env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest -q --durations=15 --maxschedchunk 1

define both_runs
	@stock_log=$$(mktemp); \
	SEOTDA_STOCK_TEXTUAL=1 $(PYTEST) -n $(STOCK_WORKERS) $(STOCK_TESTS) >"$$stock_log" 2>&1 & \
	stock_pid=$$!; \
	$(PYTEST) -n $(WORKERS); tuned=$$?; \
	wait $$stock_pid; stock=$$?; \
	echo "=== the stock-Textual run (SEOTDA_STOCK_TEXTUAL=1), beside the one above ==="; \
	cat "$$stock_log"; rm -f "$$stock_log"; \
	echo "=== $(1): tuned run exit $$tuned, stock-Textual run exit $$stock ==="; \
	[ $$tuned = 0 ] && [ $$stock = 0 ]
endef

test: $(STAMP) $(MO)
ifeq ($(ARGS),)
	$(call both_runs,make test)
else
	$(PYTEST) -n $(WORKERS) $(ARGS)
endif

soak: export SEOTDA_SOAK = 1
soak: $(STAMP) $(MO)
ifeq ($(ARGS),)
	$(call both_runs,make soak)
else
	$(PYTEST) -n $(WORKERS) $(ARGS)
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
