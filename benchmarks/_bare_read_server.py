"""The floor that does the work: a bare newline-JSON-RPC loop answering read_file_in_skill with a plain read.

No validation, no sandboxed open, no audit, no line index: the same file read
and returned in the same shape as toolproof's answer, so the ratio of
toolproof's round trip to this one is what its transport, dispatch and
hardening add.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main() -> None:
    """Answer tools/call with the named skill file's text, every other request empty, until stdin closes."""
    skills = Path(sys.argv[1])
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        message = json.loads(line)
        if "id" not in message:
            continue
        result: dict[str, object] = {}
        if message.get("method") == "tools/call":
            args = message["params"]["arguments"]
            text = (skills / args["skill_name"] / args["file_path"]).read_bytes().decode("utf-8")
            output = {"skill_name": args["skill_name"], "file_path": args["file_path"], "content": text}
            result = {"content": [{"type": "text", "text": text}], "structuredContent": output, "isError": False}
        out.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}).encode() + b"\n")
        out.flush()


if __name__ == "__main__":
    main()
