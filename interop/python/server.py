"""An MCP server built on the Python SDK (`mcp`, MCPServer), which serves both protocol eras:
the 2025 `initialize` handshake and the stateless 2026-07-28 revision. presa's client drives
it in crates/presa/tests/it/interop_*.rs; it offers what interop/node/sdk-v2-server.mjs offers.

    python server.py stdio   serves on stdin/stdout
    python server.py http    serves Streamable HTTP at /mcp on 127.0.0.1, a free port; the
                             first stdout line is `listening http://127.0.0.1:PORT/mcp`

Every answer is computed by the SDK; the `era` tool reports which era the SDK says the
request came in, so the tests can tell that the era they asked for is the one it saw.
"""

import socket
import sys

import anyio
import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel

server = MCPServer("python-sdk-interop")


class Product(BaseModel):
    product: float


@server.tool(description="Echoes the message back.")
def echo(message: str) -> str:
    return f"echo: {message}"


@server.tool(description="Multiplies two numbers; the product is structured content.")
def multiply(a: float, b: float) -> Product:
    return Product(product=a * b)


@server.tool(description="Which protocol era the SDK is serving.")
def era(ctx: Context) -> str:
    return "modern" if ctx.protocol_version == "2026-07-28" else "legacy"


@server.resource("memo://motto", mime_type="text/plain")
def motto() -> str:
    return "Interoperate or die."


@server.prompt(description="Greets someone.")
def greet(name: str) -> str:
    return f"Say hello to {name}."


async def serve_http() -> None:
    # Listening before the URL is printed: connections made as soon as it is read wait in the
    # backlog until uvicorn accepts them.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    port = sock.getsockname()[1]
    app = server.streamable_http_app(host="127.0.0.1")
    config = uvicorn.Config(app, log_level="warning")
    http = uvicorn.Server(config)

    async def stop_when_stdin_closes() -> None:
        # The test ends this process by closing its stdin (or killing it).
        await anyio.to_thread.run_sync(sys.stdin.read)
        http.should_exit = True

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(stop_when_stdin_closes)
        print(f"listening http://127.0.0.1:{port}/mcp", flush=True)
        await http.serve(sockets=[sock])
        tasks.cancel_scope.cancel()


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "stdio":
        server.run("stdio")
    elif mode == "http":
        anyio.run(serve_http)
    else:
        sys.exit("usage: python server.py stdio|http")
