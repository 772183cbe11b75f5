"""benchmarks/hostile_probe.py (issue 45's probe) runs its first cases and writes its table."""

from pathlib import Path

import pytest
from test_benchmarks import load

pytestmark = pytest.mark.extended
pytest.importorskip("matplotlib")
SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "hostile_probe.py"


def test_first_five_cases_make_the_table(tmp_path):
    probe = load(SCRIPT)
    assert len(probe.CASES) >= 100
    report = tmp_path / "probe.md"
    assert probe.main(["--limit", "5", "--out", str(report)]) == 0
    text = report.read_text(encoding="utf-8")
    assert "## Summary: 5 cases, 5 OK, 0 DEFECT" in text
    rows = [line for line in text.splitlines() if line.startswith("| ") and line[2].isdigit()]
    assert [row.split(" | ")[2] for row in rows] == [case.name for case in probe.CASES[:5]]
    assert "| empty file |" in text and "is empty" in text  # the first error line is recorded
