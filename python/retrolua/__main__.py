"""`python -m retrolua ARGS…`: the same as the `retrolua` console command."""

from ._cli import main

main()
