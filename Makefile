# Release Atlas: the commands a newcomer needs. `make help` lists them.
PY      ?= python3
VENV    ?= .venv
BIN     := $(VENV)/bin
HOST    ?= 127.0.0.1
PORT    ?= 8000
STAMP   := $(VENV)/.installed
# Material and MkDocs print a banner about MkDocs 2 on every run; it is not actionable here.
export NO_MKDOCS_2_WARNING := 1
export DISABLE_MKDOCS_2_WARNING := true

.DEFAULT_GOAL := help
.PHONY: help serve build test check provenance i18n-status stale publish-ids evidence evidence-verify bench clean

help: ## list the commands
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

$(STAMP): requirements.txt requirements-test.txt
	@$(PY) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11+ is required (found " + sys.version.split()[0] + ")")'
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements-test.txt
	@touch $@

serve: $(STAMP) ## build and serve the site on http://127.0.0.1:8000/ (rebuilds on change)
	$(BIN)/mkdocs serve --dev-addr $(HOST):$(PORT)

build: $(STAMP) ## build the site into site/ (strict; a bad data file keeps the old site)
	$(BIN)/python scripts/build.py

test: $(STAMP) ## run the whole test suite (data, translations, templates, site, links, real browser)
	$(BIN)/python scripts/ensure_browser.py
	$(BIN)/python -m pytest

check: $(STAMP) ## validate data and translations only (fast)
	$(BIN)/python scripts/i18n.py status
	$(BIN)/python -m pytest tests/test_data.py tests/test_i18n.py -q

provenance: $(STAMP) ## check every source locator against ../shared/sources
	$(BIN)/python scripts/check_sources.py

i18n-status: $(STAMP) ## translation counts per language
	$(BIN)/python scripts/i18n.py status

stale: $(STAMP) ## list translations whose English text changed since they were made
	$(BIN)/python scripts/i18n.py stale

publish-ids: $(STAMP) ## add new change ids to the ledger of permanent URLs
	$(BIN)/python scripts/publish_ids.py

evidence: $(STAMP) ## read the torch wheels from PyPI: API surfaces, every name and message in data/, probes; rewrite the locks
	$(BIN)/python scripts/evidence.py

evidence-verify: $(STAMP) ## re-extract everything from the wheels; fail on any difference from the locks (CI)
	$(BIN)/python scripts/evidence.py --verify

bench: $(STAMP) ## measure build time, page weight and sizes (results go in README)
	$(BIN)/python scripts/bench.py

clean: ## remove the virtualenv, the built site and generated pages
	rm -rf $(VENV) site build .pytest_cache
	$(PY) -c 'import sys; sys.path.insert(0, "scripts"); from atlas.render import clean_generated; clean_generated()'
