# The two commands of the README, and the pieces they are made of.
#   make demo   set up, then run the main job on the embedded store (no server needed)
#   make check  set up, then ruff + mypy + every test, Neo4j included (started by the tests)

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo check lint typecheck test neo4j-build bench clean

demo: $(STAMP)
	$(BIN)/vintage demo

check: lint typecheck test

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check .

typecheck: $(STAMP)
	$(BIN)/mypy

neo4j-build: $(STAMP)
	$(BIN)/python -c "from graph.neo4j import launcher as l; r = l.build(); print(f'Neo4j launcher ready ({r.seconds:.1f}s)')"

test: $(STAMP) neo4j-build
	$(BIN)/pytest

bench: $(STAMP)
	$(BIN)/python -m bench.ingest_asof

clean:
	rm -rf $(VENV) .vintage .mypy_cache .ruff_cache .pytest_cache .hypothesis
