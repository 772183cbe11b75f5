"""benchmarks/bench_multiclass.py runs end to end on a tiny problem and its
pruned and unpruned AUC_mu searches agree (a smoke run, not a timing test)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

import subroc_ext

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_multiclass.py"


def test_smoke_run_agrees():
    pytest.importorskip("threadpoolctl")
    package_root = str(Path(subroc_ext.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")]))}
    process = subprocess.run(
        [sys.executable, str(SCRIPT), "--smoke"], capture_output=True, text=True, timeout=300, env=env
    )
    assert process.returncode == 0, process.stdout + process.stderr
    assert "agreement check: OK" in process.stdout
    assert "| 3 | 2,000 |" in process.stdout and "randomization test: 5 patterns" in process.stdout
