"""Drives presa's `library` example server (crates/presa/examples/library) with the Python MCP
SDK's client (`mcp`), and prints what it saw as one JSON object on stdout, in the shape
interop/node/client.mjs prints. crates/presa/tests/it/interop_*.rs run it and assert on that
object; this script checks nothing itself, it only fails when a step it needs raises.

    python client.py ERA --stdio COMMAND [ARGS...]
    python client.py ERA --http URL

ERA is `2025` (mode "legacy": the `initialize` handshake), `2026` (mode "auto": the client
probes with `server/discover`, and must end up speaking 2026-07-28) or `pin` (mode
"2026-07-28": adopted without a probe).
"""

import json
import math
import sys
from contextlib import asynccontextmanager

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import Implementation, PromptReference

PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"


def dump(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


@asynccontextmanager
async def recorded(transport, sent, received):
    """The transport, with every message the client sends and receives recorded."""
    async with transport as (read, write):
        to_client, client_reads = anyio.create_memory_object_stream(math.inf)
        client_writes, from_client = anyio.create_memory_object_stream(math.inf)

        async def upstream():
            async with from_client:
                async for message in from_client:
                    sent.append(dump(message.message))
                    await write.send(message)

        async def downstream():
            async with to_client:
                async for message in read:
                    if not isinstance(message, Exception):
                        received.append(dump(message.message))
                    await to_client.send(message)

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(upstream)
            tasks.start_soon(downstream)
            yield client_reads, client_writes
            tasks.cancel_scope.cancel()


async def main(era, kind, target):
    if kind == "--stdio":
        transport = stdio_client(StdioServerParameters(command=target[0], args=target[1:]))
    elif kind == "--http":
        transport = streamable_http_client(target[0])
    else:
        sys.exit(f"unknown transport {kind}")
    sent, received = [], []

    async def attempt(call):
        """The outcome of a call that may fail: its result, or the error it failed with, as the
        SDK raised it and as it came over the wire."""
        before = len(received)
        try:
            return {"result": dump(await call())}
        except MCPError as error:
            wire = next((m["error"] for m in received[before:] if "error" in m), None)
            return {"error": {"code": error.code, "message": error.message}, "wire": wire}

    report = {"sdk": "python", "era": era}
    client = Client(
        recorded(transport, sent, received),
        mode={"2025": "legacy", "2026": "auto", "pin": "2026-07-28"}[era],
        read_timeout_seconds=60,
        client_info=Implementation(name="interop-python", version="1.0.0"),
        cache=None,
    )
    async with client:
        report["protocolVersion"] = client.protocol_version
        report["tools"] = [dump(t) for t in (await client.list_tools()).tools]
        # pinned, the client learns who the server is from the first result's `_meta`
        report["serverInfo"] = client.server_info and dump(client.server_info)
        report["add"] = dump(await client.call_tool("add", {"numbers": [1, 2, 3]}))
        report["addInvalid"] = dump(await client.call_tool("add", {"numbers": "one, two"}))
        report["logo"] = dump(await client.call_tool("logo", {}))
        report["unknownTool"] = await attempt(lambda: client.call_tool("no-such-tool", {}))

        report["resources"] = [dump(r) for r in (await client.list_resources()).resources]
        report["readme"] = dump(await client.read_resource("file:///readme.txt"))
        templates = (await client.list_resource_templates()).resource_templates
        report["templates"] = [dump(t) for t in templates]
        report["ada"] = dump(await client.read_resource("people://ada"))
        report["nobody"] = await attempt(lambda: client.read_resource("people://nobody"))

        report["prompts"] = [dump(p) for p in (await client.list_prompts()).prompts]
        report["introduce"] = dump(await client.get_prompt("introduce", {"id": "ada"}))
        completion = await client.complete(PromptReference(name="introduce"), {"name": "id", "value": "a"})
        report["completion"] = dump(completion.completion)

    report["sent"] = [
        {
            "method": m.get("method"),
            "request": "id" in m and "method" in m,
            "protocolVersionMeta": ((m.get("params") or {}).get("_meta") or {}).get(PROTOCOL_VERSION_KEY),
        }
        for m in sent
    ]
    print(json.dumps(report))


if __name__ == "__main__":
    if len(sys.argv) < 4 or sys.argv[1] not in ("2025", "2026", "pin"):
        sys.exit("usage: python client.py 2025|2026|pin --stdio COMMAND [ARGS...] | --http URL")
    anyio.run(main, sys.argv[1], sys.argv[2], sys.argv[3:])
