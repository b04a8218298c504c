"""The sessions CI and `make` run. `make` calls them with --no-venv inside .venv.

check = gen_check + contracts + lint + typing + docs + tests, the whole of `make test`.
"""

from __future__ import annotations

import os

import nox

nox.options.default_venv_backend = "none"
nox.options.sessions = ["check"]
nox.options.error_on_missing_interpreters = True


@nox.session
def gen_check(session: nox.Session) -> None:
    """Generated files are fresh: nothing stale, missing or orphaned (ours, and the conformance fixtures')."""
    session.run("toolproof", "gen", "--check")
    session.run("toolproof", "gen", "--check", "--project", "tests/conformance_project")


@nox.session
def contracts(session: nox.Session) -> None:
    """Every contract passes every check."""
    session.run("toolproof", "lint")
    session.run("toolproof", "lint", "--project", "tests/conformance_project")


@nox.session
def lint(session: nox.Session) -> None:
    """ruff: lint and formatting of everything, generated code included (gen writes what ruff format would)."""
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session
def typing(session: nox.Session) -> None:
    """mypy --strict on the code, the generated code and the tests."""
    session.run(
        "mypy", "--strict"
    )  # the files listed in pyproject.toml: toolproof/ (the one import root), tests, benchmarks


@nox.session
def docs(session: nox.Session) -> None:
    """Build the documentation site strictly: a broken link, a missing page or a docstring griffe cannot read fails.

    ``nox -s docs -- serve`` previews it instead (``make docs``), rebuilding on every change.
    """
    env = {"NO_MKDOCS_2_WARNING": "1"}  # Material's notice on every build; the choice is in pyproject.toml
    if session.posargs[:1] == ["serve"]:
        session.run("mkdocs", "serve", "--strict", *session.posargs[1:], env=env)
    else:
        session.run("mkdocs", "build", "--strict", "--site-dir", "build/site", *session.posargs, env=env)


@nox.session
def tests(session: nox.Session) -> None:
    """pytest on every core: unit, golden, generated conformance, bounded fuzz, e2e; coverage held at its floor.

    Tests go to whichever worker is free (``--dist loadgroup``); a file whose tests share a module fixture (a built
    wheel, a server) runs whole on one worker, so it is made once (tests/conftest.py). One worker more than cores:
    the e2e and Node tests wait on pip, npm and servers, and the extra worker fills those waits. Coverage counts the
    toolproof processes the tests start too (pyproject.toml, [tool.coverage]).
    """
    args = session.posargs or ["--cov", "--cov-report=term", "--durations=25"]
    workers = str((os.cpu_count() or 1) + 1)
    session.run("pytest", "-n", workers, "--dist", "loadgroup", *args)


@nox.session
def check(session: nox.Session) -> None:
    """The full check `make test` and CI run."""
    for name in ("gen_check", "contracts", "lint", "typing", "docs", "tests"):
        session.notify(name)


@nox.session
def golden(session: nox.Session) -> None:
    """Regenerate the expected output of every golden generator case."""
    session.run("python", "-m", "tests.generator.regen_golden")


@nox.session
def bench(session: nox.Session) -> None:
    """Print the benchmark figures (never part of the tests)."""
    session.run("python", "benchmarks/dispatch.py", *session.posargs)
    session.run("python", "benchmarks/policy.py", *session.posargs)
    session.run("python", "benchmarks/tracing.py", *session.posargs)
    session.run("python", "benchmarks/files.py", *session.posargs)
    session.run("python", "benchmarks/tokens.py")
    session.run("python", "benchmarks/serve.py", *session.posargs)
    session.run("python", "benchmarks/peers.py", *session.posargs)
    session.run("python", "benchmarks/http_load.py", *session.posargs)
    session.run("python", "benchmarks/gen.py", *session.posargs)
    session.run("python", "benchmarks/startup.py", *session.posargs)


@nox.session
def fuzz(session: nox.Session) -> None:
    """A long schemathesis run against the HTTP façade (TOOLPROOF_FUZZ_EXAMPLES per operation)."""
    examples = session.env.get("TOOLPROOF_FUZZ_EXAMPLES", "1000")
    session.run("pytest", "tests/runtime/serve/test_http_fuzz.py", env={"TOOLPROOF_FUZZ_EXAMPLES": examples})
    session.run(
        "pytest",
        "toolproof/builtin/generated/tests",
        "-k",
        "fuzz or properties",
        env={"TOOLPROOF_FUZZ_EXAMPLES": examples},
    )
