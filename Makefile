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

.PHONY: install demo test test-fast check lint format typecheck bench clean postmortem-screenshot focus-validator

# The FinOps Foundation's focus-validator (FOCUS 1.2 rules) needs Python 3.12: from PATH, else pyenv's
# (a pyenv shim that is not activated does not count).
# `make test` builds .venv-focus when one is found (once; cheap afterwards) and the FOCUS export test
# runs it; without a python3.12, or when the install fails, that test skips and says why.
FOCUS_PYTHON ?= $(shell for p in $$(command -v python3.12) $(HOME)/.pyenv/versions/3.12*/bin/python; do \
	"$$p" -c 'import sys; assert sys.version_info[:2] == (3, 12)' 2>/dev/null && echo "$$p" && break; done)
FOCUS_VENV := .venv-focus
FOCUS_STAMP := $(FOCUS_VENV)/.installed

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
	cp fixtures/plan.json $(DEMO)/plan.json
	@# nightly exits 2 when a budget threshold is crossed (the demo's is): that is a result, not a failure.
	cd $(DEMO) && ../../$(BIN)/trainledger nightly || test $$? -eq 2
	cd $(DEMO) && ../../$(BIN)/trainledger labels
	cd $(DEMO) && ../../$(BIN)/trainledger reconcile exp-sft-0412
	cd $(DEMO) && ../../$(BIN)/trainledger reconcile exp-opd-0425
	cd $(DEMO) && ../../$(BIN)/trainledger reconcile exp-rl-0421
	cd $(DEMO) && ../../$(BIN)/trainledger report --by waste,project
	@# The static dashboard; the last line is the path of its index page.
	cd $(DEMO) && ../../$(BIN)/trainledger site --out site

# A documented manual check, not part of `make test` (CI has no browser): render the demo's HTML
# post-mortems (an over-run with metrics, a failed run) in headless Chromium (Debian package `chromium`)
# at a desktop (1280 px) and a narrow (600 px) width and look at the screenshots: the chart scales, the
# tables scroll, nothing runs off the page. tests/test_postmortem_layout.py checks the same in code.
CHROMIUM := chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
	--disable-component-update --disable-sync --no-first-run
postmortem-screenshot: demo
	for exp in exp-sft-0412 exp-rl-0421; do \
		(cd $(DEMO) && ../../$(BIN)/trainledger reconcile $$exp --format html --out postmortem-$$exp.html) && \
		for width in 1280 600; do \
			$(CHROMIUM) --window-size=$$width,1800 --screenshot=$(CURDIR)/$(DEMO)/postmortem-$$exp-$$width.png \
				file://$(CURDIR)/$(DEMO)/postmortem-$$exp.html || exit 1; \
		done; \
	done
	@echo "look at $(DEMO)/postmortem-*-1280.png and $(DEMO)/postmortem-*-600.png"

# Every test, on both cores (pytest-xdist): one at a time the suite takes some 13 minutes here. The Spark tests
# share one worker (--dist loadgroup, xdist_group "spark"): one JVM, and each Spark fixture built once. The
# 25 slowest tests are listed at the end, to see where CI's time goes.
# The two venvs install side by side: on a fresh clone 55 s and 33 s one after the other, 70 s side by side.
test:
	$(MAKE) -j2 $(STAMP) $(if $(FOCUS_PYTHON),$(FOCUS_STAMP))
	$(BIN)/python -m pytest -q -n 2 --dist loadgroup --durations=25

# The everyday tier: every test but those marked slow (scale, Spark, browser, fuzz, concurrency, crash
# safety, dead servers), on both cores (pytest-xdist). `make test` still runs them all.
test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -m "not slow" -n 2 --dist loadgroup

# focus-validator 2.2.1 pins numpy<2 but runs (and installs on 3.12) only with numpy 2: two steps.
$(FOCUS_STAMP):
	@rm -rf $(FOCUS_VENV)
	@($(FOCUS_PYTHON) -m venv $(FOCUS_VENV) \
	  && $(FOCUS_VENV)/bin/python -m pip install --quiet focus-validator==2.2.1 \
	  && $(FOCUS_VENV)/bin/python -m pip install --quiet "numpy>=2" \
	  && touch $@) \
	|| (rm -rf $(FOCUS_VENV); echo "focus-validator could not be installed; its test will skip")

focus-validator:
	@test -n "$(FOCUS_PYTHON)" || (echo "focus-validator needs python3.12 (PATH or pyenv)"; exit 1)
	@$(MAKE) --no-print-directory $(FOCUS_STAMP)

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
	rm -rf $(VENV) $(FOCUS_VENV) $(DEMO) .pytest_cache .ruff_cache .mypy_cache

# Not part of `make test`: `make bench ROWS=1000000,10000000 BENCHFLAGS=--profile` (see BENCHMARKS.md);
# `make bench ENGINE=spark ROWS=1000000` runs trainledger on Spark, local[1] then local[2];
# `make bench BENCHFLAGS=--sources cur2,gcp,focus` adds a GCP and a FOCUS month of the same size.
bench: $(STAMP)
	$(BIN)/python bench/run.py --rows $(ROWS) --engine $(ENGINE) $(BENCHFLAGS)
