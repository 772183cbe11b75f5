"""Memory the process has freed, given back to the system between the steps of a run."""

import ctypes
import ctypes.util
import functools

__all__ = ["release_free_memory"]


@functools.cache
def _malloc_trim():
    """glibc's ``malloc_trim``, or None where the C library is another."""
    name = ctypes.util.find_library("c")
    try:
        return ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):  # not glibc (musl, macOS, Windows)
        return None


def release_free_memory():
    """Give the free pages of the C heap back to the system (glibc's
    ``malloc_trim(0)``; nothing where the C library has no such call).

    The arrays of a run's steps (masks, sorts and ranks of a million rows)
    are freed into glibc's heap, which keeps most of their pages, so the
    resident size grows to what the run ever held at once plus what its
    heap kept: a 2 M-row run's peak was 1,080 MiB, 950 MiB with this between
    its steps (benchmarks/RESULTS.md). It costs a few milliseconds.

    Examples
    --------
    >>> release_free_memory()
    """
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
