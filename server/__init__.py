"""ddcards gRPC service (package ddcards.v1): server, conversions and a Python client.

* ``python -m server`` / ``server.main.main(argv)`` start the server;
  ``server.main.start_server(...)`` starts one in-process (tests, embedding).
* ``server.client.Client`` is a small client for other Python programs.
* ``server.convert`` holds the pure message <-> document conversions.
"""
