"""The first run's second process (subroc_ext.cli.compiling): its list names
real kernels with argument types numba reads, it compiles them into the
cache, and it is started only when kernels are compiled and always ended."""

import importlib

import pytest
from numba.core import types
from numba.core.registry import CPUDispatcher

from subroc_ext.cli import compiling


@pytest.mark.parametrize("module, function, seconds, signature", compiling.manifest())
def test_every_listed_kernel_is_a_cached_kernel_of_the_package_with_readable_types(
    module, function, seconds, signature
):
    kernel = getattr(importlib.import_module(module), function)
    assert isinstance(kernel, CPUDispatcher) and kernel._cache.__class__.__name__ == "FunctionCache"
    parsed = compiling._types(signature)
    assert all(isinstance(argument, types.Type) for argument in parsed)
    assert str(parsed) == signature  # read back as numba writes it: the signature a call compiles
    assert seconds > 0


def test_the_second_process_takes_the_later_half_of_the_compiling_starting_with_the_leaves():
    entries = compiling.manifest()
    names = [function for _, function, _, _ in entries]
    assert len(set(names)) == len(names)  # no kernel twice
    later = compiling.split(entries)
    assert later[-1][1] == "leaves_of_nodes" and later == entries[-len(later):][::-1]
    front = sum(entry[2] for entry in entries[: -len(later)])
    assert abs(front - sum(entry[2] for entry in later)) < max(entry[2] for entry in entries)


def test_compile_kernels_compiles_each_entry_for_its_types(tmp_path, monkeypatch):
    from subroc_ext.scoring import bitset

    entry = ("subroc_ext.scoring.bitset", "sizes", 0.3, "(Array(uint64, 2, 'C', False, aligned=True),)")
    assert compiling.compile_kernels([entry]) == 1
    assert (types.Array(types.uint64, 2, "C"),) in bitset.sizes.signatures


class FakeProcess:
    started = []

    def __init__(self, command, **options):
        self.command, self.ended = command, False
        FakeProcess.started.append(self)

    def terminate(self):
        self.ended = True

    def wait(self):
        assert self.ended


@pytest.mark.parametrize("needed, cores, load, starts", [
    (True, 2, 0.5, True), (False, 2, 0.5, False), (True, 1, 0.0, False), (True, 2, 1.5, False), (True, 4, 2.5, True),
])  # fmt: skip
def test_the_second_process_runs_only_alongside_a_first_run_with_an_idle_core_and_ends_with_it(
    monkeypatch, needed, cores, load, starts
):
    monkeypatch.setattr(compiling.subprocess, "Popen", FakeProcess)
    monkeypatch.setattr(compiling.os, "sched_getaffinity", lambda pid: set(range(cores)))
    monkeypatch.setattr(compiling.os, "getloadavg", lambda: (load, load, load))
    FakeProcess.started = []
    with pytest.raises(KeyboardInterrupt):
        with compiling.compiling_alongside(needed):
            assert len(FakeProcess.started) == starts
            raise KeyboardInterrupt  # ended however the command ends
    assert len(FakeProcess.started) == starts
    if starts:
        assert FakeProcess.started[0].command[1:] == ["-m", "subroc_ext.cli.compiling"]
        assert FakeProcess.started[0].ended
