"""Tools written in Lua, at run time: a script loaded with the game, the person at the console, or the agent
itself through run_lua registers one with `mcp.tool{name=, description=, params=, run=}` (docs/guides/mcp.md);
the run keeps them (the `tools` and `call_tool` requests) and runs each in the Lua state that registered it,
under the scripts' sandbox. This server lists them beside its own, tells the client when the list changed
(`notifications/tools/list_changed`), and offers them through one stable tool, `lua_tools`, for clients that
ignore that notification. Plus the resources: the Lua API reference and the open game's memory map."""

import os
import time
from typing import Any, Callable, Dict, List, Optional

from ..errors import RetroluaError
from .game import GameSession
from .notes import folders

CHECK_SECONDS = 1.0  # how often a call looks whether a person's script changed the Lua tools


def listed(session: GameSession) -> Dict[str, Any]:
    """The run's Lua tools ({"version":, "tools": [...]}), remembered with the version they were read at."""
    reply = session.request("tools")
    session.extras["lua_tools"] = reply
    session.extras["lua_tools_checked"] = time.monotonic()
    return reply


def changed(session: GameSession, always: bool) -> bool:
    """Whether the Lua tools changed since they were last listed (asked when `always`, else at most once a
    second): the caller then tells the client."""
    if session.emulator is None:
        return False
    if not always and time.monotonic() - session.extras.get("lua_tools_checked", 0.0) < CHECK_SECONDS:
        return False
    session.extras["lua_tools_checked"] = time.monotonic()
    known = session.extras.get("lua_tools", {}).get("version")
    try:
        version = session.request("info").get("tools_version")
    except (RetroluaError, ValueError):
        return False
    if version == known:
        return False
    session.extras.setdefault("lua_tools", {})["version"] = version
    return known is not None or version not in (None, 0)


def call(session: GameSession, name: str, arguments: Optional[Dict[str, Any]] = None) -> Any:
    """Runs the Lua tool `name` with `arguments`; its value as JSON."""
    if not isinstance(name, str) or not name:
        raise ValueError('"name" must be the name of a Lua tool (lua_tools lists them)')
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise ValueError('"arguments" must be an object of the tool\'s parameters, got %r' % (arguments,))
    return session.request("call_tool", name=name, arguments=arguments).get("result")


def lua_tools(session: GameSession, name: Optional[str] = None,
              arguments: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """Without `name`: the Lua tools; with it: that tool's result."""
    if name is None:
        reply = listed(session)
        return {"tools": [{"name": tool.get("name"), "description": tool.get("description"),
                           "parameters": tool.get("input_schema"), "registered_by": tool.get("script")}
                          for tool in reply.get("tools", [])]}
    return {"result": call(session, name, arguments)}


def memory_map(session: GameSession) -> Dict[str, Any]:
    """The open game's memory: every domain (name, size, where its bytes come from) and the default one."""
    domains = session.lua_value("return memory.domains()") or []
    info = session.info()
    return {"core": info.get("core"), "content": info.get("content"), "default_domain": info.get("default_domain"),
            "domains": domains}


def api_reference(session: GameSession) -> str:
    path = os.path.join(folders(session)["lua"], "API.md")
    with open(path, encoding="utf-8", errors="replace") as file:
        return file.read()


def install(server: Any, run: Callable[..., Any]) -> None:
    """Lists the Lua tools beside the server's own and routes their calls; registers `lua_tools` and the
    resources. `run(session, function, *arguments)` runs blocking work in the session's worker."""
    from mcp.server.lowlevel.server import NotificationOptions

    low = server._mcp_server
    own_list, own_call = server.list_tools, server.call_tool

    def session_of() -> GameSession:
        return server.get_context().request_context.lifespan_context

    async def list_all() -> List[Any]:
        from mcp.types import Tool

        tools = await own_list()
        session = session_of()
        if session.emulator is None and session.attach is None:
            return tools  # no game yet: no Lua tools
        try:
            reply = await run(session, listed)
        except (RetroluaError, ValueError):
            return tools
        names = {tool.name for tool in tools}
        for lua in reply.get("tools", []):
            if lua.get("name") not in names:  # one of the server's own keeps its name; lua_tools still reaches it
                tools.append(Tool(name=lua["name"], description=lua.get("description") or "",
                                  inputSchema=lua.get("input_schema") or {"type": "object", "properties": {}}))
        return tools

    async def call_any(name: str, arguments: Dict[str, Any]) -> Any:
        if server._tool_manager.get_tool(name) is not None:
            return await own_call(name, arguments)
        try:
            result = await run(session_of(), call, name, arguments)
        except (ValueError, TypeError, RetroluaError) as error:
            raise ValueError(str(error)) from None  # the low-level server makes it the tool's error result
        return result if isinstance(result, dict) else {"result": result}

    low.list_tools()(list_all)
    low.call_tool(validate_input=False)(call_any)
    # The client is told that tools come and go (notifications/tools/list_changed).
    plain_options = low.create_initialization_options
    low.create_initialization_options = lambda *arguments, **named: plain_options(
        NotificationOptions(tools_changed=True), *arguments[1:], **named)

    @server.resource("retrolua://api", name="lua-api", mime_type="text/markdown",
                     description="Retrolua's Lua API reference: every module and function run_lua can call")
    async def api() -> str:
        return await run(session_of(), api_reference)

    @server.resource("retrolua://memory-map", name="memory-map", mime_type="application/json",
                     description="The open game's memory domains: names, sizes, byte order, where each comes from "
                     "(the core's regions, its memory map's descriptors, or a bus assembled from them)")
    async def memory() -> Dict[str, Any]:
        return await run(session_of(), memory_map)
