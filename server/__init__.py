"""ddcards gRPC service (package ddcards.v1): server, conversions and a Python client.

* ``python -m ddcards.server`` / ``ddcards.server.main.main(argv)`` start the server;
  ``ddcards.server.main.start_server(...)`` starts one in-process (tests, embedding).
* ``ddcards.client.Client`` is a small client for other Python programs.
* ``ddcards.server.convert`` holds the pure message <-> document conversions;
  ``ddcards.server.status`` the error model (exceptions -> google.rpc.Status details);
  ``ddcards.server.interceptors`` the call's cross-cutting concerns (logging, errors, the
  bearer token, stream limits, bounded waits on the client), a module each;
  ``ddcards.server.reflection`` reflection with the .proto's comments.
"""
