"""`python -m crag.cli`: the same as the `crag` command."""

from crag.cli import main

main()
