"""``python -m server``: run the ddcards gRPC server (see server/main.py)."""
import sys

from server.main import main

sys.exit(main())
