"""Drives a server through `presa proxy` with the Python MCP SDK's client (`mcp`), and prints
what it saw as one JSON object on stdout. crates/presa-cli/tests/proxy.rs runs it and asserts on
that object; this script checks nothing itself, it only fails when a step it needs raises.

    python proxy_client.py ERA SCENARIO --stdio COMMAND [ARGS...]
    python proxy_client.py ERA SCENARIO --http URL

ERA is `2025` (mode "legacy") or `2026` (mode "auto"). SCENARIO is `patterns` (presa's
`patterns` example behind the proxy: progress and log messages, elicitation, sampling, roots)
or `cancel` (presa's `countdown` example: a call given up after its first progress).
"""

import json
import sys

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import (
    CreateMessageResult,
    ElicitResult,
    Implementation,
    ListRootsResult,
    Root,
    TextContent,
)


def text_of(result):
    return "".join(block.text for block in result.content if isinstance(block, TextContent))


async def main(era, scenario, kind, target):
    if kind == "--stdio":
        transport = stdio_client(StdioServerParameters(command=target[0], args=target[1:]))
    elif kind == "--http":
        transport = streamable_http_client(target[0])
    else:
        sys.exit(f"unknown transport {kind}")
    report = {"sdk": "python", "era": era}
    logs = []
    asked = {}

    async def on_log(params):
        logs.append(params.data)

    async def on_elicit(_context, params):
        asked["elicitation"] = params.message
        return ElicitResult(action="accept", content={"sure": True})

    async def on_sample(_context, params):
        asked["sampling"] = params.messages[0].content.text
        return CreateMessageResult(
            role="assistant", content=TextContent(type="text", text="short"), model="python"
        )

    async def on_roots(_context):
        asked["roots"] = True
        return ListRootsResult(roots=[Root(uri="file:///work/py", name="py")])

    client = Client(
        transport,
        mode={"2025": "legacy", "2026": "auto"}[era],
        read_timeout_seconds=60,
        client_info=Implementation(name="interop-python-proxy", version="1.0.0"),
        logging_callback=on_log,
        log_level="info",
        elicitation_callback=on_elicit,
        sampling_callback=on_sample,
        list_roots_callback=on_roots,
        cache=None,
    )
    async with client:
        report["protocolVersion"] = client.protocol_version
        report["serverInfo"] = client.server_info and client.server_info.name
        report["tools"] = sorted(t.name for t in (await client.list_tools()).tools)
        if scenario == "patterns":
            progress = []

            async def on_progress(done, total, message):
                progress.append([done, total, message])

            counted = await client.call_tool("count", {"to": 3}, progress_callback=on_progress)
            report["count"] = text_of(counted)
            report["progress"] = progress
            report["logs"] = list(logs)
            report["confirm"] = text_of(await client.call_tool("confirm_delete", {"path": "/x"}))
            report["summarize"] = text_of(await client.call_tool("summarize", {"text": "hello"}))
            report["workspace"] = text_of(await client.call_tool("workspace", {}))
            report["asked"] = asked
        elif scenario == "cancel":
            started = anyio.Event()

            async def on_first(done, total, message):
                started.set()

            async def long_call():
                await client.call_tool("countdown", {"seconds": 600}, progress_callback=on_first)

            with anyio.move_on_after(60) as deadline:
                async with anyio.create_task_group() as tasks:
                    tasks.start_soon(long_call)
                    await started.wait()
                    # given up: the task group cancels the call, and the SDK tells the server
                    tasks.cancel_scope.cancel()
            report["cancelled"] = not deadline.cancelled_caught
            # the proxy goes on serving
            report["after"] = sorted(t.name for t in (await client.list_tools()).tools)
        else:
            sys.exit(f"unknown scenario {scenario}")
    print(json.dumps(report))


if __name__ == "__main__":
    if len(sys.argv) < 5 or sys.argv[1] not in ("2025", "2026"):
        sys.exit("usage: python proxy_client.py 2025|2026 patterns|cancel --stdio COMMAND... | --http URL")
    anyio.run(main, sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:])
