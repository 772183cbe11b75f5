"""The first run's kernels compiled in two processes (:mod:`subroc_ext.cli.warm_up`).

No process on a warm cache, with ``NUMBA_CACHE_DIR`` or an unwritable cache;
the kernels shared out by claims; a second process that fails or cannot
start loses nothing and says nothing. Extended: after the warm-up the demo
compiles nothing more and calls every kernel of ``KERNELS`` (so the list
cannot drift from the code); Ctrl-C during the warm-up ends the command as
an interrupted one and the second process with it.
"""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from numba.core.sigutils import normalize_signature

from subroc_ext.cli import warm_up
from subroc_ext.cli.arguments import build_parser
from subroc_ext.utils import kernel_cache

#: Two small kernels, in place of the list of the demo.
SMALL = (("scoring.bitset", "sizes", "(uint64[:, ::1],)"),
         ("scoring.bitset", "intersection_sizes", "(uint64[:, ::1], uint64[:, ::1])"))  # fmt: skip


def demo_args(tmp_path):
    return build_parser().parse_args(["demo", "--out", str(tmp_path / "out"), "--quiet"])


def compiled(entry):
    from importlib import import_module

    module, name, signature = entry
    kernel = getattr(import_module(f"subroc_ext.{module}"), name)
    return normalize_signature(signature)[0] in kernel.overloads


@pytest.fixture
def cold(monkeypatch, tmp_path):
    """A cold, writable kernel cache as far as the warm-up can tell; the small kernels."""
    monkeypatch.setattr(warm_up, "kernels_cached", lambda: False)
    monkeypatch.setattr(warm_up, "KERNELS", SMALL)
    monkeypatch.setenv("TMPDIR", str(tmp_path))  # the claims' folder
    monkeypatch.setattr("tempfile.tempdir", None)
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv(warm_up.SWITCH, "1")  # off in the rest of the suite (conftest.py)


def no_process(*args, **kwargs):
    raise AssertionError("a process was started")


def test_no_process_when_the_kernels_are_cached_or_the_cache_is_not_ours(monkeypatch, tmp_path, cold):
    monkeypatch.setattr(subprocess, "Popen", no_process)
    args = demo_args(tmp_path)
    for cached, numba_cache in [(True, None), (False, str(tmp_path))]:
        monkeypatch.setattr(warm_up, "kernels_cached", lambda: cached)
        if numba_cache:
            monkeypatch.setenv("NUMBA_CACHE_DIR", numba_cache)
        with warm_up.warming_up(args):
            assert args.warm_up is None
            warm_up.kernels_compiled(args)  # nothing to do
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    for argv in (["run", "data.csv", "--label", "y", "--score-columns", "a,b,c"],
                 ["compare", "data.csv", "--label", "y", "--score", "a", "--baseline", "b"]):  # fmt: skip
        other = build_parser().parse_args(argv)
        with warm_up.warming_up(other):
            assert other.warm_up is None  # their kernels are not the demo's
    monkeypatch.setattr(warm_up, "kernels_cached", lambda: False)
    monkeypatch.setenv(warm_up.SWITCH, "0")  # turned off
    with warm_up.warming_up(args):
        assert args.warm_up is None


