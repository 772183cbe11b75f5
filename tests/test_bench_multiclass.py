"""benchmarks/bench_multiclass.py runs end to end on a tiny problem and its
pruned and unpruned AUC_mu searches agree (a smoke run, not a timing test).

The script runs in this process (its ``main`` with ``--smoke``): the same code
as ``python benchmarks/bench_multiclass.py --smoke``, without starting and
importing a second interpreter.
"""

import importlib.util
import sys
from pathlib import Path

import pytest

#: A longer check (real tables, scripts, a cluster): `python -m pytest -m "extended and not slow"`, run by CI.
pytestmark = pytest.mark.extended

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_multiclass.py"


def test_smoke_run_agrees(monkeypatch, capsys):
    pytest.importorskip("threadpoolctl")
    spec = importlib.util.spec_from_file_location("bench_multiclass", SCRIPT)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    monkeypatch.setattr(sys, "argv", [str(SCRIPT), "--smoke"])
    status = bench.main()
    printed = capsys.readouterr()
    assert status == 0, printed.out + printed.err
    assert "agreement check: OK" in printed.out
    assert "| 3 | 2,000 |" in printed.out and "randomization test: 5 patterns" in printed.out
