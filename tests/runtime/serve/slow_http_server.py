"""``read_file_in_skill`` over HTTP under the hardened server, every call taking at least a set time.

A first answer that is surely slow, whatever the machine: ``test_http_limits.py``
sends a bad request behind one such call and checks that the server answers the
call in full before it refuses the bad request.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from toolproof.builtin.handlers.read_file_in_skill import handle
from toolproof.runtime.context import ToolContext
from toolproof.runtime.registry import BoundTool
from toolproof.runtime.serve.http import HttpApp
from toolproof.runtime.serve.http_server import serve
from toolproof.runtime.spec import load_specs
from toolproof.runtime.toolbox import builtin_runtime


def main() -> None:
    """Serve on ``--port`` until terminated."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--skills", required=True)
    parser.add_argument("--delay", type=float, required=True, help="seconds each call sleeps before it reads")
    options = parser.parse_args()

    def slow(args: Any, ctx: ToolContext) -> Any:
        time.sleep(options.delay)
        return handle(args, ctx)

    (spec,) = load_specs(modules=("read_file_in_skill",))
    runtime = builtin_runtime(skills=[options.skills], tools=[BoundTool.build(spec, slow)])
    serve(HttpApp(runtime), host="127.0.0.1", port=options.port)


if __name__ == "__main__":
    main()
