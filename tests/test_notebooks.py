"""The tutorial notebooks in ``notebooks/`` run from top to bottom.

Each notebook is executed with nbclient in a fresh kernel that runs on this
very interpreter (``sys.executable``): a ``python3`` kernel spec pointing at
it is written to a temporary directory placed first on ``JUPYTER_PATH``, so
neither a missing spec in a fresh virtual environment nor a user-wide spec
for another Python can get in the way. A first, injected cell checks the
interpreter; then every cell must run without error and the key outputs
(tables, plots, checked claims) must be there.

The notebooks (those the test run selects) are executed at the same time,
each in its own kernel, by one event loop: a kernel computes while the others
wait, so the slowest notebook, not the sum of all, sets the wall time. That
loop runs in a background thread started as soon as the tests are collected
(``pytest_collection_finish`` in conftest.py calls :func:`start_notebooks`):
the kernels, separate processes, compute while the tests before these run,
and :func:`executed` only collects what they did. The kernels' environment
is set while they start (before any test runs) and then restored.
"""

import asyncio
import json
import os
import re
import shutil
import sys
import tempfile
import threading
from concurrent.futures import Future
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

import subroc_ext

#: A longer check (real tables, scripts, a cluster): `python -m pytest -m "extended and not slow"`, run by CI.
pytestmark = pytest.mark.extended

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
NAMES = [
    "01_audit_a_model.ipynb", "02_add_a_measure.ipynb", "03_multiclass_and_diagnostics.ipynb",
    "04_compare_models_and_periods.ipynb",
]
CELL_TIMEOUT = 120


def kernel_env(jupyter_dir):
    """Environment in which kernel ``python3`` is this interpreter."""
    spec_dir = jupyter_dir / "kernels" / "python3"
    spec_dir.mkdir(parents=True)
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (subroc-ext tests)",
        "language": "python",
    }
    (spec_dir / "kernel.json").write_text(json.dumps(spec))
    package_root = str(Path(subroc_ext.__file__).resolve().parents[1])
    return {
        "JUPYTER_PATH": os.pathsep.join(filter(None, [str(jupyter_dir), os.environ.get("JUPYTER_PATH")])),
        # the kernel imports the subroc_ext under test
        "PYTHONPATH": os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")])),
        # figures as image/png outputs, whatever backend the environment asks for
        "MPLBACKEND": "module://matplotlib_inline.backend_inline",
        # one OpenMP thread: no oversubscription when the machine is busy
        "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1"),
    }


async def run_notebook(name, workdir, started):
    """Execute a notebook (plus an interpreter check up front) and return it;
    ``started()`` is called once its kernel is ready (or it failed before)."""
    notebook = nbformat.read(NOTEBOOKS / name, as_version=4)
    check = nbformat.v4.new_code_cell("import sys\nprint(repr(sys.executable), repr(sys.prefix))")
    notebook.cells.insert(0, check)
    client = NotebookClient(
        notebook,
        kernel_name="python3",
        timeout=CELL_TIMEOUT,
        resources={"metadata": {"path": str(workdir)}},
        on_notebook_start=lambda notebook: started(),
    )
    try:
        await client.async_execute()
    finally:
        started()  # (a second call does nothing)
    assert outputs_text(notebook.cells[0]).strip() == f"{sys.executable!r} {sys.prefix!r}"
    del notebook.cells[0]
    return notebook


def selected_notebooks(items):
    """The notebooks of the selected tests of :func:`test_notebook_runs`."""
    return sorted({
        item.callspec.params["name"]
        for item in items
        if isinstance(item, pytest.Function)
        and item.module.__name__ == __name__
        and item.originalname == "test_notebook_runs"
    })  # fmt: skip


#: name -> executed notebook (or the exception it raised), once the
#: background run has finished; None before :func:`start_notebooks`.
_RUN = None
#: The background run's temporary directory (kernel spec, working directories).
_ROOT = None


def start_notebooks(items):
    """Start the notebooks of the selected tests in a background thread (once).

    Returns when every kernel is ready (or has failed to start), so the
    environment they need is set only while no test runs."""
    global _RUN, _ROOT
    if _RUN is not None:
        return
    _RUN = Future()
    names = selected_notebooks(items)
    if not names:
        _RUN.set_result({})
        return
    root = _ROOT = Path(tempfile.mkdtemp(prefix="subroc-ext-notebooks-"))
    env = kernel_env(root / "jupyter")
    ready = threading.Semaphore(0)

    def once():
        done = threading.Event()

        def started():
            if not done.is_set():
                done.set()
                ready.release()

        return started

    async def run_all():
        return await asyncio.gather(
            *(run_notebook(name, root / name.split("_")[0], once()) for name in names),
            return_exceptions=True,
        )

    def run():
        try:
            _RUN.set_result(dict(zip(names, asyncio.run(run_all()))))
        except BaseException as error:  # noqa: BLE001 (reported by the tests)
            _RUN.set_result({name: error for name in names})
            for _ in names:
                ready.release()

    for name in names:
        (root / name.split("_")[0]).mkdir()
    with pytest.MonkeyPatch.context() as patch:
        for key, value in env.items():
            patch.setenv(key, value)
        threading.Thread(target=run, name="notebooks", daemon=True).start()
        for _ in names:
            ready.acquire()


