"""toolproof as a new user meets it: its wheel, in a fresh virtual environment, with no network.

The wheel is built from a copy of this repository and installed alone, as
``pip install toolproof`` would (pytest comes as its dependency), into a fresh
venv (no system site-packages) from the wheelhouse `make` downloads when it
sets up the dev environment (``$(VENV)/wheelhouse``), with every package index
switched off. From then on every command is the fresh
venv's own: its ``toolproof`` console script and its ``python -m pytest``, run
in temporary folders outside this repository, with no PYTHONPATH and none of
the dev venv on PATH. Only the official MCP client runs here, in the test
process, as a host would; the server it talks to is the fresh venv's.

One fresh venv serves four projects: one made by ``init`` and ``new``; one
whose own packages are named ``runtime``, ``handlers`` and ``generated``; one
that includes the built-in ``gateway`` tool set; one made by ``init --lang
typescript``, npm-installed offline from the npm cache `make` fills.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult, TextContent

from tests.ports import free_port
from tests.typescript.conftest import NPM_CACHE, needs_node_tools

pytestmark = pytest.mark.slow  # a fresh venv and the servers it starts

REPO: Final = Path(__file__).resolve().parents[2]
WHEELHOUSE: Final = Path(sys.prefix) / "wheelhouse"
"""Where the Makefile's set-up puts the wheels (the dev venv is ``$(VENV)``)."""
TIMEOUT: Final = 120.0
"""Seconds any one command may take; a hang fails the test instead of the run."""

FORMATS: Final = (
    *("openai", "openai-responses", "anthropic", "mcp", "gemini", "gemini-openapi"),
    *("jsonschema", "vectors", "typescript", "docs"),
)
DEFINITION_FORMATS: Final = FORMATS[:6]


def _names_openai(doc: Any) -> list[str]:
    return [tool["function"]["name"] for tool in doc]


def _names_listed(doc: Any) -> list[str]:
    return [tool["name"] for tool in doc]


def _names_mcp(doc: Any) -> list[str]:
    return [tool["name"] for tool in doc["tools"]]


def _names_gemini(doc: Any) -> list[str]:
    return [tool["name"] for tool in doc["functionDeclarations"]]


def _names_jsonschema(doc: Any) -> list[str]:
    return [schema["$id"].split(":")[2] for schema in doc]  # urn:toolproof:<tool>:<version>


def _names_vectors(doc: Any) -> list[str]:
    return [vector["tool"] for vector in doc]


JSON_NAMES: Final[dict[str, Callable[[Any], list[str]]]] = {
    "openai": _names_openai,
    "openai-responses": _names_listed,
    "anthropic": _names_listed,
    "mcp": _names_mcp,
    "gemini": _names_gemini,
    "gemini-openapi": _names_gemini,
    "jsonschema": _names_jsonschema,
    "vectors": _names_vectors,
}
"""How each JSON export names its tools."""

GREET: Final = '''\
"""greet: answer a text, refuse an empty one."""

from __future__ import annotations

from generated import greet as contract
from toolproof.runtime import ToolContext


def handle(args: contract.GreetInput, ctx: ToolContext) -> contract.GreetOutput:
    """Answer the text as it is; an empty text is refused."""
    text = args["text"]
    if not text:
        raise contract.refused(text=text)
    return {"result": text}
'''

OWN_RUNTIME: Final = '''\
"""The project's own helpers, in a package whose name toolproof must not take."""


def count_words(text: str) -> int:
    """Words are runs of non-space characters."""
    return len(text.split())
'''

WORD_COUNT_WITH_OWN_RUNTIME: Final = '''\
"""word_count, counting with the project's own `runtime` package."""

from __future__ import annotations

from generated import word_count as contract
from runtime import count_words
from toolproof.runtime import ToolContext


def handle(args: contract.WordCountInput, ctx: ToolContext) -> contract.WordCountOutput:
    """Count with the project's helper; refuse texts over the limit."""
    text = args["text"]
    words = count_words(text)
    limit = args.get("max_words")
    if limit is not None and words > limit:
        raise contract.too_many_words(words=words, max_words=limit)
    return {"words": words, "characters": len(text)}
'''

