# gpufit — the two commands a newcomer needs are `make run` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin/
MANAGE := $(BIN)python manage.py
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: install run serve-prod worker beat migrate data test test-fast check shape lint typecheck format messages bench bench-quick wrk clean

# Creates the virtualenv and installs the project with its test tools (re-runs when pyproject.toml changes).
$(VENV)/.installed: pyproject.toml
	test -x $(BIN)python || $(PYTHON) -m venv $(VENV)
	$(BIN)pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $@

install: $(VENV)/.installed

migrate: install
	$(MANAGE) migrate --noinput

# Loads the bundled catalog (recorded Hub data) and the shipped price snapshot; idempotent.
data: migrate
	$(MANAGE) load_bundled_data

# Embedded default: SQLite in the project, local-memory cache, Celery tasks run in-process.
run: data
	DEBUG=1 $(MANAGE) runserver $(HOST):$(PORT)

# The production processes (docker-compose.yml runs exactly these commands).
serve-prod:
	$(BIN)gunicorn config.wsgi:application --bind 0.0.0.0:$(PORT) --workers 3 --access-logfile -

worker:
	$(BIN)celery -A config worker --loglevel=INFO

beat:
	$(BIN)celery -A config beat --loglevel=INFO --schedule /tmp/celerybeat-schedule

# The suite runs in parallel, one pytest-xdist worker per core, each with its own test database, Redis database,
# live server, Chromium and bundled site (tests/conftest.py). --dist loadgroup: tests marked xdist_group share a
# worker; every other test goes to whichever worker is free. PYTEST_WORKERS=0 runs everything in this process.
PYTEST_WORKERS ?= auto
PYTEST_XDIST := -n $(PYTEST_WORKERS) --dist loadgroup
# pytest keeps the test modules it rewrote for its assertions as .pyc files; with PYTHONDONTWRITEBYTECODE set (some
# shells and containers set it) every worker would rewrite and compile about 390 modules again on each run (~7 s).
PYTEST := PYTHONDONTWRITEBYTECODE= $(BIN)pytest

# Every test.
test: install
	$(PYTEST) $(PYTEST_XDIST)

# Every test but the browser ones and the slow ones (a Celery worker, a fresh interpreter, a million-row table, a
# sweep over every URL or hundreds of generated inputs): the quick check while working; `make test` before pushing.
test-fast: install
	$(PYTEST) $(PYTEST_XDIST) -m "not browser and not slow"

lint: install
	$(BIN)ruff check .
	$(BIN)ruff format --check .

# mypy with the django-stubs plugin; the settings in pyproject.toml say which modules are strict.
typecheck: install
	$(BIN)mypy

format: install
	$(BIN)ruff format .
	$(BIN)ruff check --fix .

check: shape lint typecheck test
	$(MANAGE) makemigrations --check --dry-run
	$(MANAGE) check

# Extracts messages from Python and Jinja2 templates, merges them into each catalog and compiles them (Babel).
# Compiled catalogs are committed, so running the site needs no extra step.
messages: install
	PYTHONPATH=. $(BIN)pybabel extract --mapping-file babel.cfg --keywords gettext_lazy --keywords pgettext:1c,2 --keywords pgettext_lazy:1c,2 \
		--keywords ngettext_lazy:1,2 --no-location --sort-output --omit-header \
		--output-file locale/django.pot --width 100 config calculator models_catalog pricing templates web
	$(BIN)pybabel update --input-file locale/django.pot --output-dir locale --domain django --no-fuzzy-matching --ignore-obsolete --width 100
	$(BIN)pybabel compile --directory locale --domain django --statistics

# The micro-benchmarks, then the HTTP load on gunicorn + PostgreSQL + Redis (bench/load.py; needs both running,
# prints a table, writes test-artifacts/bench/load.json). Options for it: make bench BENCH_ARGS="--offers 1000000"
bench: install wrk
	@for script in bench/bench_*.py; do echo "== $$script"; $(BIN)python $$script || exit 1; done
	@echo "== bench/load.py"; $(BIN)python bench/load.py $(BENCH_ARGS)

# The same, short: fewer requests and models in the micro-benchmarks, 5 s per load target.
bench-quick: install wrk
	$(BIN)python bench/bench_estimate.py
	$(BIN)python bench/bench_pricing.py
	$(BIN)python bench/bench_model_page.py --requests 20
	$(BIN)python bench/bench_api.py --requests 20
	$(BIN)python bench/bench_catalog.py --models 10000 --requests 5
	$(BIN)python bench/load.py --quick $(BENCH_ARGS)

# The HTTP load generator bench/load.py drives, from Debian's packages.
wrk:
	@command -v wrk >/dev/null 2>&1 || { echo "installing wrk"; apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends wrk >/dev/null; }

# Full-page PNGs of each page type at phone and desktop width, en/de, light/dark, into test-artifacts/screenshots.
# Other pages: make screenshots PAGES="/en/models/ /de/methodology/"
screenshots: install
	$(BIN)python bench/screenshots.py $(PAGES)

# Lighthouse 12.2.3 (pinned in bench/lighthouse/, installed there on first use) with Debian's Chromium, mobile and
# desktop; scores printed, JSON reports in test-artifacts/lighthouse. Other pages: make lighthouse PAGES="/en/models/"
lighthouse: install
	$(BIN)python bench/lighthouse.py $(PAGES)

clean:
	rm -rf $(VENV) staticfiles .pytest_cache .ruff_cache test-artifacts bench/lighthouse/node_modules .mypy_cache

# The shape of the code (largest modules, longest functions, long template lines, `type: ignore`): printed by
# `make check`; `scripts/shape_report.py --strict` fails on a broken limit (CONTRIBUTING.md "Shape").
shape:
	$(BIN)python scripts/shape_report.py
