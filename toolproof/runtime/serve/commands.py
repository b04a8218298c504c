"""The commands that serve and list tools: ``serve mcp``, ``serve http``, ``toolsets``, ``skills``.

Each finds the project (``--project``, else the nearest above the current
folder, else the built-in tools) and serves exactly its tools. Transports are
imported inside the command that uses them. ``call`` is in ``oneshot``, so a
one-shot call builds none of the servers' options.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from toolproof.runtime.serve.console import CommandUsageError
from toolproof.runtime.serve.options import (
    host_options,
    project_option,
    project_or_exit,
    runtime_or_exit,
    specs_or_exit,
)

if TYPE_CHECKING:
    from toolproof.runtime.dispatch import Runtime
    from toolproof.runtime.project import ProjectConfig
    from toolproof.runtime.serve.http import CallGate, Refusal, Scope
    from toolproof.runtime.serve.http_server import LimitedApp
    from toolproof.runtime.serve.introspection import Introspection
    from toolproof.runtime.serve.oauth import OAuthSettings, ResourceServer

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")
TOKENS_ENV = "TOOLPROOF_AUTH_TOKENS"  # toolproof.runtime.serve.app.TOKENS_ENV, without importing the app
CLIENT_SECRET_ENV = "TOOLPROOF_OAUTH_CLIENT_SECRET"
"""The client secret for token introspection: from the environment only, never on a command line others can read."""

__all__ = ["serve", "serve_worker", "skills", "toolsets"]


@click.command()
@click.option(
    "--skills", multiple=True, type=click.Path(exists=True, file_okay=False), help="A workspace skills folder."
)
@click.option("--budget", default=8000, show_default=True, type=click.IntRange(min=400), help="Most characters.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["plain", "xml"]),
    default="plain",
    show_default=True,
    help="plain: the '# Skills' section, descriptions as written; xml: <available_skills>, XML-escaped.",
)
@click.option(
    "--identity",
    is_flag=True,
    help="First print the agent-identity guideline that tells the model to call read_skill, and a blank line.",
)
def skills(skills: tuple[str, ...], budget: int, fmt: str, identity: bool) -> None:
    """Print the skills section for a system prompt; problems with --skills folders go to stderr, a line each.

    With --identity, the guideline read_skill's document adds to the agent's
    identity comes first, so a host can place both.
    """
    from toolproof.builtin.skills.catalog import SkillCatalog, builtin_skills_dir
    from toolproof.runtime.printable import printable

    catalog = SkillCatalog.discover(skills, builtin=builtin_skills_dir(), log=False)  # printed below instead
    summary = catalog.summary(budget, fmt="xml" if fmt == "xml" else "plain")
    if identity:
        click.echo(catalog.identity() + "\n")
    click.echo(summary.text, nl=False)
    for line in catalog.problems(builtin=False):  # the built-in skills' names are their seed's (data_analysis)
        click.echo(f"warning: {line}", err=True)
    if summary.omitted:
        left_out = ", ".join(printable(name) for name in summary.omitted)
        click.echo(f"warning: {len(summary.omitted)} skill(s) left out by the budget: {left_out}", err=True)


@click.group()
def serve() -> None:
    """Serve the project's tools to clients: MCP over stdio, or HTTP."""


_LIMIT_OPTIONS: tuple[tuple[str, click.ParamType[Any], str], ...] = (
    ("head_timeout", click.FloatRange(min=0.01), "Seconds for a request head."),
    ("body_timeout", click.FloatRange(min=0.01), "Seconds for a body."),
    ("send_timeout", click.FloatRange(min=0.01), "Seconds a client may leave a response unread before it is dropped."),
    ("max_connections", click.IntRange(min=1), "Connections at once."),
    ("max_calls", click.IntRange(min=1), "Tool calls at once."),
    (
        "max_in_flight_bytes",
        click.IntRange(min=1),
        "Bytes of large responses being written at once; as many again of request bodies over 64 KiB being read.",
    ),
    ("queue_timeout", click.FloatRange(min=0), "Seconds a request waits for a call slot or response bytes before 503."),
)
"""The ``HttpLimits`` fields a command line sets: the field, its type and its help; defaults are the fields' own."""


