"""``python -m ddcards.server``: run the ddcards gRPC server (see server/main.py)."""
import sys

from ddcards.server.main import main

sys.exit(main())
