# Thin aliases over noxfile.py sessions; both create .venv on first use.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
TYPESCRIPT := 5.9.3
# nox runs with --no-venv: the session commands (toolproof, ruff, mypy, pytest) come from .venv.
export PATH := $(abspath $(VENV))/bin:$(PATH)

.PHONY: gen test lint docs bench fuzz golden clean

$(STAMP): pyproject.toml Makefile
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	# A local wheelhouse of toolproof's runtime dependencies, its build requirements and pytest:
	# tests/e2e builds toolproof's wheel and installs it into a fresh venv from it, with no network.
	$(PY) -m pip download --quiet --dest $(VENV)/wheelhouse '.[testing,fast]' 'setuptools>=77' wheel
	# The TypeScript compiler checks the generated .d.ts files in the tests.
	npm install --prefix $(VENV)/node --no-audit --no-fund --silent typescript@$(TYPESCRIPT)
	npm install --prefix $(VENV)/node --no-audit --no-fund --silent ajv@8.20.0 ajv-formats@3.0.1  # tests/generator/test_ajv.py
	npm install --prefix $(VENV)/node --no-audit --no-fund --silent @modelcontextprotocol/server-filesystem@2026.8.31  # benchmarks/peers.py
	npm install --prefix $(VENV)/node --no-audit --no-fund --silent @modelcontextprotocol/client@2.4.0 @modelcontextprotocol/sdk@1.32.2  # tests/runtime/serve/test_ts_sdk_client.py
	# What a TypeScript project of `toolproof init --lang typescript` installs, put in an npm cache of its own: tests/typescript
	# npm-install such projects from it with --offline (no network at test time); gen writes their runtime.
	npm install --prefix $(VENV)/npm-project --cache $(VENV)/npm-cache --no-audit --no-fund --silent @modelcontextprotocol/sdk@1.32.2 ajv@8.20.0 typescript@$(TYPESCRIPT) @types/node@20.19.9
	# Node 22 (the suite needs fs.globSync) and the official MCP conformance suite, pinned: `latest` predates
	# the 2026-07-28 revision. tests/runtime/serve/test_mcp_conformance.py runs it against `serve mcp --transport http`.
	npm install --prefix $(VENV)/node22 --no-audit --no-fund --silent node@22
	npm install --prefix $(VENV)/conformance --no-audit --no-fund --silent @modelcontextprotocol/conformance@0.2.0-alpha.12
	# A real authorization server, pinned: tests/runtime/serve/test_real_authorization_server.py starts it on loopback
	# (with Node 22) to issue client-credentials tokens for `serve`.
	npm install --prefix $(VENV)/oidc --no-audit --no-fund --silent oidc-provider@9.13.3
	# haproxy: tests/runtime/serve/test_scale_out.py balances `serve --workers` instances with it; wrk: benchmarks/http.py.
	command -v haproxy || (apt-get update && apt-get install -y haproxy)
	command -v wrk || (apt-get update && apt-get install -y wrk)
	# chromium: tests/docs/test_site.py opens the built docs site in it, headless (playwright drives it, no download).
	command -v chromium || (apt-get update && apt-get install -y chromium)
	touch $(STAMP)

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
