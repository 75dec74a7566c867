"""Independent plain-Python reference implementations used to check the fast solver.

Written straight from RULES.md; nothing here imports the solver's game code.
"""
