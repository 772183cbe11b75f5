"""Ctrl-C while compiled code runs.

A SIGINT that arrives while a numba function hands its results back to
Python (numba unpickles constants there, in Python code) raises the
``KeyboardInterrupt`` inside that step, and numba reports it as a
``SystemError`` ("returned a result with an exception set") caused by the
``KeyboardInterrupt``. The code that handles Ctrl-C (the command line's exit
code 130, the pipelines that keep the searched patterns when the test is
interrupted) catches ``KeyboardInterrupt``; :func:`kernel_interrupts`, around
the loops that call compiled kernels (the search, the null samples), turns
such a ``SystemError`` back into one.
"""

import contextlib

__all__ = ["caused_by_interrupt", "kernel_interrupts"]


def caused_by_interrupt(error):
    """Whether ``error`` is, or was caused by, a ``KeyboardInterrupt`` (its
    ``__cause__`` and ``__context__`` chain)."""
    seen = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, KeyboardInterrupt):
            return True
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return False


@contextlib.contextmanager
def kernel_interrupts():
    """Raise a ``KeyboardInterrupt`` for a ``SystemError`` that a Ctrl-C
    caused inside a compiled kernel's call (also a decorator)."""
    try:
        yield
    except SystemError as error:
        if not caused_by_interrupt(error):
            raise
        raise KeyboardInterrupt from error