def finish_notebooks():
    """Wait for the background run (its kernels shut down); see conftest.py."""
    if _RUN is not None:
        _RUN.result()
    if _ROOT is not None:
        shutil.rmtree(_ROOT, ignore_errors=True)


@pytest.fixture(scope="module")
def executed(request):
    """The notebooks of the selected tests of :func:`test_notebook_runs`, run
    concurrently in the background: name -> executed notebook (or the
    exception it raised)."""
    start_notebooks(request.session.items)  # (if conftest.py has not already)
    return _RUN.result()


def outputs_text(cell):
    """All text a code cell printed or displayed (stdout, stderr, text/plain)."""
    parts = []
    for output in cell.get("outputs", []):
        if output["output_type"] == "stream":
            parts.append(output["text"])
        elif "data" in output:
            parts.append(output["data"].get("text/plain", ""))
    return "\n".join(parts)


def mime_count(notebook, mime):
    return sum(
        mime in output.get("data", {})
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.outputs
    )


def all_text(notebook):
    return "\n".join(outputs_text(cell) for cell in notebook.cells if cell.cell_type == "code")


@pytest.mark.parametrize("name", NAMES)
def test_notebook_is_stored_without_outputs(name):
    notebook = nbformat.read(NOTEBOOKS / name, as_version=4)
    nbformat.validate(notebook)
    assert notebook.metadata.kernelspec.name == "python3"
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, cell.source[:60]


def check_audit_a_model(notebook):
    text = all_text(notebook)
    assert "ROC AUC of the model on the search split: 0.9" in text
    # the basic, full, comparison, pysubgroup and randomization-test tables
    assert mime_count(notebook, "text/html") >= 6
    for column in ("p_value_corrected", "basic setting", "full framework", "quality", "statistic"):
        assert column in text
    assert mime_count(notebook, "image/png") >= 1  # the ROC curves
    # table.subroc: the forest plot and the compact table
    assert any('alt="forest plot"' in output.get("data", {}).get("text/html", "")
               for cell in notebook.cells for output in cell.get("outputs", []))  # fmt: skip


def check_add_a_measure(notebook):
    text = all_text(notebook)
    # pruned and unpruned searches agree for every valid bound; a wrong one is caught
    # by check_measure (its search may or may not miss subgroups, depending on the model)
    assert text.count("same top-10: True") + text.count("same top-10: False") == 6
    assert text.count("same top-10: True") >= 4
    for measure in ("RowMeanMeasure(name='brier', kind='loss')", "KernelMeasure(name='tpr', "
                    "kind='score')", "BalancedAccuracy()"):  # fmt: skip
        assert f"MeasureCheck({measure}: ok;" in text
    for measure in ("BrokenBalancedAccuracy()", "KernelMeasure(name='tpr', kind='score')"):
        assert re.search(rf"MeasureCheck\({re.escape(measure)}: \d+ violation\(s\)", text)
    # the smallest counterexample of the NumPy-boolean bound
    assert "highest is below the value of a subset" in text
    assert "claimed 0.5, reached 1.0" in text
    # find_subgroups tables of the three measures
    assert mime_count(notebook, "text/html") >= 3


def check_multiclass_and_diagnostics(notebook):
    text = all_text(notebook)
    assert "AUC_mu of the model on the search split: 0." in text
    for column in ("auc_mu_validation", "bpsn_auc_search", "background", "sens_spec_drift"):
        assert column in text
    # the multi-class, binary, cross-AUC and diagnostics tables; the two plots
    assert mime_count(notebook, "text/html") >= 4
    assert mime_count(notebook, "image/png") >= 2


def check_compare_models_and_periods(notebook):
    text = all_text(notebook)
    assert "ROC AUC of the baseline model on the validation split: 0.9" in text
    # Δ recomputed with scikit-learn equals the table's (to the printed digits)
    hand, table = re.search(r"Δ by hand (-?[\d.]+), in the table (-?[\d.]+)", text).groups()
    assert hand == table
    assert re.search(r"reference: ROC AUC 0\.\d+ overall, 0\.\d+ among the [\d,]+ married", text)
    for column in ("delta_validation", "roc_auc_baseline_validation", "roc_auc_current_validation"):
        assert column in text
    assert text.count("report.html True") == 2
    # the two tables; both ROC curve figures and the forest plot
    assert mime_count(notebook, "text/html") >= 2
    assert mime_count(notebook, "image/png") >= 3


#: What each notebook must show once it has run.
CHECKS = {
    "01_audit_a_model.ipynb": check_audit_a_model,
    "02_add_a_measure.ipynb": check_add_a_measure,
    "03_multiclass_and_diagnostics.ipynb": check_multiclass_and_diagnostics,
    "04_compare_models_and_periods.ipynb": check_compare_models_and_periods,
}


def test_every_notebook_is_checked():
    assert sorted(CHECKS) == sorted(NAMES) == sorted(p.name for p in NOTEBOOKS.glob("*.ipynb"))


@pytest.mark.parametrize("name", NAMES)
def test_notebook_runs(executed, name):
    notebook = executed[name]
    if isinstance(notebook, BaseException):
        raise notebook
    CHECKS[name](notebook)
