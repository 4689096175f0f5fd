"""`python -m crag`: the same as the `crag` command."""

from crag.cli import main

main()
