# Two commands: `make run` starts Mizan, `make test` runs every test. Both install what they need.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
PORT   ?= 8501

.PHONY: run test lint bench chromium postgresql clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.runtime: requirements.txt | $(BIN)/python
	$(BIN)/pip install -q -r requirements.txt
	touch $@

$(VENV)/.dev: requirements.txt requirements-dev.txt | $(BIN)/python
	$(BIN)/pip install -q -r requirements-dev.txt
	touch $@ $(VENV)/.runtime

$(VENV)/.bench: requirements-bench.txt $(VENV)/.dev
	$(BIN)/pip install -q -r requirements-bench.txt
	touch $@

# Debian's Chromium: Playwright cannot download its own browser here.
chromium:
	@command -v chromium >/dev/null || { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq chromium; }

# Debian's PostgreSQL server binaries: the live classroom's database tests start a throwaway cluster.
postgresql:
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq postgresql; }

run: $(VENV)/.runtime
	$(BIN)/streamlit run app.py --server.port $(PORT)

lint: $(VENV)/.dev
	$(BIN)/ruff check .

test: $(VENV)/.dev chromium postgresql
	$(BIN)/ruff check .
	$(BIN)/pytest -n 2 -q

bench: $(VENV)/.bench
	$(BIN)/python bench/run_all.py

# A classroom server: PROCS Streamlit processes behind nginx (sticky), one database (deploy/run.sh).
PROCS ?= 2
CLASSROOM_PORT ?= 8080
.PHONY: classroom
classroom: $(VENV)/.runtime
	deploy/run.sh $(PROCS) --port $(CLASSROOM_PORT) --postgres

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