CLASH: Final = (
    "tool 'read_file' is defined twice: by contracts/read_file.yaml in generated "
    "and by the built-in toolproof/builtin/contracts/read_file.yaml in toolproof.builtin.generated"
)


_NO_NETWORK: Final = "http://127.0.0.1:9"
"""The discard port on loopback: nothing listens, so a connection through this proxy is refused."""


def _inside(path: str, folder: Path) -> bool:
    return Path(path).resolve().is_relative_to(folder)


def _user_env(bin_dir: Path | None = None) -> dict[str, str]:
    """This process's environment as a new user's shell has it: no dev venv, no toolproof or pip settings.

    Every package index is off (``PIP_NO_INDEX``, no pip configuration file), so pip
    can only install what a ``--find-links`` folder holds; HTTP(S) goes to a closed
    loopback port, so anything that would reach the network fails at once.
    """
    dev_venv = Path(sys.prefix).resolve()
    dropped = {"PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONUSERBASE", "VIRTUAL_ENV"}
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in dropped
        and not key.startswith(("PIP_", "TOOLPROOF_", "PYTEST_"))
        and not key.lower().endswith("_proxy")
    }
    path = [p for p in os.environ.get("PATH", os.defpath).split(os.pathsep) if p and not _inside(p, dev_venv)]
    env["PATH"] = os.pathsep.join([str(bin_dir), *path] if bin_dir else path)
    env |= {
        "HTTP_PROXY": _NO_NETWORK,
        "HTTPS_PROXY": _NO_NETWORK,
        "ALL_PROXY": _NO_NETWORK,
        "PIP_CONFIG_FILE": os.devnull,
        "PIP_NO_INDEX": "1",
        "PIP_NO_CACHE_DIR": "1",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    return env


def _run(
    command: list[str], cwd: Path, env: dict[str, str], *, expect: int | None = 0
) -> subprocess.CompletedProcess[str]:
    """Run ``command`` to its end (or TIMEOUT); assert its exit code unless ``expect`` is None."""
    done = subprocess.run(
        command,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=TIMEOUT,
        check=False,
    )
    if expect is not None:
        assert done.returncode == expect, (
            f"`{' '.join(command)}` in {cwd} exited {done.returncode}, not {expect}\n"
            f"--- stdout\n{done.stdout}--- stderr\n{done.stderr}"
        )
    return done


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    # A rewrite in the same second and of the same size would import the stale bytecode.
    shutil.rmtree(path.parent / "__pycache__", ignore_errors=True)


def _text(result: CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent), result
    return block.text


@dataclass(frozen=True, slots=True)
class Venv:
    """The fresh virtual environment with toolproof installed from the wheel and the wheelhouse, nothing else."""

    root: Path

    @property
    def bin(self) -> Path:
        return self.root / "bin"

    @property
    def env(self) -> dict[str, str]:
        return _user_env(self.bin)

    def toolproof(self, *args: str, cwd: Path, expect: int | None = 0) -> subprocess.CompletedProcess[str]:
        """Run the fresh venv's ``toolproof`` console script."""
        return _run([str(self.bin / "toolproof"), *args], cwd, self.env, expect=expect)

    def python(self, *args: str, cwd: Path, expect: int | None = 0) -> subprocess.CompletedProcess[str]:
        """Run the fresh venv's ``python``."""
        return _run([str(self.bin / "python"), *args], cwd, self.env, expect=expect)

    def server(self, *args: str, cwd: Path) -> StdioServerParameters:
        """How the MCP client starts ``toolproof serve mcp`` of the fresh venv in ``cwd``."""
        return StdioServerParameters(
            command=str(self.bin / "toolproof"), args=["serve", "mcp", *args], cwd=str(cwd), env=self.env
        )


def _ignored(folder: str, names: list[str]) -> set[str]:
    """What a build must not see: version control, caches, build leftovers and virtual environments."""
    patterns = (
        ".git",
        ".*_cache",
        ".hypothesis",
        ".nox",
        "__pycache__",
        "*.egg-info",
        "build",
        "dist",
        "node_modules",
        ".coverage*",
    )
    ignored = set(shutil.ignore_patterns(*patterns)(folder, names))
    return ignored | {name for name in names if (Path(folder) / name / "pyvenv.cfg").is_file()}


@pytest.fixture(scope="module")
def wheelhouse() -> Path:
    """The local wheelhouse; its absence fails the test, saying how to make it."""
    if not any(WHEELHOUSE.glob("*.whl")):
        pytest.fail(
            f"no wheelhouse at {WHEELHOUSE}: the end-to-end test installs toolproof's dependencies from it, "
            f"offline. The Makefile downloads it when it sets up {sys.prefix}; "
            f"run `rm {Path(sys.prefix) / '.installed'} && make gen`",
            pytrace=False,
        )
    return WHEELHOUSE


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory, wheelhouse: Path) -> Path:
    """toolproof's wheel, built offline (build requirements from the wheelhouse) from a clean copy of the repo.

    A copy, so no stale ``build/`` folder leaks into the wheel and nothing is written into the working tree.
    """
    base = tmp_path_factory.mktemp("wheel")
    source = base / "source"
    shutil.copytree(REPO, source, symlinks=True, ignore=_ignored)
    dist = base / "dist"
    command = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-index"]
    _run([*command, "--find-links", str(wheelhouse), "--wheel-dir", str(dist), str(source)], base, _user_env())
    (built,) = dist.glob("toolproof-*.whl")
    return built


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory, wheel: Path, wheelhouse: Path) -> Venv:
    """A fresh venv with toolproof's wheel installed from the wheelhouse alone, as `pip install toolproof` would."""
    base = tmp_path_factory.mktemp("fresh")
    venv = Venv(base / "venv")
    _run([sys.executable, "-m", "venv", str(venv.root)], base, _user_env())
    install = ["-m", "pip", "install", "--quiet", "--no-index", "--find-links", str(wheelhouse)]
    venv.python(*install, str(wheel), cwd=base)
    _SLIM[venv.root] = _slim_facts(venv, base)
    venv.python(*install, f"{wheel}[testing]", cwd=base)  # what a project made by `init` declares for its tests
    return venv


