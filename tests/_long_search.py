"""A search that outlasts any test, for the tests that must act while one is running.

A fresh 36-card Mariasz deal from the first trick takes minutes to hours of search
(benchmarks/RESULTS.md, Mariasz), so a cancel, a timeout, Ctrl-C or a full queue surely lands
in the middle of it, however fast the solver or the machine.  A deal chosen for being slow
today (a full Mariáš or Klaverjas deal, tens of ms) would let such a test pass by finishing
first, or skip, once the solver got faster.  The tests stop it themselves.
"""
from __future__ import annotations

# A random deal (random.Random(7) shuffling the 36 cards): over 40 s for its value alone, 179 M
# nodes not enough (2026-12-03).  The deal this replaced (spades against hearts, the stock in
# order) took only 8-9 s.
ENDLESS = {"game": "mariasz", "hands": ["JC KD 7H QS 8C 6C", "AS QD QH 9H 7C JD"],
           "stock": "TC KH 6S 7D 9C TS 9D AC JH 8S KC KS TH 7S 6D 8H QC AH AD JS 9S TD 6H 8D"}
