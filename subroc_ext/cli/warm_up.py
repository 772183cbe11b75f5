"""The first run's kernels compiled on two cores.

A fresh install's first ``demo`` or ``run`` compiles about twenty kernels
(numba; about 30 s of CPU), one after the other on one core. When the kernel
cache is empty (:func:`~subroc_ext.utils.kernel_cache.kernels_cached`) and
numba will keep the kernels there
(:func:`~subroc_ext.utils.kernel_cache.kernel_cache_writable`),
:func:`warming_up` starts a second process at once, before the command's
imports, and :func:`kernels_compiled`, called by the command just before the
search, compiles in this process too. Both take the kernels of
:data:`KERNELS` in turn, the largest first, each claimed by the process that
creates its file in a folder both share, and compile them into the cache.
Each kernel, and each kernel they call, is compiled by one process at a time
(a lock file per kernel around numba's compile): the other waits and loads
it from the cache, so the callees the search's kernels share are compiled
once, and the run, which starts once this process has compiled its share,
waits only for a kernel it needs while the other process is compiling it.

Nothing depends on the second process: a kernel it did not compile (it
failed, or the run's data give other argument types, or another measure
needs other kernels) is compiled by the run itself, as it would be without
it, and raises any error there. It prints nothing, does not receive the
terminal's Ctrl-C (its own session: the command ends it), and ends when the
command's process does (its stdin closes). With ``NUMBA_CACHE_DIR`` set, or
a cache that cannot be written, everything is compiled in this process, as
before.

The command line only: a library call (``find_subgroups`` in a notebook)
starts no process behind its caller's back; ``SUBROC_EXT_WARM_UP=0`` turns
it off (:data:`SWITCH`).
``tests/test_warm_up.py`` runs the warm-up and then the demo, which must
compile nothing more, so :data:`KERNELS` cannot drift from the code.
"""

import contextlib
import importlib
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from ..utils.kernel_cache import kernel_cache_writable, kernels_cached

__all__ = ["KERNELS", "warming_up", "kernels_compiled", "compile_claimed"]

#: The kernels ``demo`` and ``run`` compile (ROC AUC, the defaults), as
#: (module, kernel, argument types), the longest to compile first (CPU s:
#: ``benchmarks/bench_compile.py``). The kernels compiled at import (the
#: element-wise functions, whose types are in their code) are not here.
KERNELS = (
    ("engine.search_kernels", "leaves_of_nodes",  # 9.6 s
     "(uint64[::1], int64[::1], float64[::1], float64[::1], float64[::1], float64[::1], float64[::1], int64, "
     "float64[::1], float64, int64[::1], uint64[:, ::1], uint64[::1], uint64[::1], int64[:, ::1], int32[::1], "
     "int32[::1], int64, none, none, none, none, int64, int64, int64, float64, boolean, boolean, float64, "
     "float64, boolean, boolean)"),
    ("engine.search_kernels", "scored_children",  # 10.8 s
     "(uint64[::1], uint64[:, ::1], int64[::1], uint64[::1], uint64[::1], int64[:, ::1], int32[::1], int32[::1], "
     "int64, none, none, none, none, none, int64, int64, int64, float64, float64, float64, boolean, boolean, "
     "float64, float64, boolean, boolean, boolean, float64, boolean, boolean)"),
    ("objective.statistics", "cover_statistics",  # 3.0 s
     "(uint64[::1], uint64[::1], uint64[::1], int32[::1], int32[::1], int64, none, none, none, int64, int64, "
     "float64, boolean, boolean, float64, float64, boolean, boolean, int64, boolean)"),
    ("scoring.rank_null", "rank_null_draws",  # 2.2 s
     "(int64, int64, int64[::1], int64[::1], int64, int64, int64[::1], int64[::1], int64[::1], boolean[:, ::1])"),
    ("engine.search_kernels", "aware_children",  # 1.4 s
     "(int64[::1], float64[::1], float64[::1], float64[::1], float64[::1], float64, float64[:, ::1], float64, "
     "boolean, int64, int64)"),
    ("scoring.cover_kernels", "count_children",  # 1.0 s
     "(uint64[::1], uint64[:, ::1], int64[::1], uint64[::1], uint64[::1], int64[::1], int64[::1])"),
    ("scoring.bitset", "intersection_sizes", "(uint64[:, ::1], uint64[:, ::1])"),
    ("metrics.diagnostics", "_twice_pairs_below", "(float64[::1], float64[::1], float64[::1], int64[::1])"),
    ("objective.generalization", "generalization_aware_arrays",
     "(float64[::1], float64[::1], float64[::1], float64[::1], float64[::1], float64[:, ::1])"),
    ("scoring.cover_kernels", "rank_measures", "(int64, int64[::1], int64, int64)"),
    ("scoring.bitset", "sizes", "(uint64[:, ::1],)"),
    ("metrics.cross_auc", "_twice_wins", "(boolean[::1], int64[::1], boolean[::1], int64[::1], int64[::1])"),
    ("metrics.expected_auc", "expected_auc_of_sorted", "(float64[::1],)"),
    ("metrics.label_draws", "_drawn_sums", "(uint64[::1], uint64[::1], float64[::1], int64[::1], float64[::1])"),
    ("metrics.platt", "sigmoid_sums", "(float64[::1], float64, float64)"),
)  # fmt: skip

#: The commands whose kernels are :data:`KERNELS`.
COMMANDS = ("demo", "run")

#: The environment variable that turns the warm-up off when "0" (the test
#: suite's processes do: they compile beside each other already).
SWITCH = "SUBROC_EXT_WARM_UP"

