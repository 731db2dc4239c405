# The whole set-up is `make run` (try it) and `make test` (check it).
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
SANDBOX_PORT ?= 8001
PORTAL_PORT ?= 8000

.PHONY: run test sandbox bench soak lint format install clean manage system-packages docs-build docs \
	screenshots messages

# The development commands: there the portal may run with its development secret key (without
# SECRET_KEY, the portal refuses to start unless DEBUG is on; portal/settings.py).
run test sandbox bench soak manage screenshots messages: export PORTAL_DEVELOPMENT = true

# Finds Python 3.13 (or 3.12), including pyenv versions that are installed but not selected.
define find_python
for candidate in python3.13 python3.12 $$HOME/.pyenv/versions/3.13*/bin/python3.13 \
    $$HOME/.pyenv/versions/3.12*/bin/python3.12 /usr/local/bin/python3.13 /usr/bin/python3.13; do \
  if "$$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then \
    echo "$$candidate"; exit 0; fi; \
done; exit 1
endef

$(PY):
	@python=$$($(find_python)) || { \
	  echo "No Python 3.12 or newer was found. Install Python 3.13 (or 3.12) and run this again." >&2; \
	  exit 1; }; \
	echo "Creating $(VENV) with $$python"; \
	"$$python" -m venv $(VENV)

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

AXE := node_modules/axe-core/axe.min.js

# axe-core, which the browser tests inject into pages to check their accessibility, and
# Lighthouse, which scores the passport look-up (both in package.json).
$(AXE): package.json
	@command -v npm >/dev/null || { echo "npm is needed for the browser tests' axe-core and Lighthouse." >&2; exit 1; }
	npm install --silent
	@touch $(AXE)

# The catalogues of translations (locale/, docs/welsh.md) compiled, as every command that runs
# the portal needs them: GNU gettext's msgfmt, which make installs from Debian's packages when it
# is missing, checks each (placeholders included). Compiled here, never committed.
CATALOGUES := $(wildcard locale/*/LC_MESSAGES/*.po locale/*/*/LC_MESSAGES/*.po)
COMPILED := $(CATALOGUES:.po=.mo)

$(COMPILED): %.mo: %.po
	@command -v msgfmt >/dev/null || scripts/install-system-packages --only gettext
	@msgfmt --check --output-file=$@ $<

install: $(STAMP) $(COMPILED)

# The catalogues brought up to date with the code (new strings added, gone ones removed, every
# file's strings in its own order), for their Welsh to be written (docs/welsh.md).
messages: install
	@$(PY) manage.py makemessages
	@$(MAKE) --no-print-directory install

run: install
	@$(PY) -m scripts.run

sandbox: install
	@$(PY) -m scripts.sandbox --port $(SANDBOX_PORT)

# Debian's Chromium, HarfBuzz subsetter and nginx, installed when missing if it may (root or sudo
# without a password); otherwise it says what to install and stops.
system-packages:
	@scripts/install-system-packages

# The suite on a worker per core (pytest-xdist; TEST_WORKERS=0 runs it in this one process), each
# worker with test databases, a sandbox, a job queue and ports of its own, given a module at a
# time, those with slow tests first (tests/conftest.py); then its 20 slowest tests.
TEST_WORKERS ?= auto
test: install $(AXE) system-packages
	@$(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder --durations=20 \
	  $(PYTEST_ARGS)

# The documentation (mkdocs.yml, docs/) on this machine, on DOCS_PORT or a free port; it reloads
# as pages change. make docs-build builds it into site/ with --strict, as make test does
# (tests/test_docs.py). Material for MkDocs prints a notice of its end of life (May 2027) as it
# starts: the project knows (docs/developing/index.md), so these commands turn it off.
docs docs-build: export NO_MKDOCS_2_WARNING = 1

docs: install
	@port=$${DOCS_PORT:-$$($(PY) -c 'from scripts.servers import free_port; print(free_port())')}; \
	echo "The documentation: http://127.0.0.1:$$port/ (Ctrl-C stops it)"; \
	$(PY) -m mkdocs serve --dev-addr "127.0.0.1:$$port"

docs-build: install
	$(PY) -m mkdocs build --strict

# The pictures of docs/using/, taken by the browser tests as each person uses the portal.
screenshots: install $(AXE) system-packages
	@PORTAL_SCREENSHOTS=docs/images $(PY) -m pytest tests/e2e/test_screenshots.py -q

# A manage.py command against the databases `make run` uses: make manage ARGS="grant_staff grower"
manage: install
	@$(PY) -m scripts.manage $(ARGS)

bench: install
	@scripts/install-system-packages wrk
	@$(PY) -m bench

# The whole system on parts of its own, under load, its parts killed and restarted on a seeded
# schedule; then what was lost, doubled or stuck (soak/). SOAK_MINUTES (10), SOAK_SEED.
soak: install
	@$(PY) -m soak

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports --no-cache

format: install
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

clean:
	rm -rf $(VENV) var .pytest_cache
