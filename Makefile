# Release Atlas: the commands a newcomer needs. `make help` lists them; each calls `atlas <command>`.
PY      ?= python3
VENV    ?= .venv
BIN     := $(VENV)/bin
HOST    ?= 127.0.0.1
PORT    ?= 8000
STAMP   := $(VENV)/.installed
ATLAS   := $(BIN)/atlas
# Material and MkDocs print a banner about MkDocs 2 on every run; it is not actionable here.
export NO_MKDOCS_2_WARNING := 1
export DISABLE_MKDOCS_2_WARNING := true

.DEFAULT_GOAL := help
.PHONY: help serve build test linkcheck lint fuzz check provenance i18n-status stale publish-ids evidence evidence-verify companions runtime runtime-verify prove bench clean

help: ## list the commands
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-15s %s\n", $$1, $$2}'

$(STAMP): requirements.txt requirements-test.txt pyproject.toml
	@$(PY) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11+ is required (found " + sys.version.split()[0] + ")")'
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements-test.txt
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	@touch $@

SERVE_LANG ?=
serve: $(STAMP) ## serve on http://127.0.0.1:8000/, rebuilt on every edit under data/ scripts/ overrides/ docs/ (SERVE_LANG=ru: one language, faster)
	$(ATLAS) serve --dev-addr $(HOST):$(PORT) $(if $(SERVE_LANG),--lang $(SERVE_LANG))

build: $(STAMP) ## build the site into site/ (strict; a bad data file keeps the old site)
	$(ATLAS) build

test: $(STAMP) ## run the whole test suite (lint, data, translations, templates, site, links, real browser)
	$(BIN)/python scripts/dev/ensure_browser.py
	$(BIN)/ruff check scripts tests
	$(BIN)/python -m pytest

linkcheck: build ## LinkChecker over the whole built site, every link and anchor (.ci/run; make test runs it on the small history)
	$(BIN)/python scripts/dev/check_links.py site

lint: $(STAMP) ## ruff on the package, the tools and the tests
	$(BIN)/ruff check scripts tests

N ?= 5000
fuzz: $(STAMP) ## mutate the data files N times (default 5000; make fuzz N=20000 FUZZ_SEED=7) and check every error is clean
	FUZZ_N=$(N) $(BIN)/python -m pytest tests/test_fuzz.py -q -k "not full_build"

check: $(STAMP) ## validate data and translations only (fast)
	$(ATLAS) i18n status
	$(BIN)/python -m pytest tests/test_data.py tests/test_i18n.py -q

provenance: $(STAMP) ## check every source locator and value against the articles in ../shared/sources
	$(ATLAS) provenance

i18n-status: $(STAMP) ## translation counts per language
	$(ATLAS) i18n status

stale: $(STAMP) ## list translations whose English text changed since they were made
	$(ATLAS) i18n stale

publish-ids: $(STAMP) ## add new change ids to the ledger of permanent URLs
	$(ATLAS) publish-ids

evidence: $(STAMP) ## read the torch wheels from PyPI: API surfaces, every name and message in data/, probes; rewrite the locks
	$(ATLAS) evidence

evidence-verify: $(STAMP) ## re-extract everything from the wheels; fail on any difference from the locks (CI)
	$(ATLAS) evidence --verify

companions: $(STAMP) ## read torchvision, torchaudio, vllm... from the package index (METADATA, tags, upload dates); rewrite data/companions.lock.yaml
	$(ATLAS) companions

runtime: $(STAMP) ## install each torch release into a throwaway venv, import it, resolve every name; rewrite data/evidence/runtime-*.txt (V="2.6.0 2.15.0": only these)
	$(ATLAS) runtime $(V)

prove: $(STAMP) ## install each torch release into a throwaway venv and run every curated change's proof; rewrite data/evidence/proofs-*.json (V="2.6.0": only these)
	$(ATLAS) prove $(V)

RUNTIME_CI ?= 2.6.0 2.15.0
runtime-verify: $(STAMP) ## re-install the releases of RUNTIME_CI (default: 2.6.0 2.15.0) and fail on any difference from their runtime and proof locks (CI)
	$(ATLAS) runtime --verify $(RUNTIME_CI)

TORCHFIX := .cache/torchfix/bin/torchfix
$(TORCHFIX):
	$(PY) -m venv .cache/torchfix
	.cache/torchfix/bin/python -m pip install --quiet --disable-pip-version-check torchfix==0.7.0

bench: $(STAMP) $(TORCHFIX) ## measure the build against plain Material, serve, page weight, the upgrade checker (vs TorchFix); writes BENCHMARKS.md
	$(BIN)/python scripts/dev/bench.py
	$(BIN)/python scripts/dev/bench_check.py --torchfix $(TORCHFIX) --write

clean: ## remove the virtualenv, the built site and the generated pages (needs no virtualenv)
	PYTHONPATH=scripts $(PY) -m atlas.generated docs
	rm -rf $(VENV) site site.old .site-* build .pytest_cache test-artifacts .cache
