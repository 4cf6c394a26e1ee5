# Two commands matter: `make run` starts the bot, `make test` runs every check.
# Both create .venv on first use with the python3 found on PATH (3.11 to 3.13 are supported;
# another one: `make PYTHON=python3.12 test`).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# The venv is stamped with the version of the Python that made it: one made by another
# Python (or by hand) is rebuilt, and an unsupported $(PYTHON) stops with what to do.
PY_VERSION := $(shell $(PYTHON) -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])' 2>/dev/null)
VENV_STAMP := $(VENV)/.made-by-python-$(PY_VERSION)

.PHONY: run test lint format typecheck pytest bench clean

$(VENV_STAMP):
	@case "$(PY_VERSION)" in \
	  3.1[1-3].*) ;; \
	  3.1[4-9].*|3.[2-9][0-9].*) echo "note: Python $(PY_VERSION) is newer than the tested 3.11-3.13";; \
	  *) echo "Fairy Post needs Python 3.11 to 3.13, and '$(PYTHON)' is $(or $(PY_VERSION),not a working Python)." >&2; \
	     echo "Install one (python.org, your package manager or pyenv), then: make PYTHON=python3.12 $(MAKECMDGOALS)" >&2; \
	     exit 1;; \
	esac
	@made_by=$$($(BIN)/python -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])' 2>/dev/null); \
	if [ -e $(VENV) ] && [ "$$made_by" != "$(PY_VERSION)" ]; then \
	  echo "$(VENV) was made by $${made_by:+Python }$${made_by:-a Python that no longer runs}, not $(PYTHON) ($(PY_VERSION)): rebuilding it"; \
	  rm -rf $(VENV); \
	fi
	@[ -x $(BIN)/python ] || { $(PYTHON) -m venv $(VENV) && $(BIN)/python -m pip install --quiet --upgrade pip; }
	@touch $@

$(VENV)/.installed: pyproject.toml $(VENV_STAMP)
	$(BIN)/python -m pip install --quiet -e .
	@touch $@

$(VENV)/.installed-dev: pyproject.toml $(VENV_STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(VENV)/.installed $@

$(VENV)/.installed-bench: pyproject.toml $(VENV_STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,bench]'
	@touch $(VENV)/.installed $(VENV)/.installed-dev $@

run: $(VENV)/.installed
	@$(BIN)/python -m bot

# PYTEST_ARGS narrows the run (.ci/run runs the end-to-end suites on its first Python only).
PYTEST_ARGS ?=

test: $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/python -m pytest -q $(PYTEST_ARGS)

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .

format: $(VENV)/.installed-dev
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

typecheck: $(VENV)/.installed-dev
	$(BIN)/mypy

pytest: $(VENV)/.installed-dev
	$(BIN)/python -m pytest -q $(PYTEST_ARGS)

bench: $(VENV)/.installed-bench
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) .venv-3.* .mypy_cache .pytest_cache .ruff_cache
