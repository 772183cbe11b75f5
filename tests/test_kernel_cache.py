"""subroc_ext.utils.kernel_cache: numba's caches are dropped when a kernel
source changes, so a kernel never runs with a stale copy of a kernel of
another module compiled into it (numba itself checks only the caller's file)."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from subroc_ext.utils.kernel_cache import FINGERPRINT, refresh_kernel_caches


def make_package(folder):
    """A package whose cached kernel ``caller.g`` calls ``callee.f`` of another module."""
    package = folder / "stalepkg"
    package.mkdir()
    (package / "__init__.py").write_text(textwrap.dedent("""
        from pathlib import Path
        from subroc_ext.utils.kernel_cache import refresh_kernel_caches
        refresh_kernel_caches(Path(__file__).parent)
    """))
    (package / "callee.py").write_text("from numba import njit\n\n@njit(cache=True)\ndef f():\n    return 1\n")
    (package / "caller.py").write_text(
        "from numba import njit\nfrom .callee import f\n\n@njit(cache=True)\ndef g():\n    return f()\n"
    )
    (package / "plain.py").write_text("VALUE = 1\n")
    return package


def run_kernel(folder):
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(folder), *sys.path])}
    environment.pop("NUMBA_CACHE_DIR", None)
    command = [sys.executable, "-c", "import stalepkg.caller; print(stalepkg.caller.g())"]
    return subprocess.run(command, capture_output=True, text=True, env=environment, check=True).stdout.strip()


@pytest.mark.extended  # fresh interpreters compiling kernels
def test_a_changed_callee_is_compiled_again_into_its_caller(tmp_path):
    package = make_package(tmp_path)
    assert run_kernel(tmp_path) == "1"
    assert list(package.glob("__pycache__/caller.*.nbi"))  # cached
    (package / "callee.py").write_text("from numba import njit\n\n@njit(cache=True)\ndef f():\n    return 2\n")
    assert run_kernel(tmp_path) == "2"  # numba alone would reuse caller's cache: 1


def test_caches_are_dropped_only_when_a_kernel_source_changes(tmp_path, monkeypatch):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    package = make_package(tmp_path)
    cache = package / "__pycache__"
    cache.mkdir()

    def fake_caches():
        for name in ("caller.g-5.py311.nbi", "caller.g-5.py311.1.nbc"):
            (cache / name).write_bytes(b"")

    fake_caches()
    assert refresh_kernel_caches(package) == 2  # no fingerprint yet: origin unknown
    assert (cache / FINGERPRINT).exists()
    fake_caches()
    assert refresh_kernel_caches(package) == 0
    (package / "plain.py").write_text("VALUE = 2\n")  # not a kernel source
    assert refresh_kernel_caches(package) == 0
    (package / "callee.py").write_text((package / "callee.py").read_text() + "\n# changed\n")
    assert refresh_kernel_caches(package) == 2
    assert not list(cache.glob("*.nb*"))


def test_nothing_is_checked_where_numba_keeps_no_caches_beside_the_sources(tmp_path, monkeypatch):
    package = make_package(tmp_path)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "elsewhere"))
    assert refresh_kernel_caches(package) is None
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    assert refresh_kernel_caches(package) is None
    assert not (package / "__pycache__" / FINGERPRINT).exists()


@pytest.mark.parametrize("module", ["engine/search_kernels.py", "scoring/joint_bounds.py", "scoring/bitset.py"])
def test_the_package_kernels_are_fingerprinted(module):
    from subroc_ext.utils.kernel_cache import kernel_sources

    import subroc_ext

    root = Path(subroc_ext.__file__).parent
    assert root / module in kernel_sources(root)


# --------------------------------------------------------------------------
# the user's kernel cache: survives a fresh install, one folder per source version
# --------------------------------------------------------------------------


def run_python(code, cache, pythonpath=None):
    """``code`` in a fresh interpreter with ``SUBROC_EXT_CACHE=cache``; its stdout."""
    environment = {**os.environ, "SUBROC_EXT_CACHE": str(cache)}
    environment.pop("NUMBA_CACHE_DIR", None)
    if pythonpath is not None:
        environment["PYTHONPATH"] = str(pythonpath)
    command = [sys.executable, "-c", textwrap.dedent(code)]
    return subprocess.run(
        command, capture_output=True, text=True, env=environment, check=True, cwd=cache.parent
    ).stdout  # fmt: skip


HYPERGEOMETRIC = """
    import numpy as np
    from subroc_ext.utils.kernel_cache import kernel_cache_dir, kernels_cached
    before = kernels_cached()
    from subroc_ext.scoring import rank_null
    kernel = rank_null.hypergeometric
    kernel(np.ones(1, dtype=np.uint64), 5, 5, 3)
    print(before, kernel._cache.cache_path.startswith(str(kernel_cache_dir())),
          sum(kernel.stats.cache_hits.values()), kernel_cache_dir().name)
"""


@pytest.mark.extended  # fresh interpreters compiling kernels
def test_kernels_are_cached_for_the_user_and_found_by_a_fresh_install(tmp_path):
    import shutil

    import subroc_ext

    cache = tmp_path / "cache"
    first = run_python(HYPERGEOMETRIC, cache).split()
    assert first[1:3] == ["True", "0"]  # compiled, into the user's cache
    # a fresh install elsewhere (another virtual environment): the same sources
    install = tmp_path / "venv" / "site-packages"
    shutil.copytree(Path(subroc_ext.__file__).parent, install / "subroc_ext",
                    ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    second = run_python(HYPERGEOMETRIC, cache, pythonpath=install).split()
    assert second == ["True", "True", "1", first[3]]  # loaded, not compiled
    # a changed kernel source: a new folder, compiled again
    kernels = install / "subroc_ext" / "scoring" / "rank_null.py"
    kernels.write_text(kernels.read_text() + "\n# changed\n")
    third = run_python(HYPERGEOMETRIC, cache, pythonpath=install).split()
    assert third[2] == "0" and third[3] != first[3]
    assert sorted(path.name for path in (cache / "kernels").iterdir()) == sorted({first[3], third[3]})


def test_help_and_version_load_no_numeric_library(tmp_path):
    loaded = run_python("""
        import sys
        from subroc_ext.cli import main
        for argv in (["--version"], ["--help"], ["run", "--help"]):
            main(argv)
        print(*sorted(m for m in ("numba", "numpy", "pandas", "matplotlib", "scipy") if m in sys.modules))
    """, tmp_path / "cache")  # fmt: skip
    assert loaded.splitlines()[-1].strip() == ""


def test_measure_names_of_the_command_line_are_the_api_measures():
    from subroc_ext.utils.names import MEASURE_NAMES
    from subroc_ext.workflow.steps import MEASURES

    assert set(MEASURE_NAMES) == set(MEASURES)
