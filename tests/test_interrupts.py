"""Ctrl-C inside a compiled kernel's call: numba reports the interrupt as a
``SystemError`` caused by it (seen with SIGINT during a Census search on
threads); the search and the test raise it as the ``KeyboardInterrupt`` it
is, so the command line exits with 130 and an interrupted test keeps the
searched patterns."""

import subprocess
import sys
from pathlib import Path

import pysubgroup as ps
import pytest
from search_helpers import make_qf, run
from synthetic import scored_frame

import subroc_ext
from subroc_ext.engine import evaluators
from subroc_ext.exceptions import InterruptedTest
from subroc_ext.inference import significance
from subroc_ext.utils.interrupts import caused_by_interrupt, kernel_interrupts


def _numba_error():
    """What numba raises when the interrupt lands while it unpickles a constant."""
    try:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as interrupt:
            raise SystemError("returned a result with an exception set") from interrupt
    except SystemError as error:
        return error


def test_a_system_error_caused_by_an_interrupt_is_one():
    assert caused_by_interrupt(_numba_error())
    assert caused_by_interrupt(KeyboardInterrupt())
    other = SystemError("something else")
    assert not caused_by_interrupt(other)
    with pytest.raises(KeyboardInterrupt) as raised, kernel_interrupts():
        raise _numba_error()
    assert isinstance(raised.value.__cause__, SystemError)
    with pytest.raises(SystemError, match="something else"), kernel_interrupts():
        raise other


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_an_interrupt_inside_the_search_kernels_is_a_keyboard_interrupt(n_jobs, monkeypatch):
    def interrupted(self, *args, **kwargs):
        raise _numba_error()

    monkeypatch.setattr(evaluators.CompiledEvaluator, "expand_nodes", interrupted)
    data = scored_frame(0, 300, attributes=6)
    selectors = ps.create_selectors(data, nbins=4, ignore=["label", "score"])
    with pytest.raises(KeyboardInterrupt):
        run(subroc_ext.FastSearch(n_jobs=n_jobs), make_qf("roc"), data, selectors, depth=3, min_support=5, k=5)


def test_an_interrupt_inside_the_null_sampling_keeps_the_searched_patterns(monkeypatch):
    data = scored_frame(1, 600, attributes=5)
    settings = {"label": "label", "score": "score", "depth": 2, "min_support": 20, "result_set_size": 8,
                "n_samples": 100, "random_state": 0, "progress": False}  # fmt: skip
    tested = subroc_ext.find_subgroups(data, **settings)

    def interrupted(*args, **kwargs):
        raise _numba_error()

    monkeypatch.setattr(significance, "_null_exceedances", interrupted)
    with pytest.raises(InterruptedTest) as raised:
        subroc_ext.find_subgroups(data, **settings)
    untested = raised.value.table
    assert untested["description"].tolist() == tested["description"].tolist()
    assert untested["p_value"].isna().all()


def _pause():
    """A Python call: where the interpreter runs a pending signal handler."""


def test_ctrl_c_while_a_kernel_compiles_is_not_lost(capfd, default_sigint):
    """SIGINT inside a callback through which LLVM calls Python while numba compiles
    (llvmlite's object cache hook, called through ctypes here): it was printed as
    "Exception ignored on calling ctypes callback function ... KeyboardInterrupt" and
    the run went on; it is raised once the callback has returned."""
    import ctypes
    import signal
    import time
    from types import SimpleNamespace

    from subroc_ext.cli.streams import sigterm_as_interrupt

    hooks = pytest.importorskip("llvmlite.binding.executionengine")
    code = ctypes.create_string_buffer(b"object code")
    data = hooks._ObjectCacheData(None, ctypes.addressof(code), len(code))

    def notify(module, buffer):
        signal.raise_signal(signal.SIGINT)  # Ctrl-C while LLVM hands Python the object code
        _pause()

    engine = SimpleNamespace(_object_cache_notify=notify, _find_module_ptr=lambda pointer: "module")
    with sigterm_as_interrupt(SimpleNamespace()), pytest.raises(KeyboardInterrupt):
        hooks._notify_c_hook(engine, ctypes.pointer(data))
        for _ in range(200):  # the interrupt arrives within these 2 s
            time.sleep(0.01)
    assert "Exception ignored" not in capfd.readouterr().err


def test_ctrl_c_that_python_ignores_is_delivered_again(capfd, default_sigint):
    """SIGINT inside a weakref callback, where Python ignores exceptions (issue 59: a
    Ctrl-C 0.3 s after the start landed in the one with which an import drops a
    module's lock, printed "Exception ignored in: <function _get_module_lock.<locals>.cb>"
    and the run went on to exit code 0): delivered again once the callback has returned."""
    import signal
    import time
    import weakref
    from types import SimpleNamespace

    from subroc_ext.cli.streams import sigterm_as_interrupt

    def dropped(reference):
        signal.raise_signal(signal.SIGINT)  # Ctrl-C while Python runs the callback
        _pause()

    class Lock:
        pass

    lock = Lock()
    reference = weakref.ref(lock, dropped)
    with sigterm_as_interrupt(SimpleNamespace()), pytest.raises(KeyboardInterrupt):
        del lock  # the callback runs: Python ignores the KeyboardInterrupt raised inside it
        for _ in range(200):  # the interrupt arrives within these 2 s
            time.sleep(0.01)
    assert reference() is None and "Exception ignored" not in capfd.readouterr().err


ROOT = Path(__file__).resolve().parents[1]

STOP_THEN_PROFILE = """
import sys, time
from concurrent.futures import ThreadPoolExecutor
from subroc_ext.utils.interrupts import StoppableCalls
calls = StoppableCalls()
def forever():
    while True:
        time.sleep(0.01)
with ThreadPoolExecutor(2) as pool:
    running = [pool.submit(calls.call, forever) for _ in range(2)]
    time.sleep(0.1)
    calls.stop(running)
sys.setprofile(lambda *args: None)
def entered():
    return 1
entered()
sys.setprofile(None)
print("done")
"""


def test_stopped_calls_leave_no_interrupt_pending_behind():
    """After StoppableCalls stopped its calls, a profiler set in the same
    interpreter (cProfile, coverage, a debugger) still runs: clearing a sent
    interrupt with ``PyThreadState_SetAsyncExc(ident, NULL)`` had left CPython
    3.11's flag of one pending, and the first function entered under
    ``sys.setprofile`` looped for ever (a fresh interpreter, a time limit)."""
    process = subprocess.run([sys.executable, "-c", STOP_THEN_PROFILE], capture_output=True, text=True, timeout=60,
                             cwd=ROOT)  # fmt: skip
    assert process.stdout.strip() == "done", process.stderr
