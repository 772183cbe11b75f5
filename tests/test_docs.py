"""The documentation site builds, with warnings as errors, and shows what it should.

The build is the one the README and ARCHITECTURE.md give (``python -m sphinx
-W --keep-going -b html docs ...``), into a temporary folder, in about a
minute; the notebooks are not run. Then the pages are read:

* every name of ``subroc_ext.__all__`` has its API page with its docstring's
  summary (the package loads its names lazily: autosummary must see them),
  and ``find_subgroups``' page documents every parameter of its signature;
* every README section between ``<!-- docs:NAME -->`` and ``<!-- /docs:NAME -->``
  is included by exactly one page of the site, and that page shows its text;
* every notebook of ``notebooks/`` is an example page, and the report's
  screenshots are on "What the report looks like".

Without the ``docs`` extra (``pip install -e ".[docs]"``) the test is skipped,
saying so; where ``SUBROC_EXT_REQUIRE_DOCS=1`` (``.ci/run``'s reference
environment) it fails instead, so that CI cannot pass without building the docs.
Marked ``extended``: ``python -m pytest -m "extended and not slow"`` runs it.
"""

import html
import importlib.util
import inspect
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import subroc_ext

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
DOCS_PACKAGES = ("sphinx", "numpydoc", "myst_nb", "pydata_sphinx_theme")
MISSING = [name for name in DOCS_PACKAGES if importlib.util.find_spec(name) is None]
MARKER = re.compile(r"<!-- docs:([a-z0-9-]+) -->\n(.*?)<!-- /docs:\1 -->", re.DOTALL)

pytestmark = pytest.mark.extended  # the whole site built once (about 25 s)

if MISSING and os.environ.get("SUBROC_EXT_REQUIRE_DOCS") != "1":
    pytest.skip(
        f"the docs extra is not installed ({', '.join(MISSING)} missing; pip install -e '.[docs]')",
        allow_module_level=True,
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The HTML site, built as the README says."""
    assert not MISSING, f"SUBROC_EXT_REQUIRE_DOCS=1 but {', '.join(MISSING)} are not installed"
    out = tmp_path_factory.mktemp("docs")
    command = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
               "-d", str(out / "doctrees"), "docs", str(out / "html")]  # fmt: skip
    build = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, f"the docs build failed:\n{build.stderr[-6000:]}"
    return out / "html"


def page_text(path):
    """A page's visible text, whitespace collapsed and Sphinx's typographic
    quotes made straight again (for searching phrases)."""
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", path.read_text(), flags=re.DOTALL)
    text = html.unescape(re.sub(r"<[^>]+>", " ", body)).translate(str.maketrans("‘’“”", "''\"\""))
    return " ".join(text.split())


def first_plain_phrase(markdown):
    """The first five words of the section that Markdown renders as they are
    (a line without markup), for finding the section on its page."""
    in_code = False
    for line in markdown.splitlines():
        if line.startswith("```"):
            in_code = not in_code
            continue
        words = line.split()
        if in_code or not re.fullmatch(r"[A-Za-z][\w ,.;:'’–-]+", line.strip()) or len(words) < 5:
            continue
        return " ".join(words[:5])
    raise AssertionError(f"no plain line in the section starting {markdown[:80]!r}")


def test_every_public_name_has_its_page(site):
    for name in subroc_ext.__all__:
        page = site / "api" / "generated" / f"subroc_ext.{name}.html"
        assert page.exists(), f"no API page for subroc_ext.{name}"
        summary = " ".join(inspect.getdoc(getattr(subroc_ext, name)).split("\n\n")[0].split())
        # the summary's words as the page shows them (markup such as :func:`x`,
        # shown as x(), gone)
        words = re.sub(r":[a-z]+:|[`*]", "", summary).split()[:4]
        shown = page_text(page).replace("()", "")
        assert " ".join(words) in shown, f"subroc_ext.{name}: summary {summary!r} not on its page"


def test_find_subgroups_documents_every_parameter(site):
    page = (site / "api" / "generated" / "subroc_ext.find_subgroups.html").read_text()
    documented = {
        name.strip() for entry in re.findall(r"<dt><strong>([^<]+)</strong>", page) for name in entry.split(",")
    }
    parameters = set(inspect.signature(subroc_ext.find_subgroups).parameters)
    assert len(parameters) >= 30
    assert parameters <= documented, f"not documented: {sorted(parameters - documented)}"


def test_every_readme_section_is_on_one_page(site):
    readme = (ROOT / "README.md").read_text()
    sections = dict(MARKER.findall(readme))
    assert len(sections) == readme.count("<!-- docs:") >= 2, "unpaired docs markers in README.md"
    including = {}
    for source in sorted(DOCS.rglob("*.md")):
        if "_build" in source.parts:
            continue
        for name in re.findall(r"^:start-after: <!-- docs:([a-z0-9-]+) -->$", source.read_text(), re.MULTILINE):
            including.setdefault(name, []).append(source)
    assert set(including) == set(sections), (
        f"in README but on no page: {sorted(set(sections) - set(including))}; "
        f"on a page but not in README: {sorted(set(including) - set(sections))}"
    )
    for name, sources in including.items():
        assert len(sources) == 1, f"README section {name} is on several pages: {sources}"
        page = site / sources[0].relative_to(DOCS).with_suffix(".html")
        phrase = first_plain_phrase(sections[name])
        assert phrase in page_text(page), f"{page.name} lacks README section {name} ({phrase!r})"


def test_examples_and_screenshots(site):
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        assert (site / "examples" / f"{notebook.stem}.html").exists(), f"no example page for {notebook.name}"
    report = (site / "report.html").read_text()
    for screenshot in ("report.png", "multiclass-report.png", "compare-report.png"):
        assert f'src="_images/{screenshot}"' in report
        assert (site / "_images" / screenshot).stat().st_size == (DOCS / screenshot).stat().st_size
