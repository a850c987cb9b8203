"""`python -m rtlab.cli` = the `rtlab` command."""

from rtlab.cli import main

main()
