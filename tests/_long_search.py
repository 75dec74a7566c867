"""A search that outlasts any test, for the tests that must act while one is running.

A fresh 36-card Mariasz deal from the first trick takes minutes to hours of search
(benchmarks/RESULTS.md, Mariasz), so a cancel, a timeout, Ctrl-C or a full queue surely lands
in the middle of it, however fast the solver or the machine.  A deal chosen for being slow
today (a full Mariáš or Klaverjas deal, tens of ms) would let such a test pass by finishing
first, or skip, once the solver got faster.  The tests stop it themselves.
"""
from __future__ import annotations

ENDLESS = {"game": "mariasz", "hands": ["AS KS QS JS TS 9S", "AH KH QH JH TH 9H"],
           "stock": "AD KD QD JD TD 9D AC KC QC JC TC 9C 8S 7S 6S 8H 7H 6H 8D 7D 6D 8C 7C 6C"}
