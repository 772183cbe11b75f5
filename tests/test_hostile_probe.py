"""benchmarks/hostile_probe.py (issues 45 and 59) runs its first cases, and issue 59's, and writes its table."""

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


def test_issue_59s_cases_are_all_ok(tmp_path):
    probe = load(SCRIPT)
    report = tmp_path / "probe.md"
    assert probe.main(["--skip", "215", "--out", str(report)]) == 0
    text = report.read_text(encoding="utf-8")
    assert f"## Summary: {len(probe.CASES) - 215} cases, {len(probe.CASES) - 215} OK, 0 DEFECT" in text
    assert "| 216 | no holdout | nothing found |" in text and "| 247 | signal | Ctrl-C at 0.3 s |" in text
