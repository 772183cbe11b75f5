"""The plotting stack imported in the background while a command computes.

matplotlib, pyplot and the backends that write PNG and SVG take 0.3-0.8 s to
import, all of it Python holding the GIL, while the search, the test and the
demo's model spend most of their time in compiled code that releases it. A
command that will draw a report calls :func:`preload_plotting` before that
work: the import runs on another core beside it, and the drawing finds the
modules imported (or waits for the rest of the import: the import system
locks a module being imported). The search imports none of these modules,
so the two threads never wait for each other's imports.
"""

import threading

from .plotting import _pyplot

__all__ = ["preload_plotting"]


def _import_plotting():
    """Import what a report draws with; an error is left for the drawing to raise
    (with its message: matplotlib missing is ``pip install subroc-ext[plot]``)."""
    try:
        _pyplot()
        import matplotlib.backends.backend_agg  # noqa: F401  (curves.png)
        import matplotlib.backends.backend_svg  # noqa: F401  (the embedded figures)
    except Exception:  # noqa: BLE001  raised again, in the main thread, by the first figure
        return


def preload_plotting():
    """Start importing matplotlib (the report's figures) in a daemon thread.

    Returns
    -------
    threading.Thread
        The thread (a daemon: an interrupted command does not wait for it).
    """
    thread = threading.Thread(target=_import_plotting, name="subroc-ext-preload-plotting", daemon=True)
    thread.start()
    return thread
