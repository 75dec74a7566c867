"""The search core (Cython): alpha-beta, drivers and transposition table.

The kernels' folder for this CPU goes first on the path: see ddcards._kernels."""
from ddcards._kernels import kernel_path

__path__ = kernel_path(__path__)
