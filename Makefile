# Two commands on a fresh machine: `make demo` and `make test`. Both create .venv when it is missing
# or older than pyproject.toml, and reuse it otherwise.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEMO := fixtures/demo
ROWS ?= 1000000
ENGINE ?= duckdb
comma := ,
# Spark's tests need a Java runtime: where one is installed, the venv gets pyspark too (trainledger[spark]).
EXTRAS := dev$(if $(shell command -v java 2>/dev/null),$(comma)spark)

.PHONY: install demo test check lint format typecheck bench clean postmortem-screenshot

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[$(EXTRAS)]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	rm -rf $(DEMO)
	$(BIN)/python fixtures/generate.py --out $(DEMO)
	cp fixtures/demo.toml $(DEMO)/trainledger.toml
	cp fixtures/offcloud-ledger.csv $(DEMO)/offcloud-ledger.csv
	@# nightly exits 2 when a budget threshold is crossed (the demo's is): that is a result, not a failure.
	cd $(DEMO) && ../../$(BIN)/trainledger nightly || test $$? -eq 2
	cd $(DEMO) && ../../$(BIN)/trainledger labels
	cd $(DEMO) && ../../$(BIN)/trainledger reconcile exp-sft-0412
	cd $(DEMO) && ../../$(BIN)/trainledger reconcile exp-opd-0425
	cd $(DEMO) && ../../$(BIN)/trainledger reconcile exp-rl-0421
	cd $(DEMO) && ../../$(BIN)/trainledger report --by waste,project

# A documented manual check, not part of `make test` (CI has no browser): render the demo's HTML
# post-mortem in headless Chromium (Debian package `chromium`) and look at the screenshot.
postmortem-screenshot: demo
	cd $(DEMO) && ../../$(BIN)/trainledger reconcile exp-rl-0419 --format html --out postmortem.html
	chromium --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update \
		--disable-sync --no-first-run --screenshot=$(CURDIR)/$(DEMO)/postmortem.png --window-size=1200,1400 \
		file://$(CURDIR)/$(DEMO)/postmortem.html
	@echo "look at $(DEMO)/postmortem.png"

test: $(STAMP)
	$(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check src tests fixtures bench
	$(BIN)/ruff format --check src tests fixtures bench

format: $(STAMP)
	$(BIN)/ruff format src tests fixtures bench
	$(BIN)/ruff check --fix src tests fixtures bench

typecheck: $(STAMP)
	$(BIN)/mypy src

check: lint typecheck test

clean:
	rm -rf $(VENV) $(DEMO) .pytest_cache .ruff_cache .mypy_cache

# Not part of `make test`: `make bench ROWS=1000000,10000000 BENCHFLAGS=--profile` (see BENCHMARKS.md);
# `make bench ENGINE=spark ROWS=1000000` runs trainledger on Spark, local[1] then local[2].
bench: $(STAMP)
	$(BIN)/python bench/run.py --rows $(ROWS) --engine $(ENGINE) $(BENCHFLAGS)
