# Every target sets itself up: a virtual environment in .venv, the project
# installed into it (editable) with the extras the target needs. Re-running is
# quick: pip runs again only when pyproject.toml changes.

PYTHON ?= $(shell command -v python3.11 || command -v python3 || command -v python)
VENV := .venv
# a virtual environment keeps its programs in bin/, or in Scripts/ on Windows
BIN := $(VENV)/$(if $(filter Windows_NT,$(OS)),Scripts,bin)

# make lab: Jupyter refuses to run as root (containers, CI images) unless told it may;
# LAB_ARGS (or ARGS) go to jupyter lab as they are, e.g. make lab ARGS="--no-browser --port 8900"
LAB_ARGS ?= $(ARGS)
AS_ROOT := $(if $(filter 0,$(shell id -u 2>/dev/null)),--allow-root)

.PHONY: demo test lint typecheck pytest lab docs bench clean

demo: $(VENV)/.installed-base
	$(BIN)/passk-lab reproduce
	@echo
	$(BIN)/passk-lab analyze data/coin_p0.85_tasks40_k5_seed42.csv
	@echo
	$(BIN)/passk-lab report data/coin_p0.85_tasks40_k5_seed42.csv --out data/report

test: lint typecheck pytest

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(VENV)/.installed-dev
	$(BIN)/mypy

pytest: $(VENV)/.installed-dev
	$(BIN)/pytest --numprocesses=auto

# make docs: the site in docs/_build/html, every warning an error, every reference checked
docs: $(VENV)/.installed-docs
	$(BIN)/sphinx-build -W --keep-going -n -b html docs docs/_build/html

lab: $(VENV)/.installed-notebooks
	$(BIN)/jupyter lab notebooks/ $(AS_ROOT) $(LAB_ARGS)

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11) and f"passk_lab needs Python 3.11 or newer, and $(PYTHON) is {sys.version.split()[0]}: name another with make PYTHON=/path/to/python3.11")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed-base: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --editable .
	touch $@

$(VENV)/.installed-%: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --editable '.[$*]'
	touch $@

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis docs/_build docs/api docs/notebooks

bench: $(VENV)/.installed-dev
	$(BIN)/python bench/run.py
