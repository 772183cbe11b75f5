"""Tests of :mod:`subroc_ext.reporting.gate`: a test suite's release gate."""

import pytest
from test_findings import single_table

import subroc_ext
from subroc_ext.reporting.findings import headline
from subroc_ext.reporting.gate import gate_reason


def test_a_failure_raises_with_the_headline_as_the_message():
    table = single_table([True, True, False])
    with pytest.raises(AssertionError) as raised:
        subroc_ext.assert_no_failures(table)
    assert str(raised.value) == headline(table).text()
    assert gate_reason(table) == "2 failures: region=='west' (delta 0.090), region=='east' (delta 0.020)"


def test_no_failure_passes():
    table = single_table([False, False, False])
    assert subroc_ext.assert_no_failures(table) is None and gate_reason(table) is None
    assert gate_reason(table.iloc[:0]) is None  # nothing found
    untested = single_table([True, True, True]).assign(significant=None)
    assert subroc_ext.assert_no_failures(untested) is None


def test_the_gate_fails_on_the_planted_failure(failing_analysis):
    with pytest.raises(AssertionError, match=r"#1 region=='east' \("):
        subroc_ext.assert_no_failures(failing_analysis.table)
