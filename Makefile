# Thin aliases over noxfile.py sessions; both create .venv on first use.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
TYPESCRIPT := 5.9.3
# nox runs with --no-venv: the session commands (toolproof, ruff, mypy, pytest) come from .venv.
export PATH := $(abspath $(VENV))/bin:$(PATH)

.PHONY: gen test lint docs bench fuzz golden clean

# The set-up steps share nothing (each installs into a prefix of its own), so the stamp's recipe runs them side by side
# (`make -j`): on a clean 2-core clone they wait on the network, not the CPU. Each step has its own stamp; all of them
# run again when the Makefile or pyproject.toml changes, as the single recipe did.
SETUP := $(VENV)/.python $(VENV)/.node $(VENV)/.npm-project $(VENV)/.node22 $(VENV)/.conformance $(VENV)/.system

$(STAMP): pyproject.toml Makefile
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(MAKE) --no-print-directory -j6 $(SETUP)
	touch $(STAMP)

$(VENV)/.python: pyproject.toml Makefile
	$(PY) -m pip install --quiet -e '.[dev]'
	# A local wheelhouse of toolproof's runtime dependencies, its build requirements and pytest:
	# tests/e2e builds toolproof's wheel and installs it into a fresh venv from it, with no network.
	$(PY) -m pip download --quiet --dest $(VENV)/wheelhouse '.[testing,fast]' 'setuptools>=77' wheel
	touch $@

$(VENV)/.node: pyproject.toml Makefile
	# The TypeScript compiler checks the generated .d.ts files in the tests; ajv: tests/generator/test_ajv.py; the reference
	# filesystem server: benchmarks/peers.py; the MCP client and SDK: tests/runtime/serve/test_ts_sdk_client.py.
	npm install --prefix $(VENV)/node --no-audit --no-fund --silent typescript@$(TYPESCRIPT) ajv@8.20.0 ajv-formats@3.0.1 \
	  @modelcontextprotocol/server-filesystem@2026.8.31 @modelcontextprotocol/client@2.4.0 @modelcontextprotocol/sdk@1.32.2
	touch $@

$(VENV)/.npm-project: pyproject.toml Makefile
	# What a TypeScript project of `toolproof init --lang typescript` installs, put in an npm cache of its own: tests/typescript
	# npm-install such projects from it with --offline (no network at test time); gen writes their runtime.
	npm install --prefix $(VENV)/npm-project --cache $(VENV)/npm-cache --no-audit --no-fund --silent @modelcontextprotocol/sdk@1.32.2 ajv@8.20.0 typescript@$(TYPESCRIPT) @types/node@20.19.9
	touch $@

$(VENV)/.node22: pyproject.toml Makefile
	# Node 22 (the suite needs fs.globSync) for the official MCP conformance suite below.
	npm install --prefix $(VENV)/node22 --no-audit --no-fund --silent node@22
	touch $@

$(VENV)/.conformance: pyproject.toml Makefile
	# The official MCP conformance suite, pinned: `latest` predates the 2026-07-28 revision.
	# tests/runtime/serve/test_mcp_conformance.py runs it against `serve mcp --transport http`.
	npm install --prefix $(VENV)/conformance --no-audit --no-fund --silent @modelcontextprotocol/conformance@0.2.0-alpha.12
	touch $@

$(VENV)/.system: Makefile
	# haproxy: tests/runtime/serve/test_scale_out.py balances `serve --workers` instances with it; wrk: benchmarks/http.py;
	# chromium: tests/docs/test_site.py opens the built docs site in it, headless (playwright drives it, no download).
	missing=""; for tool in haproxy wrk chromium; do command -v $$tool >/dev/null || missing="$$missing $$tool"; done; \
	  if [ -n "$$missing" ]; then apt-get update && apt-get install -y $$missing; fi
	touch $@

gen: $(STAMP)
	$(VENV)/bin/toolproof gen

test: $(STAMP)
	$(PY) -m nox --no-venv -s check

lint: $(STAMP)
	$(PY) -m nox --no-venv -s lint typing

docs: $(STAMP)
	$(PY) -m nox --no-venv -s docs -- serve

bench: $(STAMP)
	$(PY) -m nox --no-venv -s bench

fuzz: $(STAMP)
	$(PY) -m nox --no-venv -s fuzz

golden: $(STAMP)
	$(PY) -m nox --no-venv -s golden

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .nox
