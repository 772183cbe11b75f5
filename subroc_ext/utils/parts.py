"""One call's compiled work cut in parts, run on every core.

Kernels that release the GIL (``nogil=True``) and can compute any run of
their output on its own (counter-based or advanced random streams) give the
same result cut in any number of parts. :func:`run_parts` runs the parts on
one pool of threads kept for the whole process: a test calls a kernel
thousands of times, and starting threads for each call cost more than some
of the calls (5 s of a 2 M-row run, benchmarks/RESULTS.md). A part must not
call :func:`run_parts` itself (the pool's threads would wait for each other).
"""

import os
import threading
from concurrent.futures import ThreadPoolExecutor

__all__ = ["cores", "run_parts"]

_POOL = []
_LOCK = threading.Lock()


def cores():
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _pool():
    with _LOCK:
        if not _POOL:
            _POOL.append(ThreadPoolExecutor(cores(), thread_name_prefix="subroc-ext-parts"))
        return _POOL[0]


def run_parts(part, parts):
    """``part(0)``, ..., ``part(parts - 1)``, on the shared pool's threads
    when there is more than one (in this thread otherwise); returns when all
    are done, raising the first part's error.

    Examples
    --------
    >>> out = [0] * 4
    >>> def square(k):
    ...     out[k] = k * k
    >>> run_parts(square, 4)
    >>> out
    [0, 1, 4, 9]
    """
    if parts <= 1:
        if parts == 1:
            part(0)
        return
    for future in [_pool().submit(part, number) for number in range(parts)]:
        future.result()
