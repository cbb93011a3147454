"""Allow ``python -m wdg``."""

from wdg.cli import main

main()
