"""The command line's exit statuses (see ddcards.cli)."""

EXIT_OK, EXIT_ABORTED, EXIT_BAD_INPUT, EXIT_INTERNAL = 0, 1, 2, 3
