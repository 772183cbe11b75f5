"""Shared docstring parts land at their placeholder's indentation on every Python
(3.13 removes a docstring's common indentation when it compiles it, older versions
keep it), so numpydoc and Sphinx read the parameters of every function that shares them."""

import inspect

import pytest

import subroc_ext
from subroc_ext.utils.docstrings import insert_parts

SHARED = {
    "roc_auc_score": ["label", "score", "positive_label"],
    "pr_auc_score": ["label", "score", "positive_label"],
    "average_ranking_loss": ["label", "score", "positive_label"],
    "example_attributions": ["label", "score", "positive_label"],
    "attribution_mean_score": ["label", "score", "positive_label"],
    "find_regressions": ["min_support", "measure", "positive_label", "mode"],
    "find_drift": ["measure", "positive_label", "mode"],
}


@pytest.mark.parametrize("name", sorted(SHARED))
def test_shared_parameters_are_entries_of_the_parameters_section(name):
    lines = inspect.getdoc(getattr(subroc_ext, name)).splitlines()
    section = lines[lines.index("Parameters") + 2 : lines.index("Returns")]
    entries = [line.split(" : ")[0] for line in section if line and not line.startswith(" ")]
    assert set(SHARED[name]) <= set(entries), section


@pytest.mark.parametrize("indentation", ["", "    ", "\t"])
def test_a_part_takes_the_indentation_of_its_placeholder(indentation):
    part = """
        size : int
            Rows.

        weight : float
    """
    docstring = f"Title.\n\n{indentation}Parameters\n{indentation}{{size}}\n{indentation}Returns\n"
    assert insert_parts(docstring, size=part) == (
        f"Title.\n\n{indentation}Parameters\n{indentation}size : int\n{indentation}    Rows.\n\n"
        f"{indentation}weight : float\n{indentation}Returns\n"
    )
    with pytest.raises(KeyError):
        insert_parts("{other}", size=part)
