"""Renamed public names and moved modules keep working for one release, with a warning.

One name per idea (``label``, ``score``, ``positive_label``, ``size_weight``,
``balance_weight``, ``mode``): where an older release of subroc-ext used
another keyword, :func:`renamed_keywords` maps it to the new one and warns.
The modules of 0.1 lay flat in ``subroc_ext/``; each now lives in the folder
of its layer, and :func:`register_moved_modules` keeps the old paths
importable (:data:`MOVED_MODULES`). The old names and paths are removed in
:data:`REMOVED_IN`.
"""

import functools
import importlib
import importlib.abc
import importlib.util
import os
import sys
import warnings

__all__ = ["MOVED_MODULES", "REMOVED_IN", "register_moved_modules", "renamed_keywords"]

#: The release that removes the old keyword names and module paths.
REMOVED_IN = "0.3"

#: The flat module paths of 0.1 (``subroc_ext.measures``) and where each module is now
#: (``subroc_ext.scoring.measures``); importable under the old path until
#: :data:`REMOVED_IN`, with a warning.
MOVED_MODULES = {
    "_progress": "utils.progress",
    "_validation": "utils.validation",
    "atomic": "utils.atomic",
    "auc_mu": "scoring.auc_mu",
    "bitset": "scoring.bitset",
    "bounds": "scoring.bounds",
    "cluster": "utils.cluster",
    "comparison": "objective.comparison",
    "comparison_demos": "demo.comparison",
    "comparison_pipeline": "workflow.comparison",
    "comparison_plots": "reporting.comparison_plots",
    "comparison_report": "reporting.comparison_report",
    "conditions": "reporting.conditions",
    "confidence": "metrics.confidence",
    "counting": "engine.counting",
    "cover_kernels": "scoring.cover_kernels",
    "covers": "metrics.covers",
    "dataset": "inputs.sorted_data",
    "datasets": "demo.datasets",
    "deprecation": "utils.deprecation",
    "diagnostics": "metrics.diagnostics",
    "diversity": "workflow.diversity",
    "effects": "inference.effects",
    "generalization": "objective.generalization",
    "html_page": "reporting.page",
    "kernels": "metrics.kernels",
    "labels": "inputs.labels",
    "measure_check": "objective.measure_check",
    "measures": "scoring.measures",
    "modelling": "demo.modelling",
    "multiclass": "objective.multiclass",
    "multiclass_pipeline": "workflow.multiclass",
    "multiclass_report": "reporting.multiclass",
    "multiclass_weights": "scoring.multiclass_weights",
    "notebook": "reporting.notebook",
    "null_sampling": "scoring.null_sampling",
    "operating_point": "metrics.operating_point",
    "parallel_search": "engine.parallel_search",
    "pipeline": "workflow.pipeline",
    "plotting": "reporting.plotting",
    "quality": "objective.quality",
    "report": "reporting.report",
    "report_sections": "reporting.sections",
    "search": "engine.search",
    "search_space": "inputs.search_space",
    "sequential": "inference.sequential",
    "significance": "inference.significance",
    "steps": "workflow.steps",
    "subsets": "utils.subsets",
    "tables": "inputs.tables",
    "target": "inputs.target",
    "validated": "inputs.validated",
    "weights": "scoring.weights",
}


def renamed_keywords(**renames):
    """Decorator: accept each old keyword ``old=new`` for one release.

    Calling the function with ``old`` warns (``FutureWarning``, shown to
    users by default, as in scikit-learn) and passes the value as ``new``;
    passing both is a ``TypeError``.

    Examples
    --------
    >>> import warnings
    >>> @renamed_keywords(pos_label="positive_label")
    ... def positives(labels, *, positive_label=1):
    ...     return sum(label == positive_label for label in labels)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     positives([1, 2, 2], pos_label=2)
    2
    >>> print(caught[0].message)
    positives(): 'pos_label' is deprecated and will be removed in subroc-ext 0.3; use 'positive_label'
    """

    def decorate(function):
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            for old, new in renames.items():
                if old not in kwargs:
                    continue
                if new in kwargs:
                    raise TypeError(f"{function.__qualname__}() got both {old!r} (deprecated) and {new!r}")
                warnings.warn(
                    f"{function.__qualname__}(): {old!r} is deprecated and will be removed in "
                    f"subroc-ext {REMOVED_IN}; use {new!r}",
                    FutureWarning,
                    stacklevel=2,
                )
                kwargs[new] = kwargs.pop(old)
            return function(*args, **kwargs)

        return wrapper

    return decorate


class _MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Import hook: ``subroc_ext.<old>`` is the module now at ``subroc_ext.<new>``.

    Importing an old path warns once (``FutureWarning``) and gives the module
    object itself, so its classes and functions are the same objects (and
    pickle under their new paths).
    """

    def __init__(self, package, moved):
        self.package = package
        self.moved = moved
        self.specs = {}  # the moved module's own spec, which the import system overwrites

    def find_spec(self, fullname, path=None, target=None):
        prefix, _, name = fullname.rpartition(".")
        if prefix != self.package or name not in self.moved:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        name = spec.name.rpartition(".")[2]
        new = f"{self.package}.{self.moved[name]}"
        warnings.warn(
            f"{spec.name} is now {new}; the old path will be removed in subroc-ext {REMOVED_IN}",
            FutureWarning,
            stacklevel=_outside_importlib(),
        )
        module = importlib.import_module(new)
        self.specs[module.__name__] = module.__spec__
        return module

    def exec_module(self, module):
        module.__spec__ = self.specs.pop(module.__name__)


def _outside_importlib():
    """``stacklevel`` of the importing line, seen from :meth:`_MovedModules.create_module`.

    ``warnings`` itself skips the frames of importlib's bootstrap; this counts
    the others up to the first one outside this module and ``importlib.import_module``.
    """
    frame, level = sys._getframe(2), 1
    while frame is not None:
        name = frame.f_code.co_filename
        if not ("importlib" in name and "_bootstrap" in name):
            level += 1
            if name != __file__ and not name.endswith(os.path.join("importlib", "__init__.py")):
                return level
        frame = frame.f_back
    return level


def register_moved_modules(package, moved):
    """Keep the flat module paths of earlier releases importable for one release.

    Parameters
    ----------
    package : str
        The top-level package (``"subroc_ext"``).
    moved : dict of str to str
        Old module name (below ``package``) to its new dotted path.

    Returns
    -------
    callable
        A module ``__getattr__`` for ``package``: ``subroc_ext.<old>`` as an
        attribute imports the new module the same way.
    """
    if not any(isinstance(finder, _MovedModules) for finder in sys.meta_path):
        sys.meta_path.append(_MovedModules(package, moved))

    def module_getattr(name):
        if name in moved:
            return importlib.import_module(f"{package}.{name}")
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return module_getattr
