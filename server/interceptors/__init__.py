"""Cross-cutting concerns of the service, one interceptor each, a module per concern.

* :class:`LoggingInterceptor` (``call_lines``) writes one line per RPC: method, game(s),
  status, duration, nodes searched; every field escaped and cut (:func:`calllog.log_field`).
* :class:`ErrorInterceptor` (``errors``) turns exceptions escaping a handler into a status
  with google.rpc details (:mod:`ddcards.server.status`); a request that does not even
  decode is INVALID_ARGUMENT (:class:`DecodeInterceptor`), not gRPC's own INTERNAL; a
  client that went away mid-stream is no error (no traceback in the log).
* :class:`TokenInterceptor` (``auth``) asks for ``authorization: Bearer <token>`` when the
  server has a token (health checks are exempt: load balancers probe them).
* :class:`StreamLimitInterceptor` (``streams``) caps the streams of each streaming method
  open at once and closes request streams that stay idle, so idle streams can never take
  the threads that Solve calls and health checks need; :class:`StallWatch` closes a stream
  whose client takes no response.
* :class:`RequestWaitInterceptor` (``waits``) bounds the wait for a unary call's request
  message, so calls whose message never comes cannot take those threads either.
* :class:`AnswerWaitInterceptor` (``waits``) bounds the wait for a unary call's response to
  go out, so calls whose client takes no answer cannot pile up in the server's memory.

``deadlines`` says how a call ended (its deadline, its client, the server's stop), and
``_handlers`` holds what they share: the wrapping of a handler of any kind (unary,
streaming, and grpc's non-blocking callback handlers such as ``Health/Watch``), so that
servicers stay free of this code. The order in ``start_server`` is the request wait
(outermost), the answer wait, logging, errors, token, stream limits, decoding.
"""
from ddcards.server.interceptors.auth import TokenInterceptor
from ddcards.server.interceptors.call_lines import LoggingInterceptor
from ddcards.server.interceptors.deadlines import StopClock, call_budget, deadline_passed, ended_status
from ddcards.server.interceptors.errors import DecodeInterceptor, ErrorInterceptor, Undecodable, abort_for
from ddcards.server.interceptors.streams import IdleLimited, StallWatch, StreamLimitInterceptor
from ddcards.server.interceptors.waits import AnswerWaitInterceptor, RequestWaitInterceptor

__all__ = ["AnswerWaitInterceptor", "DecodeInterceptor", "ErrorInterceptor", "IdleLimited", "LoggingInterceptor",
           "RequestWaitInterceptor", "StallWatch", "StopClock", "StreamLimitInterceptor", "TokenInterceptor",
           "Undecodable", "abort_for", "call_budget", "deadline_passed", "ended_status"]