_SLIM: dict[Path, tuple[int, set[str], str, subprocess.CompletedProcess[str]]] = {}
"""Per fresh venv, before the ``testing`` extra: site-packages KiB over a bare venv's, distributions, a served call,
and ``make test`` in a project ``init`` wrote."""


def _site_kib(venv: Venv, base: Path) -> int:
    site = venv.python("-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=base).stdout.strip()
    return sum(f.stat().st_size for f in Path(site).rglob("*") if f.is_file() and not f.is_symlink()) // 1024


def _slim_facts(venv: Venv, base: Path) -> tuple[int, set[str], str, subprocess.CompletedProcess[str]]:
    bare = Venv(base / "bare")
    _run([sys.executable, "-m", "venv", str(bare.root)], base, _user_env())
    grown = _site_kib(venv, base) - _site_kib(bare, base)
    listed = json.loads(venv.python("-m", "pip", "list", "--format", "json", cwd=base).stdout)
    names = {str(d["name"]).lower() for d in listed} - {"pip", "setuptools", "wheel"}
    workspace = base / "workspace"
    (workspace / "notes.txt").parent.mkdir()
    (workspace / "notes.txt").write_text("one\ntwo\n", encoding="utf-8")
    called = venv.toolproof(
        "call",
        "file-read",
        "--args",
        '{"path": "notes.txt"}',
        "--workspace",
        str(workspace),
        "--toolset",
        "aintern",
        cwd=base,
    )
    venv.toolproof("init", "slim-project", cwd=base)
    tested = _run(["make", "test"], base / "slim-project", venv.env, expect=None)
    return grown, names, called.stdout, tested


@dataclass(frozen=True, slots=True)
class Scaffolded:
    """The project ``init`` and ``new greet`` wrote, greet's handler written since."""

    root: Path
    unwritten: subprocess.CompletedProcess[str]
    """The project's tests, run before greet's handler was written."""


@pytest.fixture(scope="module")
def project(fresh: Venv, tmp_path_factory: pytest.TempPathFactory) -> Scaffolded:
    """Scenario 1: ``toolproof init proj``, ``toolproof new greet``, greet written, ``toolproof gen``."""
    base = tmp_path_factory.mktemp("scenario1")
    fresh.toolproof("init", "proj", cwd=base)
    root = (base / "proj").resolve()
    fresh.toolproof("new", "greet", cwd=root)
    unwritten = fresh.python("-m", "pytest", "-q", "-p", "no:cacheprovider", cwd=root, expect=None)
    _write(root / "handlers" / "greet.py", GREET)
    fresh.toolproof("gen", cwd=root)
    return Scaffolded(root, unwritten)


@pytest.fixture(scope="module")
def shadowing(fresh: Venv, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Scenario 2: a project whose own packages are named ``runtime``, ``handlers`` and ``generated``."""
    base = tmp_path_factory.mktemp("scenario2")
    fresh.toolproof("init", "proj", cwd=base)
    root = (base / "proj").resolve()
    _write(root / "runtime" / "__init__.py", OWN_RUNTIME)
    _write(root / "handlers" / "word_count.py", WORD_COUNT_WITH_OWN_RUNTIME)
    fresh.toolproof("gen", cwd=root)
    return root


def _include_gateway(root: Path) -> None:
    settings = root / "pyproject.toml"
    text = settings.read_text(encoding="utf-8")
    assert text.count("[tool.toolproof]\n") == 1, text
    text = text.replace("[tool.toolproof]\n", '[tool.toolproof]\ninclude = ["gateway"]\n')
    settings.write_text(text, encoding="utf-8")


@pytest.fixture(scope="module")
def including(fresh: Venv, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Scenario 3: a project that includes the built-in ``gateway`` tool set (``read_file``)."""
    base = tmp_path_factory.mktemp("scenario3")
    fresh.toolproof("init", "proj", cwd=base)
    root = (base / "proj").resolve()
    _include_gateway(root)
    fresh.toolproof("gen", cwd=root)
    return root


# The installation


def test_the_wheel_installs_toolproof_as_its_only_top_level_package(fresh: Venv) -> None:
    shown = fresh.python("-m", "pip", "show", "--files", "toolproof", cwd=fresh.root).stdout

    files = {line.strip() for line in shown.split("\nFiles:\n", 1)[1].splitlines() if line.strip()}
    installed = {f for f in files if not f.startswith("../")}  # ../../../bin/toolproof is the console script
    tops = {f.split("/", 1)[0] for f in installed}
    assert "../../../bin/toolproof" in files
    assert {t for t in tops if not t.endswith(".dist-info")} == {"toolproof"}, sorted(tops)
    assert len([t for t in tops if re.fullmatch(r"toolproof-[^/]+\.dist-info", t)]) == 1, sorted(tops)
    package = {f for f in installed if f.startswith("toolproof/") and "/__pycache__/" not in f}
    assert package == _package_files(), sorted(package ^ _package_files())  # every file once, nothing stray


def _package_files() -> set[str]:
    """What the wheel must hold: every file of the package tree, less caches and the built-in tools' own tests."""
    tree = REPO / "toolproof"
    shipped = set()
    for path in tree.rglob("*"):
        relative = path.relative_to(REPO).as_posix()
        if path.is_dir() or "__pycache__" in path.parts or relative.startswith("toolproof/builtin/generated/tests/"):
            continue
        shipped.add(relative)
    return shipped


def test_pip_install_toolproof_is_slim_and_serves_without_test_tooling(fresh: Venv) -> None:
    grown, names, called, tested = _SLIM[fresh.root]

    assert grown <= 40 * 1024, f"toolproof and its dependencies take {grown / 1024:.1f} MiB of site-packages"
    assert not names & {"pytest", "hypothesis", "numpy", "uvloop"}, sorted(names)
    assert "two" in called  # a built-in tool served from the slim install
    # an init project's `make test` without its test extra says what to install, not "No module named pytest"
    assert tested.returncode != 0
    assert "make test: the tests need pytest and Hypothesis: pip install -e '.[test]'" in tested.stderr


def test_the_installed_package_imports_on_its_own_and_takes_no_generic_name(
    fresh: Venv, tmp_path_factory: pytest.TempPathFactory
) -> None:
    script = (
        "import importlib.util, toolproof, toolproof.runtime, toolproof.generator, toolproof.builtin.generated\n"
        "print(toolproof.__file__)\n"
        "print([n for n in ('runtime', 'generator', 'generated', 'handlers', 'contracts') "
        "if importlib.util.find_spec(n)])\n"
    )

    done = fresh.python("-c", script, cwd=tmp_path_factory.mktemp("elsewhere"))

    location, generic = done.stdout.splitlines()
    assert Path(location).is_relative_to(fresh.root), location
    assert generic == "[]"


# Scenario 1: init, new, write the handler, then every command


def test_a_new_tools_generated_tests_fail_until_its_handler_is_written(project: Scaffolded) -> None:
    out = project.unwritten.stdout

    assert project.unwritten.returncode == 1, out
    assert "FAILED generated/tests/test_greet.py::test_greet[answers a text]" in out
    assert "FAILED generated/tests/test_greet.py::test_greet[refuses an empty text]" in out
    assert "NotImplementedError: greet is not written yet" in out
    # The two examples, the property test of drawn arguments, and the two fuzz tests all meet the unwritten handler.
    assert "FAILED generated/tests/test_greet_fuzz.py" in out
    assert re.search(r"\b5 failed\b", out), out


def test_the_written_project_is_fresh_and_its_contracts_lint_clean(fresh: Venv, project: Scaffolded) -> None:
    check = fresh.toolproof("gen", "--check", cwd=project.root)
    lint = fresh.toolproof("lint", cwd=project.root)

    assert check.stdout == "generated/ is up to date (4 contract(s))\n"  # init's tool, resource and prompt, and greet
    assert lint.stdout == "4 contract(s) OK\n"


def test_the_projects_tests_pass_under_the_fresh_venvs_pytest(fresh: Venv, project: Scaffolded) -> None:
    done = fresh.python("-m", "pytest", "-q", "-p", "no:cacheprovider", cwd=project.root)

    passed = re.search(r"\b(\d+) passed\b", done.stdout)
    assert passed is not None and int(passed[1]) >= 7, done.stdout  # 6 examples and the project's own test
    assert "failed" not in done.stdout and "error" not in done.stdout, done.stdout


def test_call_prints_the_exact_result_of_word_count(fresh: Venv, project: Scaffolded) -> None:
    done = fresh.toolproof("call", "word_count", "--args", '{"text": "to be or not to be"}', cwd=project.root)

    assert done.stdout == (
        '{"ok": true, "output": {"words": 6, "characters": 18}, "error": null, "text": "6 words, 18 characters"}\n'
    )


def test_the_official_mcp_client_lists_both_tools_and_calls_greet(fresh: Venv, project: Scaffolded) -> None:
    async def session() -> None:
        with anyio.fail_after(TIMEOUT):
            async with Client(fresh.server(cwd=project.root), read_timeout_seconds=30) as client:
                listed = await client.list_tools()
                assert [tool.name for tool in listed.tools] == ["greet", "word_count"]
                greeted = await client.call_tool("greet", {"text": "hello"})
                assert greeted.is_error is False, greeted
                assert greeted.structured_content == {"result": "hello"}
                assert _text(greeted) == "hello"
                refused = await client.call_tool("greet", {"text": ""})
                assert refused.is_error is True, refused
                assert _text(refused) == "ERROR: Cannot work on ''"

    anyio.run(session)


def test_conform_passes_every_example_against_the_fresh_venvs_server(fresh: Venv, project: Scaffolded) -> None:
    done = fresh.toolproof("conform", "--mcp", f"{fresh.bin / 'toolproof'} serve mcp", cwd=project.root)

    assert f"{project.root}: 4 tool(s) checked (4 listed by the server), 10 example(s)\n" in done.stdout
    assert done.stdout.endswith("10 passed, 0 failed\n"), done.stdout


def test_conform_fails_naming_greet_when_its_handler_is_broken(
    fresh: Venv, project: Scaffolded, tmp_path: Path
) -> None:
    broken = tmp_path / "proj"
    shutil.copytree(project.root, broken, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    _write(broken / "handlers" / "greet.py", GREET.replace('{"result": text}', '{"result": text.upper()}'))

    done = fresh.toolproof("conform", "--mcp", f"{fresh.bin / 'toolproof'} serve mcp", cwd=broken, expect=1)

    failures = [line for line in done.stdout.splitlines() if line.startswith("FAIL ")]
    assert failures == ["FAIL greet: answers a text"], done.stdout
    assert "expected text 'hello', got 'HELLO'" in done.stdout
    assert f"{broken.resolve()}: 4 tool(s) checked" in done.stdout
    assert done.stdout.endswith("9 passed, 1 failed\n"), done.stdout


def _listening(port: int, server: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline and server.poll() is None:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"`toolproof serve http` is not listening on {port} (exit status {server.poll()})")


def test_the_schemathesis_cli_finds_no_failure_in_the_fresh_venvs_http_server(
    fresh: Venv, project: Scaffolded, tmp_path: Path
) -> None:
    """A third party's fuzzer, as a team runs it in CI, holds the served tools to the served OpenAPI document."""
    schemathesis = shutil.which("schemathesis", path=str(Path(sys.executable).parent))
    assert schemathesis is not None, "the dev venv has no schemathesis CLI: `make gen` installs it"
    port = free_port()
    command = [str(fresh.bin / "toolproof"), "serve", "http", "--port", str(port)]
    server = subprocess.Popen(command, cwd=project.root, env=fresh.env, stdout=subprocess.DEVNULL, text=True)
    try:
        _listening(port, server)
        url = f"http://127.0.0.1:{port}/openapi.json"
        options = ["--checks", "all", "--max-examples", "30", "--seed", "1", "--generation-database", "none"]
        direct = {key: value for key, value in os.environ.items() if not key.lower().endswith("_proxy")}
        done = _run([schemathesis, "run", url, *options], tmp_path, direct, expect=None)
    finally:
        server.terminate()
        server.wait(timeout=TIMEOUT)

    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert "2 selected / 2 total" in done.stdout, done.stdout[-6000:]


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_export_format_holds_both_tools(fresh: Venv, project: Scaffolded, fmt: str) -> None:
    done = fresh.toolproof("export", "--format", fmt, cwd=project.root)

    if fmt in JSON_NAMES:
        # A file per contract (jsonschema, vectors) holds init's resource and prompt too; providers list tools only.
        every = ["count_request", "glossary", "greet", "word_count"]
        expected = every if fmt in ("jsonschema", "vectors") else ["greet", "word_count"]
        assert sorted(JSON_NAMES[fmt](json.loads(done.stdout))) == expected
    else:
        assert "`greet`" in done.stdout and "`word_count`" in done.stdout, done.stdout[:2000]


# Scenario 2: the project's own runtime, handlers and generated packages


def test_a_project_with_its_own_runtime_package_generates_and_passes_its_tests(fresh: Venv, shadowing: Path) -> None:
    check = fresh.toolproof("gen", "--check", cwd=shadowing)
    tests = fresh.python("-m", "pytest", "-q", "-p", "no:cacheprovider", cwd=shadowing)

    assert check.stdout == "generated/ is up to date (3 contract(s))\n"  # init's tool, resource and prompt
    passed = re.search(r"\b(\d+) passed\b", tests.stdout)
    assert passed is not None and int(passed[1]) >= 5, tests.stdout  # 4 examples and the project's own test
    assert "failed" not in tests.stdout, tests.stdout


def test_a_project_with_its_own_runtime_package_is_called_and_conformed(fresh: Venv, shadowing: Path) -> None:
    call = fresh.toolproof("call", "word_count", "--args", '{"text": "a b"}', cwd=shadowing / "tests")
    conform = fresh.toolproof("conform", "--mcp", f"{fresh.bin / 'toolproof'} serve mcp", cwd=shadowing)

    assert json.loads(call.stdout) == {
        "ok": True,
        "output": {"words": 2, "characters": 3},
        "error": None,
        "text": "2 words, 3 characters",
    }
    assert f"{shadowing}: 3 tool(s) checked (3 listed by the server), 8 example(s)\n" in conform.stdout
    assert conform.stdout.endswith("8 passed, 0 failed\n"), conform.stdout


# Scenario 3: the built-in gateway tool set beside the project's own tool


def test_a_project_including_gateway_serves_its_tool_beside_read_file(
    fresh: Venv, including: Path, tmp_path: Path
) -> None:
    (tmp_path / "notes.txt").write_text("hello\n", encoding="utf-8")

    async def session() -> None:
        with anyio.fail_after(TIMEOUT):
            server = fresh.server("--workspace", str(tmp_path), cwd=including)
            async with Client(server, read_timeout_seconds=30) as client:
                listed = await client.list_tools()
                assert sorted(tool.name for tool in listed.tools) == ["read_file", "word_count"]
                counted = await client.call_tool("word_count", {"text": "a b c"})
                assert counted.structured_content == {"words": 3, "characters": 5}, counted
                doc = await client.call_tool("read_file", {"path": "builtin://read_file/SKILL.md"})
                assert doc.is_error is False and doc.structured_content is not None, doc
                token = doc.structured_content["skillToken"]
                notes = await client.call_tool("read_file", {"path": "notes.txt", "skillToken": token})
                assert notes.is_error is False, notes
                assert _text(notes) == "1\thello"

    anyio.run(session)


def test_a_project_including_gateway_exports_both_tools(fresh: Venv, including: Path) -> None:
    for fmt in DEFINITION_FORMATS:
        done = fresh.toolproof("export", "--format", fmt, cwd=including)

        assert sorted(JSON_NAMES[fmt](json.loads(done.stdout))) == ["read_file", "word_count"], fmt


def test_a_project_including_gateway_conforms_both_tools(fresh: Venv, including: Path) -> None:
    server = f"{fresh.bin / 'toolproof'} serve mcp --workspace {{workspace}} --skills {{skills}}"

    done = fresh.toolproof("conform", "--mcp", server, cwd=including)

    assert f"{including}: 4 tool(s) checked (4 listed by the server)" in done.stdout
    assert "PASS word_count: " in done.stdout and "PASS read_file: " in done.stdout
    assert done.stdout.endswith(" 0 failed\n"), done.stdout


def test_toolsets_shows_the_projects_tool_and_the_included_gateway_set(fresh: Venv, including: Path) -> None:
    done = fresh.toolproof("toolsets", cwd=including)

    assert done.stdout.splitlines() == [
        "gateway (built-in): read_file",
        "(in no tool set): count_request (prompt), glossary (resource), word_count",
    ]


def test_a_project_tool_named_like_an_included_builtin_is_reported_naming_both_sources(
    fresh: Venv, tmp_path: Path
) -> None:
    fresh.toolproof("init", "proj", cwd=tmp_path)
    root = (tmp_path / "proj").resolve()
    fresh.toolproof("new", "read_file", cwd=root)
    _include_gateway(root)

    lint = fresh.toolproof("lint", cwd=root, expect=1)
    toolsets = fresh.toolproof("toolsets", cwd=root, expect=1)
    call = fresh.toolproof("call", "word_count", "--args", '{"text": "a"}', cwd=root, expect=2)
    conform = fresh.toolproof("conform", "--mcp", f"{fresh.bin / 'toolproof'} serve mcp", cwd=root, expect=1)

    clash = "tool 'read_file' is also the built-in tool of set gateway, which pyproject.toml includes"
    assert f"contracts/read_file.yaml:1:7: error [TP103] {clash}\n" in lint.stderr
    for done in (toolsets, call, conform):
        assert done.stderr == f"{CLASH}\n", done.stderr


# Scenario 4: a TypeScript project, with nothing of toolproof's but the wheel


def test_a_typescript_project_of_the_wheel_installs_offline_builds_and_passes_its_npm_test(
    fresh: Venv, tmp_path: Path
) -> None:
    needs_node_tools()
    fresh.toolproof("init", "--lang", "typescript", "proj", cwd=tmp_path)
    root = (tmp_path / "proj").resolve()
    npm = ["npm", "--cache", str(NPM_CACHE), "--offline", "--no-audit", "--no-fund"]

    _run([*npm, "install"], root, fresh.env)
    tested = _run([*npm, "test"], root, fresh.env)
    check = fresh.toolproof("gen", "--check", cwd=root)

    assert (root / "generated" / "typescript" / "runtime" / "index.ts").is_file()
    assert "# pass 4" in tested.stdout and "# fail 0" in tested.stdout, tested.stdout
    assert check.stdout == "generated/ is up to date (1 contract(s))\n"
