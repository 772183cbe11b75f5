"""Settings of ``python -m pytest`` that concern the whole checkout.

``python -m pytest`` runs ``tests/`` and the docstring examples of
``subroc_ext`` (``--doctest-modules``, see ``[tool.pytest.ini_options]`` in
pyproject.toml). This file sits at the root so that pytest puts the checkout
first on ``sys.path``: the tests and the examples import the same
``subroc_ext``, the one of this checkout, whatever is installed.
"""

import numpy as np
import pytest


@pytest.fixture(autouse=True)
def _numpy_1_scalar_repr(request):
    """Docstring examples print NumPy scalars as NumPy 1 did (``0.5``, not
    ``np.float64(0.5)``), so that one text serves NumPy 1 and 2."""
    if type(request.node).__name__ == "DoctestItem" and np.lib.NumpyVersion(np.__version__) >= "2.0.0":
        with np.printoptions(legacy="1.25"):
            yield
    else:
        yield