class WarmUp:
    """The second process and the folder of claims and locks it shares with this one."""

    def __init__(self):
        self.claims = tempfile.mkdtemp(prefix="subroc-ext-warm-up-")
        self.locking = contextlib.ExitStack()
        self.process = None

    def start(self):
        """Start the second process. Its locks first: until :meth:`close`, a kernel
        this process needs while the other compiles it (those compiled at import
        too) is waited for and loaded, not compiled twice; and a Ctrl-C before
        the process starts leaves none behind."""
        self.locking.enter_context(_compiled_once(self.claims))
        code = ("import sys; sys.path[:] = sys.argv[2:]; from subroc_ext.cli.warm_up import compile_claimed; "
                "compile_claimed(sys.argv[1], until_eof=True)")  # fmt: skip
        session = {"start_new_session": True} if os.name == "posix" else {
            "creationflags": subprocess.CREATE_NEW_PROCESS_GROUP}  # fmt: skip
        with contextlib.suppress(OSError):  # no process to be had: this one compiles alone
            self.process = subprocess.Popen(
                [sys.executable, "-c", code, self.claims, *sys.path], stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **session,
            )  # fmt: skip

    def finish(self):
        """Compile the kernels the second process has not claimed (the run need
        not wait for the other to finish its share)."""
        _compile_claimed(self.claims)

    def close(self):
        """End the second process (if still running) and remove the claims."""
        self.locking.close()
        if self.process is not None:
            if self.process.poll() is None:
                self.process.kill()
            self.process.stdin.close()
            self.process.wait()
        shutil.rmtree(self.claims, ignore_errors=True)


@contextlib.contextmanager
def warming_up(args):
    """The block with the kernels of ``args``' command being compiled in a second
    process, when they are not cached yet (``args.warm_up``: a :class:`WarmUp`,
    else None); that process ended and its claims removed when the block ends."""
    args.warm_up = None
    try:
        wanted = args.command in COMMANDS and getattr(args, "score_columns", None) is None
        if (wanted and sys.executable and os.environ.get(SWITCH, "1") != "0" and not kernels_cached()
                and kernel_cache_writable()):  # fmt: skip
            args.warm_up = WarmUp()
            args.warm_up.start()  # a Ctrl-C from here on: close() ends whatever was started
        yield
    finally:
        if args.warm_up is not None:
            args.warm_up.close()


def kernels_compiled(args):
    """Compile the kernels of the warm-up that the second process has not taken
    (nothing when :func:`warming_up` started none); those it is still compiling
    are waited for when the run needs them."""
    if getattr(args, "warm_up", None) is not None:
        args.warm_up.finish()


def compile_claimed(claims, until_eof=False):
    """Compile each kernel of :data:`KERNELS` that no other process has claimed
    in the folder ``claims``, claiming it first.

    Parameters
    ----------
    claims : str or pathlib.Path
        The folder of claims: a kernel is claimed by the process that creates
        the file named by its position in :data:`KERNELS`.
    until_eof : bool, default=False
        End the process when its stdin closes (the second process: its command
        has ended).
    """
    if until_eof:
        threading.Thread(target=_exit_at_eof, daemon=True).start()
    with _compiled_once(claims):
        _compile_claimed(claims)


def _compile_claimed(claims):
    for number, (module, name, signature) in enumerate(KERNELS):
        try:
            (Path(claims) / str(number)).touch(exist_ok=False)
        except FileExistsError:  # the other process's
            continue
        except OSError:  # the claims are gone: the command has ended
            return
        # A kernel that fails here is compiled by the run, which raises the error there.
        with contextlib.suppress(Exception):
            from numba.core.sigutils import normalize_signature

            kernel = getattr(importlib.import_module(f"subroc_ext.{module}"), name)
            kernel.compile(normalize_signature(signature)[0])  # types, as a call gives: the cache's key


@contextlib.contextmanager
def _compiled_once(claims):
    """The block with each cached kernel compiled by one process at a time: numba's
    ``Dispatcher.compile`` waits while another process holds the kernel's lock
    (a file in ``claims``, ``flock``), then loads what that one compiled from
    the cache. So the kernels that several of :data:`KERNELS` call (counts,
    bounds, measures) are compiled once, not once per process. Locks are taken
    caller before callee, which never call each other in a circle, so no two
    processes wait for each other. Without ``fcntl`` (Windows) a kernel may be
    compiled in both processes."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    from numba.core.caching import NullCache
    from numba.core.compiler_lock import global_compiler_lock
    from numba.core.dispatcher import Dispatcher

    compile_, held = Dispatcher.compile, set()

    def compile_once(dispatcher, signature):
        function = dispatcher.py_func
        name = f"{function.__module__}.{function.__qualname__}"
        # nothing to share (no cache, or a numba that keeps it elsewhere), or ours already
        if isinstance(getattr(dispatcher, "_cache", None), (NullCache, type(None))) or name in held:
            return compile_(dispatcher, signature)
        # inside numba's lock: one thread of this process compiles at a time, so
        # two threads never wait for each other's file lock
        with global_compiler_lock, contextlib.ExitStack() as stack:
            with contextlib.suppress(OSError):  # no lock to be had (the folder gone): compile all the same
                fcntl.flock(stack.enter_context(open(Path(claims) / f"{name}.lock", "a")), fcntl.LOCK_EX)
            held.add(name)
            try:
                return compile_(dispatcher, signature)
            finally:
                held.discard(name)

    Dispatcher.compile = compile_once
    try:
        yield
    finally:
        Dispatcher.compile = compile_


def _exit_at_eof():
    """End the process once its stdin is closed (read unbuffered: a buffered
    stream's lock held by this thread would abort the interpreter's exit)."""
    while os.read(0, 512):
        pass
    os._exit(0)