def test_the_kernel_cache_is_writable_unless_numba_has_its_own_or_it_cannot_be_made(monkeypatch, tmp_path):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("SUBROC_EXT_CACHE", str(tmp_path / "cache"))
    assert kernel_cache.kernel_cache_writable()
    assert kernel_cache.kernel_cache_dir().is_dir()
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("SUBROC_EXT_CACHE", str(tmp_path / "file"))  # no folder below a file
    assert not kernel_cache.kernel_cache_writable()
    monkeypatch.setenv("SUBROC_EXT_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    assert not kernel_cache.kernel_cache_writable()


def test_each_kernel_is_compiled_by_the_process_that_claims_it(monkeypatch, tmp_path):
    from numba.core.dispatcher import Dispatcher

    compile_ = Dispatcher.compile
    monkeypatch.setattr(warm_up, "KERNELS", (("scoring.bitset", "no_such_kernel", "(int64,)"), *SMALL))
    (tmp_path / "1").touch()  # sizes: the other process's
    warm_up.compile_claimed(tmp_path)  # the missing kernel: left to the run, no error
    assert sorted(path.name for path in tmp_path.iterdir() if path.suffix != ".lock") == ["0", "1", "2"]
    assert compiled(SMALL[1])
    # compiled under its lock, which the other process waits for; numba's compile restored after
    assert (tmp_path / "subroc_ext.scoring.bitset.intersection_sizes.lock").exists()
    assert Dispatcher.compile is compile_


@pytest.mark.parametrize("executable", ["/bin/false", "/no/such/python"])
def test_a_second_process_that_fails_loses_nothing_and_says_nothing(monkeypatch, tmp_path, capsys, cold,
                                                                    executable):
    if executable == "/bin/false" and not Path(executable).exists():
        pytest.skip("no /bin/false")
    monkeypatch.setattr(sys, "executable", executable)
    args = demo_args(tmp_path)
    with warm_up.warming_up(args):
        warm = args.warm_up
        assert warm is not None and Path(warm.claims).is_dir()
        warm_up.kernels_compiled(args)
    assert all(compiled(entry) for entry in SMALL)  # compiled here
    assert not Path(warm.claims).exists()
    assert warm.process is None or warm.process.returncode in (1, -9)  # failed, or (not yet) killed at the end
    assert capsys.readouterr() == ("", "")


#: The demo after a warm-up whose second process compiled every kernel:
#: the kernels compiled after it, and those of KERNELS the demo did not call.
AFTER_THE_WARM_UP = """
import json, sys
from importlib import import_module
from numba.core import event
from subroc_ext.cli import main, warm_up

compiled, warm = [], []

def finish(self):  # the second process compiles all; this one waits
    self.process.wait()
    warm.append(self.process.returncode)

warm_up.WarmUp.finish = finish

class Recorder(event.Listener):
    def on_start(self, ev):
        pass

    def on_end(self, ev):
        function = ev.data["dispatcher"].py_func
        if warm:
            compiled.append(f"{function.__module__}.{function.__qualname__}{ev.data['args']}")

event.register("numba:compile", Recorder())
code = main(["demo", "--out", sys.argv[1], "--quiet"])
uncalled = [name for module, name, _ in warm_up.KERNELS
            if not getattr(import_module(f"subroc_ext.{module}"), name).stats.cache_hits]
print(json.dumps({"code": code, "warm": warm, "compiled": compiled, "uncalled": uncalled}))
"""


@pytest.mark.extended  # compiles every kernel of the demo in a fresh cache (about 30 s of CPU)
def test_after_the_warm_up_the_demo_compiles_nothing_and_calls_every_kernel(tmp_path):
    environment = {**os.environ, "SUBROC_EXT_CACHE": str(tmp_path / "cache"), warm_up.SWITCH: "1"}
    environment.pop("NUMBA_CACHE_DIR", None)
    process = subprocess.run([sys.executable, "-c", textwrap.dedent(AFTER_THE_WARM_UP), str(tmp_path / "out")],
                             capture_output=True, text=True, env=environment, check=True)  # fmt: skip
    result = json.loads(process.stdout.splitlines()[-1])
    assert result == {"code": 0, "warm": [0], "compiled": [], "uncalled": []}


def children(pid):
    """The processes whose parent is ``pid`` (Linux's /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # ended meanwhile
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


@pytest.mark.extended  # a cold start of the command line
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux's /proc")
def test_ctrl_c_during_the_warm_up_ends_both_processes(tmp_path):
    environment = {**os.environ, "SUBROC_EXT_CACHE": str(tmp_path / "cache"), "TMPDIR": str(tmp_path),
                   warm_up.SWITCH: "1"}
    environment.pop("NUMBA_CACHE_DIR", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "subroc_ext.cli", "demo", "--out", str(tmp_path / "out")], env=environment,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        # script (CI) inherits SIGINT ignored, and Python then never sees it
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:  # until this process compiles its share too
            claims = [path for path in tmp_path.glob("subroc-ext-warm-up-*/*")]
            if len(claims) >= 2:
                break
            time.sleep(0.1)
        second = children(process.pid)
        assert len(claims) >= 2 and len(second) == 1
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 130
    assert "Traceback" not in stderr and "Error" not in stderr
    assert stderr.strip().splitlines()[-1].startswith("subroc-ext: interrupted")
    assert not Path(f"/proc/{second[0]}").exists()
    assert not list(tmp_path.glob("subroc-ext-warm-up-*"))
