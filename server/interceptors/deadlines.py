"""A call's deadline and the server's stop, as a handler sees them: the time a call has
left, whether its deadline passed, and what the client of a call that ended under its
handler heard."""
from __future__ import annotations

import time

import grpc

# grpc's deadline timer may end a call a little before time_remaining() reaches 0 on this
# thread's clock: a call ended this close to its deadline ended by it (not a client's cancel).
_DEADLINE_SLACK = 0.01
# And the client's grpc rounds its timeout up as it sends it (the grpc-timeout header: in 10 ms
# steps from 1 s, 100 ms from 10 s, 1 s from 100 s: by up to 1%), so the server's deadline falls
# up to that much after the client's, and a client that gives up at its own deadline cancels
# the call that much before the server's (a 10 s call: up to 0.1 s).
_DEADLINE_ROUNDING = 0.01


# grpc reports "no deadline" as a huge time_remaining().
_NO_DEADLINE = 1e8


class StopClock:
    """When the server's stop cancels the calls still in flight: its grace over, grpc cancels
    them, and their clients hear UNAVAILABLE ("Cancelling all calls"). The log and the
    status the handler sets say so, rather than taking the cancel for the client's."""

    def __init__(self) -> None:
        self.cancel_at: float | None = None

    def begin(self, grace: float | None) -> None:
        """Called just before grpc's stop, whose timer therefore cancels after ``cancel_at``. An
        earlier cancel stands: a second signal's immediate stop (``stop_now``) may come while the
        first stop still drains, before it has begun its grace."""
        at = time.monotonic() + (grace or 0.0)
        if self.cancel_at is None or at < self.cancel_at:
            self.cancel_at = at

    def cancelled(self, at: float | None = None) -> bool:
        """Had the stop cancelled the calls in flight by ``at`` (time.monotonic(); default now)?"""
        return self.cancel_at is not None and (time.monotonic() if at is None else at) >= self.cancel_at


def ended_status(context: grpc.ServicerContext, budget: float | None, stop: StopClock | None) -> grpc.StatusCode:
    """What the client of a call that ended under its handler heard: the server's stop
    (UNAVAILABLE), its deadline, or its own cancel."""
    if stop is not None and stop.cancelled():
        return grpc.StatusCode.UNAVAILABLE
    return grpc.StatusCode.DEADLINE_EXCEEDED if deadline_passed(context, budget) else grpc.StatusCode.CANCELLED


def call_budget(context: grpc.ServicerContext) -> float | None:
    """The seconds the call has left (None: it has no deadline); at the handler's start,
    its budget."""
    try:
        remaining = context.time_remaining()
    except Exception:  # noqa: BLE001 - no deadline to read
        return None
    return remaining if remaining is not None and remaining < _NO_DEADLINE else None


def deadline_passed(context: grpc.ServicerContext, budget: float | None = None) -> bool:
    """Has the call's deadline passed, or all but a slack of it (False: the call has none)?
    ``budget`` (`call_budget` at the handler's start) widens the slack by what the client's
    rounding of its timeout may have added."""
    remaining = call_budget(context)
    slack = _DEADLINE_SLACK + (budget * _DEADLINE_ROUNDING if budget else 0.0)
    return remaining is not None and remaining <= slack
