"""The plotting stack imported in the background while a command computes.

matplotlib, pyplot and the backends that write PNG and SVG take 0.3-0.8 s to
import, all of it Python holding the GIL, while the search, the test and the
demo's model spend most of their time in compiled code that releases it. A
command that will draw a report calls :func:`preload_plotting` before that
work: the import runs on another core beside it, and the drawing finds the
modules imported (or waits for the rest of the import: the import system
locks a module being imported). The search imports none of these modules,
so the two threads never wait for each other's imports. :func:`pyplot` is the
one import of ``matplotlib.pyplot`` that every figure and this thread share.

One part is imported before the thread starts, in the calling thread:
``matplotlib.style``, whose import reads matplotlib's style files under
``warnings.catch_warnings(record=True)``. That swaps the warnings module's
global state, so a warning the command raised in that window (a data check, a
test's low power) would be recorded by matplotlib and logged as a problem of a
style file. It is about a fifth of a second (``import matplotlib``, most of it).
"""

import os
import sys
import threading

__all__ = ["preload_plotting", "pyplot"]


def pyplot():
    """Import ``matplotlib.pyplot``, choosing the Agg backend on a headless system
    (the one place the report's figures import it)."""
    try:
        import matplotlib
    except ImportError as error:
        raise ImportError(
            "plotting needs matplotlib; install it with: pip install subroc-ext[plot]"
        ) from error
    headless = sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    )
    if headless and "MPLBACKEND" not in os.environ and "matplotlib.pyplot" not in sys.modules:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _import_plotting():
    """Import what a report draws with; an error is left for the drawing to raise
    (with its message: matplotlib missing is ``pip install subroc-ext[plot]``)."""
    try:
        pyplot()
        import matplotlib.backends.backend_agg  # noqa: F401  (curves.png)
        import matplotlib.backends.backend_svg  # noqa: F401  (the embedded figures)
    except Exception:  # noqa: BLE001  raised again, in the main thread, by the first figure
        return


def preload_plotting():
    """Start importing matplotlib (the report's figures) in a daemon thread,
    its style library first, in this one.

    Returns
    -------
    threading.Thread
        The thread (a daemon: an interrupted command does not wait for it).
    """
    try:
        import matplotlib.style  # noqa: F401  (here, not beside warnings: the module docstring)
    except ImportError:
        pass  # left for the first figure to raise, with its message
    thread = threading.Thread(target=_import_plotting, name="subroc-ext-preload-plotting", daemon=True)
    thread.start()
    return thread
