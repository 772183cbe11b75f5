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

Ctrl-C reaches the main thread only: work running in the threads of a pool
runs on to its end (``ThreadPoolExecutor.shutdown(cancel_futures=True)``
cancels only the work not started), and the interpreter waits for those
threads before it exits. :class:`StoppableCalls` runs work in threads so
that the thread that started it can end it: a ``KeyboardInterrupt`` raised
inside each call still running (CPython's ``PyThreadState_SetAsyncExc``).
"""

import _thread
import contextlib
import ctypes
import signal
import sys
import threading
import time
from concurrent import futures as _futures

__all__ = ["StoppableCalls", "caused_by_interrupt", "ignored_interrupts_again", "kernel_interrupts",
           "raise_interrupt"]  # fmt: skip

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



def _raise_in(ident, exception):
    """Have the thread ``ident`` raise ``exception`` at its next step in Python.

    Never called to forget one sent (``PyThreadState_SetAsyncExc(ident, NULL)``):
    on CPython 3.11 that leaves the interpreter's flag of a pending
    asynchronous exception set with none to raise, and a profiler or tracer
    set afterwards (``sys.setprofile``: cProfile, coverage, a debugger) then
    loops for ever on the first function it enters."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), ctypes.py_object(exception))


class StoppableCalls:
    """Calls run in worker threads that the thread which started them can end.

    :meth:`call` runs a function (submit ``calls.call, function, *args`` to
    a pool); :meth:`stop` raises a ``KeyboardInterrupt`` inside every call
    still running, at its next step in Python (a compiled kernel's call runs
    to its end first, as it does for Ctrl-C in the main thread), and a call
    started after it raises one at once; it returns once the calls' futures
    are done, so no thread goes on working. The interrupt is sent again
    every ``again`` seconds to a call that has not ended (Python drops one
    raised where it ignores exceptions, e.g. a weakref callback), and one more
    Ctrl-C while it waits is ignored: the calls are being stopped already.

    Examples
    --------
    >>> from concurrent.futures import ThreadPoolExecutor
    >>> calls = StoppableCalls()
    >>> def forever():
    ...     while True:
    ...         time.sleep(0.01)
    >>> with ThreadPoolExecutor(2) as pool:
    ...     running = [pool.submit(calls.call, forever) for _ in range(2)]
    ...     calls.stop(running)
    ...     [type(future.exception()).__name__ for future in running]
    ['KeyboardInterrupt', 'KeyboardInterrupt']
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._running = set()
        self._stopped = False

    def call(self, function, *args, **kwargs):
        """``function(*args, **kwargs)`` in this (worker) thread, until :meth:`stop`."""
        ident = threading.get_ident()
        try:
            with self._lock:  # the interrupt is sent only to a call registered, and under this lock
                if self._stopped:
                    raise KeyboardInterrupt
                self._running.add(ident)
            return function(*args, **kwargs)
        finally:  # one sent while it was ending is raised here, at the lock's acquiring: still in this call
            with self._lock:
                self._running.discard(ident)

    def stop(self, futures, *, poll=0.02, again=1.0):
        """End every call (a ``KeyboardInterrupt`` inside each) and wait until ``futures`` are done.

        Parameters
        ----------
        futures : iterable of concurrent.futures.Future
            The futures of the calls submitted (those not started are cancelled).
        poll, again : float
            Seconds between two looks at the futures, and between two interrupts sent to a call.
        """
        pending = [future for future in futures if not future.cancel()]
        with self._lock:
            self._stopped = True
        sent = float("-inf")
        while pending:
            try:
                if time.monotonic() - sent >= again:
                    sent = time.monotonic()
                    with self._lock:
                        for ident in self._running:
                            _raise_in(ident, KeyboardInterrupt)
                _, pending = _futures.wait(pending, timeout=poll)
            except KeyboardInterrupt:  # Ctrl-C again: the calls are being stopped
                continue
