# Thin aliases over noxfile.py sessions; both create .venv on first use.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
TYPESCRIPT := 5.9.3
# nox runs with --no-venv: the session commands (toolproof, ruff, mypy, pytest) come from .venv.
export PATH := $(abspath $(VENV))/bin:$(PATH)

.PHONY: gen test lint bench fuzz golden clean

$(STAMP): pyproject.toml Makefile
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	# The TypeScript compiler checks the generated .d.ts files in the tests.
	npm install --prefix $(VENV)/node --no-audit --no-fund --silent typescript@$(TYPESCRIPT)
	touch $(STAMP)

gen: $(STAMP)
	$(VENV)/bin/toolproof gen

test: $(STAMP)
	$(PY) -m nox --no-venv -s check

lint: $(STAMP)
	$(PY) -m nox --no-venv -s lint typing

bench: $(STAMP)
	$(PY) -m nox --no-venv -s bench

fuzz: $(STAMP)
	$(PY) -m nox --no-venv -s fuzz

golden: $(STAMP)
	$(PY) -m nox --no-venv -s golden

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .nox
