# Every target sets itself up: a virtual environment in .venv, the project
# installed into it (editable) with the extras the target needs. Re-running is
# quick: pip runs again only when pyproject.toml changes.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test lint typecheck pytest lab bench clean

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

lab: $(VENV)/.installed-notebooks
	$(BIN)/jupyter lab notebooks/

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed-base: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --editable .
	touch $@

$(VENV)/.installed-%: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --editable '.[$*]'
	touch $@

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis

bench: $(VENV)/.installed-dev
	$(BIN)/python bench/run.py
