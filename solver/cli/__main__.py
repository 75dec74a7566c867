"""python -m ddcards.cli: the command line, as python -m ddcards."""
import sys

from ddcards.cli import main

sys.exit(main())
