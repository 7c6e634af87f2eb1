"""The `retrolua` console command a pip install gives: runs the retrolua binary (the wheel's own first) with
the arguments given, in the environment `import retrolua` launches it with (stable-retro's cores found).
`retrolua mcp …` is Python's own: the MCP server of `retrolua.mcp` (`pip install 'retrolua[mcp]'`)."""

import os
import sys

from ._binary import find_binary, launch_environment
from .errors import RetroluaError


def main() -> None:
    if sys.argv[1:2] == ["mcp"]:
        from .mcp import main as serve_mcp

        serve_mcp(sys.argv[2:])
        return
    try:
        binary = find_binary()
    except RetroluaError as error:
        sys.stderr.write("retrolua: %s\n" % error)
        sys.exit(1)
    # exec, not a child: signals, the terminal and the exit status are the binary's own.
    os.execve(binary, [binary] + sys.argv[1:], launch_environment())


if __name__ == "__main__":
    main()
