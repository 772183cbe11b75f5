"""The flat module paths of subroc-ext 0.1 stay importable for one release."""

import subprocess
import sys
import textwrap

import pytest

import subroc_ext
from subroc_ext.utils.deprecation import MOVED_MODULES, REMOVED_IN


def _run(code):
    """Run ``code`` in a fresh interpreter (old paths are imported once per process)."""
    result = subprocess.run(
        [sys.executable, "-W", "always::FutureWarning", "-c", textwrap.dedent(code)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return result


@pytest.mark.extended  # a fresh interpreter per old path
def test_every_old_path_is_the_new_module():
    result = _run(
        """
        import importlib, warnings
        from subroc_ext.utils.deprecation import MOVED_MODULES
        for old, new in MOVED_MODULES.items():
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                module = importlib.import_module("subroc_ext." + old)
            assert module is importlib.import_module("subroc_ext." + new), old
            assert module.__name__ == "subroc_ext." + new
            assert module.__spec__.name == "subroc_ext." + new, old
            assert [str(w.message) for w in caught] == [
                f"subroc_ext.{old} is now subroc_ext.{new}; the old path will be removed in subroc-ext 0.3"
            ], (old, [str(w.message) for w in caught])
        print(len(MOVED_MODULES))
        """
    )
    assert int(result.stdout) == len(MOVED_MODULES) >= 50


@pytest.mark.extended  # a fresh interpreter per old path
def test_from_import_of_an_old_path_warns_at_the_users_line():
    result = _run(
        """
        from subroc_ext.measures import ROCAUC
        from subroc_ext.scoring.measures import ROCAUC as NEW
        assert ROCAUC is NEW
        """
    )
    assert "<string>:2: FutureWarning: subroc_ext.measures is now subroc_ext.scoring.measures" in result.stderr


@pytest.mark.extended  # a fresh interpreter per old path
def test_old_path_as_an_attribute():
    result = _run(
        """
        import subroc_ext
        assert subroc_ext.steps is __import__("subroc_ext.workflow.steps", fromlist=["x"])
        assert callable(subroc_ext.cross_auc)  # a function, as before
        from subroc_ext.cross_auc import CrossAUC
        assert CrossAUC is subroc_ext.CrossAUC
        assert callable(subroc_ext.cross_auc)
        """
    )
    assert "subroc_ext.steps is now subroc_ext.workflow.steps" in result.stderr


def test_unknown_attribute_still_fails():
    with pytest.raises(AttributeError, match="no attribute 'no_such_thing'"):
        subroc_ext.no_such_thing  # noqa: B018


def test_removal_release_is_named():
    assert REMOVED_IN == "0.3"
    assert MOVED_MODULES["measures"] == "scoring.measures"
