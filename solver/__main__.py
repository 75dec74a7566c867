import sys

from ddcards.cli import main

sys.exit(main())
