"""The first run's kernels compiled on two cores: a second process compiles
them into the kernel cache while the command runs.

numba compiles a kernel when it is first called, one after the other, inside
the one process of the command (about 45 s of CPU for the demo's, before
its own few seconds of work), and compiles with a lock held, so threads
cannot share it. :func:`compiling_alongside` starts one more process
(``python -m subroc_ext.cli.compiling``) that compiles kernels of
:data:`MANIFEST`, the ones a search and its test call from Python, into the
user's kernel cache (:mod:`subroc_ext.utils.kernel_cache`) while the command
runs: the list's later part (:func:`split`: the command compiles the front
in about the time the other process compiles the rest), from its end, so
that the two meet late, after the command has compiled the kernels both
parts call (a kernel is compiled into each caller, and first on its own,
cached). A kernel the command reaches that the other process
has saved is loaded from the cache instead of compiled (numba looks there
first), so each kernel is compiled about once. The kernels and their results
are those numba compiles anyway: only who compiles them first changes.

:data:`MANIFEST` lists one kernel a line, ``module function seconds
(argument types)``, as numba names the types, in the order a demo calls them
first, with the CPU seconds each took to compile there;
``benchmarks/bench_compile.py --write-manifest`` writes it from a demo run.
"""

import contextlib
import os
import subprocess
import sys
from pathlib import Path

__all__ = ["MANIFEST", "manifest", "split", "compiling_alongside", "compile_kernels"]

#: The kernels a search and its test call from Python, in the order the demo first calls them.
MANIFEST = Path(__file__).resolve().parents[1] / "data" / "kernels.txt"


def manifest(path=MANIFEST):
    """The entries of ``path``: ``(module, function, seconds, signature)``.

    Examples
    --------
    >>> module, function, seconds, signature = manifest()[0]
    >>> module, function, seconds > 0
    ('subroc_ext.metrics.expected_auc', 'expected_auc_of_sorted', True)
    """
    entries = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            module, function, seconds, signature = line.split(" ", 3)
            entries.append((module, function, float(seconds), signature))
    return entries


def split(entries):
    """The entries the second process compiles: the end of ``entries``, last first.

    The command compiles the front of the list itself, the second process
    the rest (from where both parts take about equally long, by the seconds
    listed), from the kernel the command needs last.

    Examples
    --------
    >>> entries = [("m", name, seconds, "()") for name, seconds in zip("abcde", [1, 9, 2, 8, 1])]
    >>> [function for _, function, _, _ in split(entries)]
    ['e', 'd', 'c']
    """
    seconds = [entry[2] for entry in entries]
    total, front = sum(seconds), 0.0
    for cut, cost in enumerate(seconds):
        if max(front + cost, total - front - cost) > max(front, total - front):
            break
        front += cost
    else:
        cut = len(entries)
    return entries[cut:][::-1]


def _types(signature):
    """The numba argument types named by ``signature`` (as numba prints a tuple of them)."""
    from numba.core import types

    names = {name: getattr(types, name) for name in dir(types) if not name.startswith("_")}
    names["bool"] = types.boolean
    found = eval(signature, {"__builtins__": {}}, names)  # our own file's numba type names, nothing else
    return found if isinstance(found, tuple) else (found,)


def compile_kernels(entries):
    """Compile (or load from the kernel cache) each of ``entries`` in turn.

    Parameters
    ----------
    entries : list of tuple
        ``(module, function, seconds, signature)`` as :func:`manifest` gives them.

    Returns
    -------
    int
        The number of kernels now compiled for their signature.
    """
    import importlib

    done = 0
    for module, function, _, signature in entries:
        kernel = getattr(importlib.import_module(module), function)
        kernel.compile(_types(signature))
        done += 1
    return done


def _spare_core():
    """Whether a core is idle: more cores this process may run on than the
    system's load (the last minute's average of runnable processes)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    return cores >= 2 and load <= cores - 1


@contextlib.contextmanager
def compiling_alongside(needed):
    """Compile :data:`MANIFEST`'s kernels in a second process while the body runs.

    Parameters
    ----------
    needed : bool
        Whether the body compiles kernels at all (a search or a test, with
        no compiled kernels cached yet); with False, or without an idle core
        (one core, or the others busy: two processes would only take turns,
        each compiling what the other may be compiling too), nothing is
        started.

    The process is ended when the body ends (its kernels saved so far stay
    in the cache: numba writes each file whole before naming it).
    """
    if not needed or not _spare_core():
        yield
        return
    worker = subprocess.Popen(
        [sys.executable, "-m", "subroc_ext.cli.compiling"], stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        yield
    finally:
        worker.terminate()
        worker.wait()


if __name__ == "__main__":
    compile_kernels(split(manifest()))
