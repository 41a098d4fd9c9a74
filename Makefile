# Two commands: `make run` starts Mizan, `make test` runs every test. Both install what they need.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
PORT   ?= 8501

.PHONY: run test lint bench chromium postgresql nginx clean

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

# Debian's nginx: the deployment fault tests start deploy/run.sh (nginx in front of the app).
nginx:
	@command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq nginx; }

run: $(VENV)/.runtime
	$(BIN)/streamlit run app.py --server.port $(PORT)

lint: $(VENV)/.dev
	$(BIN)/ruff check .

test: $(VENV)/.dev chromium postgresql nginx
	$(BIN)/ruff check .
	$(BIN)/pytest -n 2 -q --durations=25

bench: $(VENV)/.bench
	$(BIN)/python bench/run_all.py

# A classroom server: PROCS supervised Streamlit processes behind nginx, a local PostgreSQL
# (deploy/run.sh, deploy/README.md). HTTPS: CERT=/path/fullchain.pem KEY=/path/privkey.pem,
# or TLS=self-signed on a closed network; plain HTTP otherwise.
PROCS ?= 2
CERT ?=
KEY ?=
TLS ?=
CLASSROOM_PORT ?= $(if $(or $(CERT),$(TLS)),8443,8080)
CLASSROOM_TLS = $(if $(CERT),--tls-cert $(CERT) --tls-key $(KEY),$(if $(filter self-signed,$(TLS)),--self-signed,))
.PHONY: classroom
classroom: $(VENV)/.runtime
	deploy/run.sh $(PROCS) --port $(CLASSROOM_PORT) --postgres $(CLASSROOM_TLS)

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
