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
lost, and the run goes on; so is one raised in the weakref callback with
which an import drops a module's lock ("Exception ignored in: <function
_get_module_lock.<locals>.cb>", a Ctrl-C while a command's modules load).
:func:`raise_interrupt`, the command line's handler of SIGINT and SIGTERM,
delivers such a signal again a moment later instead, once the callback has
returned, so the run ends as interrupted.
"""

import _thread
import contextlib
import sys
import threading

__all__ = ["caused_by_interrupt", "kernel_interrupts", "raise_interrupt"]

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


#: Where an import drops a module's lock: a weakref callback, whose exceptions Python prints as
#: "Exception ignored in: <function _get_module_lock.<locals>.cb ...>" and drops (a Ctrl-C in the
#: first second of a command, while its modules are imported).
_IMPORT_LOCK_CALLBACK = ("<frozen importlib._bootstrap>", "cb")


def _in_import_lock_callback(frame):
    """Whether ``frame`` runs inside importlib's module-lock callback (see :data:`_IMPORT_LOCK_CALLBACK`)."""
    while frame is not None:
        if (frame.f_code.co_filename, frame.f_code.co_name) == _IMPORT_LOCK_CALLBACK:
            return True
        frame = frame.f_back
    return False


def raise_interrupt(signum, frame):
    """A signal handler that raises ``KeyboardInterrupt``, as Python's own
    SIGINT handler does, except inside a callback of the compiler or of an
    import (where the interrupt would be lost, see the module's docstring):
    there it delivers ``signum`` again to the main thread in :data:`_AGAIN`
    seconds, and again, until the code is back outside the callback."""
    if _in_compiler_callback(frame) or _in_import_lock_callback(frame):
        threading.Timer(_AGAIN, _thread.interrupt_main, (signum,)).start()
        return
    raise KeyboardInterrupt
