# Two commands on a fresh machine: `make demo` and `make test`. Both create .venv when it is missing
# or older than pyproject.toml, and reuse it otherwise.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEMO := fixtures/demo
ROWS ?= 1000000

.PHONY: install demo test check lint format typecheck bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/python fixtures/generate.py --out $(DEMO)
	cp fixtures/demo.toml $(DEMO)/trainledger.toml
	cd $(DEMO) && ../../$(BIN)/trainledger nightly
	cd $(DEMO) && ../../$(BIN)/trainledger labels
	cd $(DEMO) && ../../$(BIN)/trainledger reconcile exp-sft-0412
	cd $(DEMO) && ../../$(BIN)/trainledger reconcile exp-opd-0425
	cd $(DEMO) && ../../$(BIN)/trainledger reconcile exp-rl-0421
	cd $(DEMO) && ../../$(BIN)/trainledger report --by waste,project

test: $(STAMP)
	$(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check src tests fixtures
	$(BIN)/ruff format --check src tests fixtures

format: $(STAMP)
	$(BIN)/ruff format src tests fixtures
	$(BIN)/ruff check --fix src tests fixtures

typecheck: $(STAMP)
	$(BIN)/mypy src

check: lint typecheck test

clean:
	rm -rf $(VENV) $(DEMO) .pytest_cache .ruff_cache .mypy_cache
