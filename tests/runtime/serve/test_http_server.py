"""The uvicorn internals ``serve/http_server.py`` relies on exist on the installed uvicorn.

``_Guarded`` extends uvicorn's httptools protocol through names that are no
public API (``UVICORN_INTERNALS``). A release that moves one would break the
head, connection, send and pipelining limits only once a server runs; this
test fails first, naming what is missing, so a new release is caught in CI.
"""

from __future__ import annotations

import asyncio
from typing import Any

import uvicorn
from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.server import ServerState

from toolproof.runtime.serve.http import Receive, Scope, Send
from toolproof.runtime.serve.http_server import UVICORN_INTERNALS


class _Transport(asyncio.Transport):
    """What the protocol writes to, dropped."""

    def write(self, data: bytes | bytearray | memoryview) -> None:
        pass

    def is_closing(self) -> bool:
        return False

    def close(self) -> None:
        pass

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return default


def _instances() -> dict[str, object]:
    """An instance of each class ``UVICORN_INTERNALS`` names, as a server has them in the middle of a request."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    async def run() -> dict[str, object]:
        config = Config(app, log_level="warning")
        config.load()
        protocol = HttpToolsProtocol(config, ServerState(), {})
        protocol.connection_made(_Transport())
        protocol.data_received(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n")  # the request in hand, its app not yet run
        found = {
            "HttpToolsProtocol": protocol,
            "RequestResponseCycle": protocol.cycle,
            "FlowControl": protocol.flow,
            "Server": uvicorn.Server(config),
        }
        while protocol.tasks:  # its answer
            await asyncio.sleep(0)
        protocol.connection_lost(None)
        return found

    return asyncio.run(run())


def test_every_uvicorn_internal_the_guarded_protocol_relies_on_exists_on_the_installed_release() -> None:
    instances = _instances()

    missing = [
        f"{kind}.{name}"
        for kind, names in UVICORN_INTERNALS.items()
        for name in names
        if not hasattr(instances[kind], name)
    ]

    assert not missing, (
        f"uvicorn {uvicorn.__version__} lacks {', '.join(missing)}, which serve/http_server.py's _Guarded relies on: "
        "adapt _Guarded (and UVICORN_INTERNALS) to this release, or keep pyproject's bound on uvicorn below it"
    )


def test_the_internals_are_checked_on_the_classes_guarded_extends() -> None:
    assert set(UVICORN_INTERNALS) == {"HttpToolsProtocol", "RequestResponseCycle", "FlowControl", "Server"}
