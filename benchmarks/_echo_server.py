"""The floor: a bare newline-delimited JSON-RPC loop over pipes that answers every request at once."""

from __future__ import annotations

import json
import sys


def main() -> None:
    """Answer each request with an empty result until stdin closes."""
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        message = json.loads(line)
        if "id" in message:
            out.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": {}}).encode() + b"\n")
            out.flush()


if __name__ == "__main__":
    main()
