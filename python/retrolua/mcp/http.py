"""Serving MCP over the SDK's Streamable HTTP transport, for a running game (`retrolua run … --mcp [PORT]`
starts this with the game's control socket and a token): on loopback only, and every request must carry
`Authorization: Bearer TOKEN`, as the TCP control door asks its hello for one — another user's process on
the machine can reach a loopback port, so the port alone admits nobody. Each HTTP client gets its own MCP
session, attached to the game; the server ends when the run that started it does."""

import hmac
import ipaddress
import os
import secrets
import sys
import threading
import time
from typing import Any, Tuple

LOOPBACK_NAMES = {"localhost"}


def parse_listen(text: str) -> Tuple[str, int]:
    """(host, port) from PORT, HOST:PORT or [V6]:PORT; ValueError unless the host is a loopback address."""
    host, port = "127.0.0.1", text
    if text.startswith("["):
        host, _, port = text[1:].partition("]:")
    elif ":" in text:
        host, _, port = text.rpartition(":")
    if not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ValueError("--http: %r is not a port (1..65535)" % port)
    if host not in LOOPBACK_NAMES:
        try:
            loopback = ipaddress.ip_address(host).is_loopback
        except ValueError:
            loopback = False
        if not loopback:
            raise ValueError("--http: MCP is served on loopback only (127.0.0.1, ::1, localhost), not %s" % host)
    return ("127.0.0.1" if host == "localhost" else host), int(port)


class BearerToken:
    """ASGI middleware: a request without `Authorization: Bearer TOKEN` gets 401 and reaches nothing."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.expected = ("Bearer " + token).encode()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                body = b'{"error": "unauthorized: send Authorization: Bearer <the run\'s MCP token>"}'
                await send({"type": "http.response.start", "status": 401,
                            "headers": [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer"),
                                        (b"content-length", str(len(body)).encode())]})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def _end_with_parent(pid: int) -> None:
    """Ends this process once the run that started it is gone (polled: a run killed hard sends no signal)."""
    def watch() -> None:
        while True:
            time.sleep(1.0)
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                os._exit(0)
            except PermissionError:
                pass
    threading.Thread(target=watch, name="retrolua-mcp-parent", daemon=True).start()


def serve(server: Any, listen: str) -> None:
    """Serves `server` (the FastMCP) over Streamable HTTP at http://HOST:PORT/mcp until stopped."""
    import uvicorn

    host, port = parse_listen(listen)
    token = os.environ.get("RETROLUA_MCP_TOKEN", "")
    if not token:
        token = secrets.token_hex(24)
        sys.stderr.write("retrolua mcp: no RETROLUA_MCP_TOKEN; this server's token: %s\n" % token)
    elif len(token) < 16:
        raise ValueError("RETROLUA_MCP_TOKEN: the token must be at least 16 characters")
    parent = os.environ.get("RETROLUA_MCP_PARENT", "")
    if parent.isdigit():
        _end_with_parent(int(parent))
    server.settings.host, server.settings.port = host, port
    app = BearerToken(server.streamable_http_app(), token)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on")
    uvicorn.Server(config).run()
