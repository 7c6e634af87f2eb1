"""`python -m retrolua.mcp`."""

from . import main

main()
