"""Sphinx configuration of the subroc-ext documentation site.

Build it from the checkout's root (offline; about a minute)::

    python -m sphinx -W --keep-going -b html docs docs/_build/html

Sphinx with numpydoc, as NumPy, SciPy, pandas and scikit-learn document
themselves: the package's docstrings are numpydoc already, so the API
reference (``api/``) is generated from them by autosummary, one page per
public name. The guide pages are Markdown (MyST); for now they include the
README's sections between ``<!-- docs:NAME -->`` and ``<!-- /docs:NAME -->``
markers (``guide/``). The notebooks of ``notebooks/`` are shown by MyST-NB
without running them (the test suite runs them); ``-D
nb_execution_mode=auto`` runs them during the build, with their outputs.
"""

import os
import re
import shutil
import sys
from pathlib import Path

from sphinx.util import logging

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
# the subroc_ext of this checkout, whatever is installed (as conftest.py does for the tests)
sys.path.insert(0, str(ROOT))

import subroc_ext  # noqa: E402

logger = logging.getLogger(__name__)

project = "subroc-ext"
author = "the subroc-ext authors"
copyright = "the subroc-ext authors"
version = release = subroc_ext.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    # MyST-NB reads the notebooks and, through myst-parser, the Markdown pages
    "myst_nb",
]

source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "**.ipynb_checkpoints"]
templates_path = ["_templates"]

# --- the API reference: autosummary pages from the numpydoc docstrings --------
autosummary_generate = True
autosummary_imported_members = False
autodoc_default_options = {"members": True, "member-order": "bysource"}
# the signature shows the defaults; the types are in the docstrings
autodoc_typehints = "none"
# a page generated for a name that is no longer public would be a page in no
# table of contents (an error): drop it
for _page in (DOCS / "api" / "generated").glob("subroc_ext.*.rst"):
    if _page.stem.removeprefix("subroc_ext.") not in subroc_ext.__all__:
        _page.unlink()
numpydoc_show_class_members = True
# methods inherited from pysubgroup are pysubgroup's to document
numpydoc_show_inherited_class_members = False
numpydoc_class_members_toctree = False
# A module's References section is its bibliography: it also lists what only
# its functions cite ([5]_ in a function's docstring), which docutils reports
# as "Citation [...] is not referenced" for the module's page. Every other
# warning is an error (-W).
suppress_warnings = ["ref.citation"]

# --- Markdown and notebooks -------------------------------------------------------
myst_enable_extensions = ["colon_fence", "dollarmath"]
# the notebooks are shown as committed (without outputs): the test suite runs
# them; pass -D nb_execution_mode=auto to run them here too
nb_execution_mode = "off"
nb_execution_timeout = 300
nb_execution_raise_on_error = True

# --- HTML -------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"subroc-ext {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    # no icon links or version switcher: nothing to fetch from the network
    "icon_links": [],
    # the report's screenshots (1280 px wide) get the whole width of the page
    "secondary_sidebar_items": {"**": ["page-toc"], "report": []},
}
html_sidebars = {"report": []}
html_static_path = ["_static"]
html_css_files = ["custom.css"]
html_show_sourcelink = False

# The notebooks live in notebooks/ (where the test suite runs them); the
# examples pages are copies (copy2 keeps the time stamp, so an unchanged
# notebook is not read again).
NOTEBOOKS = ROOT / "notebooks"
EXAMPLES = DOCS / "examples"
for _notebook in sorted(NOTEBOOKS.glob("*.ipynb")):
    _copy = EXAMPLES / _notebook.name
    if not _copy.exists() or _copy.stat().st_mtime != _notebook.stat().st_mtime:
        shutil.copy2(_notebook, _copy)

API_INDEX = DOCS / "api" / "index.rst"


def check_api_reference(app):
    """Warn (an error with ``-W``) for a public name the API reference lacks, or
    a name it lists that is not public: ``api/index.rst`` must list exactly
    ``subroc_ext.__all__``."""
    listed = set(re.findall(r"^   ([A-Za-z_][A-Za-z0-9_]*)$", API_INDEX.read_text(), flags=re.MULTILINE))
    public = set(subroc_ext.__all__)
    for name in sorted(public - listed):
        logger.warning("api/index.rst lacks subroc_ext.%s (in subroc_ext.__all__)", name)
    for name in sorted(listed - public):
        logger.warning("api/index.rst lists %s, which is not in subroc_ext.__all__", name)


def skip_top_level_names(app, what, name, obj, skip, options):
    """On a module's page, leave out what the top-level API documents
    (``subroc_ext.Measure`` is the page of ``scoring.measures.Measure``); the
    module's docstring links there instead."""
    if what == "module" and any(obj is getattr(subroc_ext, public) for public in subroc_ext.__all__):
        return True
    return None


def link_top_level_names(app, what, name, obj, options, lines):
    """Under a module's docstring, list its names that the top-level API
    documents, each linked to its page."""
    if what != "module" or not name.startswith("subroc_ext."):
        return
    public = [
        top for top in subroc_ext.__all__
        if getattr(getattr(subroc_ext, top), "__module__", None) == name and top in getattr(obj, "__all__", ())
    ]
    if public:
        links = [".. rubric:: In the top-level API", ""] + [f"- :obj:`subroc_ext.{top}`" for top in public] + [""]
        # before numpydoc's References, which end the docstring
        end = next((i for i, line in enumerate(lines) if line.startswith(".. rubric:: References")), len(lines))
        lines[end:end] = links


def setup(app):
    app.connect("builder-inited", check_api_reference)
    app.connect("autodoc-skip-member", skip_top_level_names)
    app.connect("autodoc-process-docstring", link_top_level_names)