def _limit_options() -> list[Callable[[F], F]]:
    from toolproof.runtime.serve.limits import HttpLimits

    defaults = HttpLimits()
    return [
        click.option(
            "--" + name.replace("_", "-"), default=getattr(defaults, name), show_default=True, type=kind, help=text
        )
        for name, kind, text in _LIMIT_OPTIONS
    ]


def _http_options(fn: F) -> F:
    """The options of every HTTP server: address, the hardening limits, and who may call."""
    options = [
        click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on (loopback)."),
        click.option(
            "--port", default=8000, show_default=True, type=click.IntRange(0, 65535), help="Port to listen on."
        ),
        *_limit_options(),
        click.option(
            "--allow-host",
            "allow_hosts",
            multiple=True,
            help="A host name the Host header may carry, besides loopback ones and --host (repeatable).",
        ),
        click.option(
            "--allow-origin",
            "allow_origins",
            multiple=True,
            help="An Origin (scheme://host[:port]) browsers may call from, besides loopback ones (repeatable).",
        ),
        click.option(
            "--workers",
            default=1,
            show_default=True,
            type=click.IntRange(1, 256),
            help="Worker processes sharing the port (SO_REUSEPORT); a supervisor restarts any that dies.",
        ),
        click.option(
            "--auth-tokens",
            type=click.Path(exists=True, dir_okay=False, path_type=Path),
            default=None,
            help=f"A file of bearer tokens, one a line; also read from ${TOKENS_ENV} (comma-separated).",
        ),
        click.option(
            "--oauth-issuer",
            default=None,
            metavar="URL",
            help="Accept OAuth access tokens (JWTs) from this authorization server instead of static tokens; "
            "needs --oauth-resource and the oauth extra.",
        ),
        click.option(
            "--oauth-resource",
            default=None,
            metavar="URL",
            help="This server's resource identifier (e.g. https://tools.example/mcp): a token's aud must hold it.",
        ),
        click.option(
            "--oauth-jwks",
            default=None,
            metavar="URL",
            help="The issuer's JWKS; default: the jwks_uri of its metadata (RFC 8414, else OpenID discovery).",
        ),
        click.option(
            "--oauth-scope",
            "oauth_scopes",
            multiple=True,
            metavar="SCOPE",
            help="A scope every call needs (repeatable); listed in the protected-resource metadata.",
        ),
        click.option(
            "--oauth-refetch-interval",
            default=30.0,
            show_default=True,
            type=click.FloatRange(min=0.1),
            help="Seconds between JWKS fetches that a token signed with an unknown key may trigger, at least.",
        ),
        click.option(
            "--oauth-introspection",
            default=None,
            metavar="URL",
            help="Check tokens that are not JWTs at this RFC 7662 introspection endpoint, as the client "
            f"--oauth-client-id with the secret in ${CLIENT_SECRET_ENV}; answers are cached for the token's life "
            "(5 minutes at most).",
        ),
        click.option(
            "--oauth-client-id",
            default=None,
            metavar="ID",
            envvar="TOOLPROOF_OAUTH_CLIENT_ID",
            help="This server's client id at the authorization server, for --oauth-introspection "
            "(or $TOOLPROOF_OAUTH_CLIENT_ID).",
        ),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def _server_or_exit(build: Callable[[], T]) -> T:
    """A server ``build`` makes; exit 1 naming every problem, as ``runtime_or_exit`` does, when it cannot start.

    A server reads the generated files that list its tools: one missing, torn, stale or not a regular
    file is a start-up error that names it and `toolproof gen`, not a crash.
    """
    from toolproof.runtime.errors import RegistryError

    try:
        return build()
    except RegistryError as exc:
        for problem in exc.problems:
            click.echo(problem, err=True)
        sys.exit(1)


def _http_app(config: ProjectConfig, runtime: Runtime, options: dict[str, Any], *, worker: bool = False) -> LimitedApp:
    """MCP at /mcp, the REST routes and /healthz as one app, within the limits and gates of ``options``.

    A ``worker`` of ``serve --workers`` does not warn of a shared token file again: its supervisor has.
    """
    from toolproof.runtime.serve.app import Security, ToolproofApp, load_tokens
    from toolproof.runtime.serve.http import HttpApp
    from toolproof.runtime.serve.limits import HttpLimits
    from toolproof.runtime.serve.mcp import McpServer
    from toolproof.runtime.serve.streamable import StreamableMcp
    from toolproof.runtime.validation import import_compiler

    import_compiler()  # now: the first request should not wait for it
    try:
        tokens = load_tokens(options["auth_tokens"], warn=not worker)
    except (OSError, ValueError) as exc:
        raise click.UsageError(f"auth tokens: {exc}") from None
    limits = HttpLimits(**{name: options[name] for name, _, _ in _LIMIT_OPTIONS})
    oauth = _resource_server(options, tokens, runtime)
    security = Security.build(options["host"], options["allow_hosts"], options["allow_origins"], tokens, oauth)
    gate = _gate(config, runtime, oauth, options.get("rate_file"), warn=not worker)
    # One deterministic gate session for MCP callers that name none: any worker honours another's tokens.
    rest = _server_or_exit(lambda: HttpApp(runtime, package=config.package, limits=limits, gate=gate))
    state = _state_secret(runtime)
    core = _server_or_exit(
        lambda: McpServer(runtime, package=config.package, session="http", handshake=False, state_secret=state)
    )
    # One budget for the whole app: call slots, response bytes and request body bytes.
    mcp = StreamableMcp(core, limits, calls=rest.calls, responses=rest.responses, bodies=rest.bodies, gate=gate)
    _trace_or_exit(runtime, options)
    return ToolproofApp(rest, mcp, security, runtime.telemetry)


def _state_secret(runtime: Runtime) -> bytes | None:
    """The key of the 2026-07-28 ``requestState`` of tools that ask: the gate's secret when one is given.

    ``$TOOLPROOF_GATE_SECRET``, or the key a ``--workers`` supervisor hands its workers, so any worker takes
    another's state; None (a key of this process's own) otherwise: no key file is made for it.
    """
    from toolproof.builtin.skills.gate import KEY_HEX_ENV, GateSecretError, default_secret, env_secret

    if not any(spec.asks for spec in runtime.specs):
        return None
    try:
        return env_secret() or (default_secret() if KEY_HEX_ENV in os.environ else None)
    except GateSecretError as exc:
        raise click.ClickException(str(exc)) from None


_otel_option = click.option(
    "--otel",
    is_flag=True,
    envvar="TOOLPROOF_OTEL",
    help="Trace every MCP request and tool call with OpenTelemetry, and count their durations and errors; "
    "exported by OTLP/HTTP as the OTEL_* variables say (or $TOOLPROOF_OTEL=1). Needs toolproof[otel].",
)


def _trace_or_exit(runtime: Runtime, options: dict[str, Any]) -> None:
    """Turn OpenTelemetry on for ``runtime`` when ``--otel`` asks; a usage error naming the extra when it is missing."""
    if not options.get("otel"):
        return
    from toolproof.runtime.serve.telemetry import Telemetry, require_otel

    try:
        require_otel()
    except ImportError as exc:
        raise click.UsageError(str(exc)) from None
    runtime.telemetry = Telemetry()


def _gate(
    config: ProjectConfig, runtime: Runtime, oauth: ResourceServer | None, rate_file: str | None, *, warn: bool = True
) -> CallGate | None:
    """What judges each call before it runs: the scopes its contract names (OAuth), then the rate limits.

    ``rate_file`` is the bucket file the supervisor of ``serve --workers`` shares with its workers; None: a
    private one (one process).
    """
    gates = [gate for gate in (_scope_gate(runtime, oauth, warn=warn), _rate_gate(config, runtime, rate_file)) if gate]
    if len(gates) < 2:
        return gates[0] if gates else None
    scopes, rates = gates

    def both(tool: str, scope: Scope) -> Refusal | None:
        return scopes(tool, scope) or rates(tool, scope)  # a call refused its scope takes no rate

    return both


def _rate_gate(config: ProjectConfig, runtime: Runtime, rate_file: str | None) -> CallGate | None:
    """The rate limits of ``[serve] rate-limits`` over the served tools; None when there are none."""
    if not config.serve.get("rate-limits"):
        return None
    from toolproof.runtime.project import ProjectError
    from toolproof.runtime.serve.policy import rate_limits
    from toolproof.runtime.serve.ratelimit import RateGate, SharedBuckets

    try:
        limits = rate_limits(config)
        buckets = SharedBuckets(None if rate_file is None else Path(rate_file))
    except ProjectError as exc:
        raise click.UsageError(str(exc)) from None
    except OSError as exc:
        raise click.ClickException(f"rate limits: {exc}") from None
    return RateGate(limits, runtime.specs, buckets)


def _scope_gate(runtime: Runtime, oauth: ResourceServer | None, *, warn: bool = True) -> CallGate | None:
    """The scopes the served tools' contracts name, when OAuth is on (else nothing)."""
    if oauth is None:  # static tokens carry no scopes: a contract's scopes bind OAuth callers only
        scoped = sorted(spec.name for spec in runtime.specs if spec.scopes)
        if scoped and warn:
            click.echo(
                f"warning: {', '.join(scoped)} name OAuth scopes, which only --oauth-issuer enforces: without it"
                " any caller the host lets in may call them",
                err=True,
            )
        return None
    from toolproof.runtime.serve.gate import ScopeGate

    scopes = ScopeGate(runtime.specs, oauth.settings)
    return scopes if scopes else None


def _resource_server(options: dict[str, Any], tokens: list[str], runtime: Runtime) -> ResourceServer | None:
    """The OAuth resource server the ``--oauth-*`` options describe, or None when they name no issuer.

    Its metadata's ``scopes_supported`` names those every call needs, then those the served tools' contracts name.
    """
    issuer, resource = options["oauth_issuer"], options["oauth_resource"]
    if issuer is None:
        named = (options["oauth_jwks"], options["oauth_introspection"], options["oauth_client_id"])
        if resource is not None or any(value is not None for value in named) or options["oauth_scopes"]:
            raise click.UsageError("the --oauth-* options need --oauth-issuer")
        return None
    if resource is None:
        raise click.UsageError("--oauth-issuer needs --oauth-resource, the URL clients ask tokens for")
    if tokens:
        raise click.UsageError(f"--oauth-issuer and static tokens (--auth-tokens, ${TOKENS_ENV}) exclude each other")
    from toolproof.runtime.serve.oauth import OAuthSettings, ResourceServer

    try:
        supported = tuple(sorted({scope for spec in runtime.specs for scope in spec.scopes}))
        settings = OAuthSettings(
            issuer, resource, options["oauth_jwks"], tuple(options["oauth_scopes"]), supported=supported
        )
        introspection = _introspection(options, settings)
        return ResourceServer(settings, refetch_interval=options["oauth_refetch_interval"], introspection=introspection)
    except (ValueError, ImportError) as exc:
        raise click.UsageError(str(exc)) from None


def _introspection(options: dict[str, Any], settings: OAuthSettings) -> Introspection | None:
    """The RFC 7662 client ``--oauth-introspection`` describes, or None; a usage error for half a setting."""
    url, client = options["oauth_introspection"], options["oauth_client_id"]
    if url is None:
        if client is not None:
            raise click.UsageError("--oauth-client-id is for --oauth-introspection, which is not given")
        return None
    secret = os.environ.get(CLIENT_SECRET_ENV, "")
    if client is None or not secret:
        raise click.UsageError(
            f"--oauth-introspection needs --oauth-client-id and the client's secret in ${CLIENT_SECRET_ENV}"
        )
    from toolproof.runtime.serve.introspection import Introspection
    from toolproof.runtime.serve.oauth import LEEWAY

    return Introspection(url, (client, secret), issuer=settings.issuer, resource=settings.resource, leeway=LEEWAY)


def _serve_http(config: ProjectConfig, runtime: Runtime, served: dict[str, Any], options: dict[str, Any]) -> None:
    """Serve the HTTP app until interrupted: in this process, or in ``--workers`` processes under a supervisor.

    ``served`` holds what the host options named (workspace, skills, toolset, project), for the workers to
    load the project as this process did.
    """
    from toolproof.builtin.skills.gate import GateSecretError
    from toolproof.runtime.serve.http_server import claim_port, reuse_port_socket
    from toolproof.runtime.serve.http_server import serve as serve_app
    from toolproof.runtime.serve.workers import WORKER_ENV, Supervisor, shared_secret_env

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    app = _http_app(config, runtime, options)  # here too, so a bad option stops the supervisor, not each worker
    if options["workers"] == 1:
        serve_app(app, host=options["host"], port=options["port"])
        return
    # Gate tokens and 2026-07-28 requestStates are HMACs under the shared secret, so any worker takes them.
    gated = any("skill_gate" in spec.settings or spec.asks for spec in runtime.specs)
    try:
        secret = shared_secret_env() if gated else {}  # a host with no gated or asking tool needs no key file
        # Bound but not listening: it names the port for --port 0, and holds it while a worker restarts.
        reserved = reuse_port_socket(options["host"], options["port"], listen=False)
    except GateSecretError as exc:  # an OSError (the port in use, the key file) is the command line's one line
        raise click.ClickException(str(exc)) from None
    with reserved:
        address: tuple[Any, ...] = reserved.getsockname()
        port: int = address[1]
        try:  # SO_REUSEPORT would let a second server of ours share the port silently
            claim = claim_port(address[0], port)
        except OSError as exc:
            raise click.ClickException(f"cannot serve on {options['host']}:{port}: {exc.strerror}") from None
        rate_file = _shared_buckets(config)  # the workers count every caller's calls together
        spec = {"served": served, "options": {**options, "port": port, "rate_file": rate_file}}
        env = {**os.environ, **secret, WORKER_ENV: json.dumps(spec, default=str)}
        command = [sys.executable, "-c", "from toolproof.runtime.serve.commands import serve_worker; serve_worker()"]
        click.echo(f"toolproof: serving http://{options['host']}:{port} with {options['workers']} workers", err=True)
        try:
            status = Supervisor(command, options["workers"], env).run()
        finally:
            if claim is not None:
                claim.close()
            if rate_file is not None:
                Path(rate_file).unlink(missing_ok=True)
    if status:
        sys.exit(status)


def _shared_buckets(config: ProjectConfig) -> str | None:
    """A new bucket file for the workers' rate limits; None when the project sets none."""
    if not config.serve.get("rate-limits"):
        return None
    from toolproof.runtime.serve.ratelimit import bucket_file

    try:
        return str(bucket_file())
    except OSError as exc:
        raise click.ClickException(f"rate limits: cannot make the workers' shared file: {exc}") from None


def serve_worker() -> None:
    """Run one worker of ``serve --workers``: load the project named in ``$TOOLPROOF_WORKER`` and serve it.

    The supervisor has checked the options, bound the port and put the gate
    secret in the environment; the worker binds its own socket on that port
    with ``SO_REUSEPORT`` and stops when the supervisor does.
    """
    from toolproof.runtime.serve.http_server import serve as serve_app
    from toolproof.runtime.serve.workers import WORKER_ENV, watch_supervisor

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    spec = json.loads(os.environ[WORKER_ENV])
    served, options = spec["served"], spec["options"]
    options["auth_tokens"] = None if options["auth_tokens"] is None else Path(options["auth_tokens"])
    options["allow_hosts"], options["allow_origins"] = tuple(options["allow_hosts"]), tuple(options["allow_origins"])
    project = None if served["project"] is None else Path(served["project"])
    config = project_or_exit(project)
    runtime = runtime_or_exit(config, tuple(served["workspace"]), tuple(served["skills"]), served["toolset"])
    app = _http_app(config, runtime, options, worker=True)
    watch_supervisor()
    try:
        serve_app(app, host=options["host"], port=options["port"], reuse_port=True)
    except KeyboardInterrupt:  # Ctrl-C reaches each worker too: it has shut down gracefully; no traceback
        pass


@serve.command("mcp")
@host_options
@click.option(
    "--transport",
    type=click.Choice(["stdio", "http"]),
    default="stdio",
    show_default=True,
    help="stdio: one connection on stdin/stdout; http: Streamable HTTP at /mcp (with the REST routes).",
)
@_http_options
@_otel_option
@project_option
def serve_mcp(
    workspace: tuple[str, ...],
    skills: tuple[str, ...],
    toolset: str | None,
    allow_stale: bool,
    transport: str,
    project: Path | None,
    **options: Any,
) -> None:
    """Serve MCP over stdio (one connection, one session) until stdin closes, or over Streamable HTTP.

    Over HTTP the same app also serves POST /tools/{name}, GET /openapi.json
    and GET /healthz, with the limits and gates of ``serve http``.
    """
    from toolproof.runtime.serve.run import load_served, serve_stdio

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    try:
        config, runtime = load_served(workspace, skills, toolset, allow_stale, project)
    except CommandUsageError as exc:
        raise click.UsageError(str(exc)) from None
    if transport == "http":
        served = {"workspace": workspace, "skills": skills, "toolset": toolset, "project": project}
        _serve_http(config, runtime, served, options)
        return
    _trace_or_exit(runtime, options)
    serve_stdio(config, runtime)  # what `toolproof.command_line` runs when no option needs click


@serve.command("http")
@host_options
@_http_options
@_otel_option
@project_option
def serve_http(
    workspace: tuple[str, ...],
    skills: tuple[str, ...],
    toolset: str | None,
    allow_stale: bool,
    project: Path | None,
    **options: Any,
) -> None:
    """Serve POST /tools/{name}, GET /openapi.json, MCP at /mcp and GET /healthz with uvicorn.

    Half-sent requests time out (408), connections past the limit get 503, and
    the memory calls and responses hold is bounded; excess requests wait, then
    get 503 with Retry-After. Hosts other than loopback and --host get 421,
    foreign browser origins 403, and, with tokens, calls without one 401.
    """
    from toolproof.runtime.serve.run import load_served

    try:
        config, runtime = load_served(workspace, skills, toolset, allow_stale, project)
    except CommandUsageError as exc:
        raise click.UsageError(str(exc)) from None
    served = {"workspace": workspace, "skills": skills, "toolset": toolset, "project": project}
    _serve_http(config, runtime, served, options)


@click.command()
@project_option
def toolsets(project: Path | None) -> None:
    """List the project's tool sets and their tools (built-in sets it includes marked as such)."""
    config = project_or_exit(project)
    specs = specs_or_exit(config)
    sets: dict[str, list[str]] = {}
    included: set[str] = set()
    for spec in specs:
        for name in spec.toolsets:
            sets.setdefault(name, []).append(spec.name if spec.kind == "tool" else f"{spec.name} ({spec.kind})")
            if spec.package != config.package:
                included.add(name)
    for name, tools in sorted(sets.items()):
        mark = " (built-in)" if name in included else ""
        click.echo(f"{name}{mark}: {', '.join(tools)}")
    loose = [spec.name if spec.kind == "tool" else f"{spec.name} ({spec.kind})" for spec in specs if not spec.toolsets]
    if loose:
        click.echo(f"(in no tool set): {', '.join(loose)}")
