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

While numba compiles a kernel, LLVM calls Python through ctypes callbacks
(llvmlite's object cache hooks); a ``KeyboardInterrupt`` raised inside one
is printed as "Exception ignored on calling ctypes callback function" and
lost, and the run goes on. :func:`raise_interrupt`, the command line's
handler of SIGINT and SIGTERM, delivers such a signal again a moment later
instead, once the callback has returned, so the run ends as interrupted.

Python drops a ``KeyboardInterrupt`` raised anywhere else it ignores
exceptions too ("Exception ignored in: ...": a weakref callback, as the one
with which an import drops a module's lock, a ``__del__``, a module being
collected), which a Ctrl-C in the first second of a command, while its
modules load, hits. :func:`ignored_interrupts_again`, a ``sys.unraisablehook``,
delivers such an interrupt again a moment later.
"""

import _thread
import contextlib
import signal
import sys
import threading

__all__ = ["caused_by_interrupt", "ignored_interrupts_again", "kernel_interrupts", "raise_interrupt"]

#: Seconds after which a signal that arrived inside a compiler callback is delivered again.
_AGAIN = 0.01


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


def _in_compiler_callback(frame):
    """Whether ``frame`` runs inside a ctypes callback through which LLVM,
    compiling a kernel, calls Python (llvmlite's object cache hooks)."""
    engine = sys.modules.get("llvmlite.binding.executionengine")
    if engine is None:  # nothing compiles without it
        return False
    hooks = {engine.ExecutionEngine._raw_object_cache_notify.__code__,
             engine.ExecutionEngine._raw_object_cache_getbuffer.__code__}  # fmt: skip
    while frame is not None:
        if frame.f_code in hooks:
            return True
        frame = frame.f_back
    return False


def raise_interrupt(signum, frame):
    """A signal handler that raises ``KeyboardInterrupt``, as Python's own
    SIGINT handler does, except inside a callback of the compiler (where the
    interrupt would be lost, see the module's docstring): there it delivers
    ``signum`` again to the main thread in :data:`_AGAIN` seconds, and again,
    until the compiled code is back in Python."""
    if _in_compiler_callback(frame):
        threading.Timer(_AGAIN, _thread.interrupt_main, (signum,)).start()
        return
    raise KeyboardInterrupt


def ignored_interrupts_again(previous):
    """A ``sys.unraisablehook`` that delivers a ``KeyboardInterrupt`` Python ignored
    (see the module's docstring) again to the main thread in :data:`_AGAIN`
    seconds, as SIGINT (a SIGTERM has said so already: the command line's
    handler set ``terminated``), and hands anything else to ``previous``."""

    def hook(unraisable):
        if unraisable.exc_type is not None and issubclass(unraisable.exc_type, KeyboardInterrupt):
            threading.Timer(_AGAIN, _thread.interrupt_main, (signal.SIGINT,)).start()
        else:
            previous(unraisable)

    return hook

