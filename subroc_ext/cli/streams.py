"""The command line's standard streams and signals: nothing printed can stop the work.

:func:`~subroc_ext.cli.main` runs every command with ``sys.stdout`` and
``sys.stderr`` behind a :class:`GuardedStream`, whose writes never raise: a
closed stderr (``... 2>&1 | head -1``, ``2>&-``) only silences the status
lines and warnings; a stdout that fails (a closed pipe, ``>&-``,
``>/dev/full``) is reported once the files are written (exit code 141 for a
closed pipe, else one line on stderr and exit code 2). SIGTERM is raised as
Ctrl-C is (:func:`sigterm_as_interrupt`), so a terminated run ends as an
interrupted one does. Nor can the data drive the terminal: every write shows
the control characters in it as escapes (:func:`~subroc_ext.utils.terminal.visible`),
whoever wrote it (our lines, a library's warning, a traceback), except the line
breaks the program writes. Kept apart from :mod:`subroc_ext.cli.output` so that
``--help`` and ``--version`` load nothing else.
"""

import contextlib
import errno
import os
import signal
import sys
import threading
from pathlib import Path

from ..utils.interrupts import ignored_interrupts_again, raise_interrupt
from ..utils.terminal import visible
from .arguments import PROG

__all__ = ["FAILED", "INTERRUPTED", "PIPE_CLOSED", "RESULT_FILES", "TERMINATED", "GuardedStream",
           "remove_earlier_results", "report_interrupted", "sigterm_as_interrupt", "to_devnull"]

#: Exit codes: bad input or a failed write; Ctrl-C (128 + SIGINT); a closed
#: output pipe (128 + SIGPIPE); SIGTERM (128 + SIGTERM), as the shell reports
#: commands ended by them.
FAILED, INTERRUPTED, PIPE_CLOSED, TERMINATED = 2, 130, 141, 143

#: Every file a run may write into --out: an earlier run's are removed when a
#: new run's files move in, so that the folder never mixes two runs.
RESULT_FILES = ("subgroups.csv", "findings.json", "curves.png", "report.html", "rows.csv")


def to_devnull(stream):
    """Point ``stream``'s file descriptor at the null device, so that no later
    write (nor Python's flush at exit) fails on a closed pipe (the Python
    documentation's "Note on SIGPIPE", module ``signal``)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, stream.fileno())
    os.close(devnull)


class GuardedStream:
    """A text stream whose writes never raise, nor drive the terminal.

    The first failure of the wrapped stream (a closed pipe, a closed file
    descriptor, a full disk), or a stream that is None because the process
    started with it closed, is kept in :attr:`error`; from then on the text
    is dropped, and the file descriptor points at the null device so that
    Python's own flush at exit cannot fail either.

    Each write's control characters, bidirectional controls and other
    format characters are written as their escapes (``\\x1b``, ``\\u202e``:
    :func:`~subroc_ext.utils.terminal.visible`), except those in ``keep``.
    Kept are only line breaks, which a stream cannot tell from the data's;
    the console writes the data's text (a value, a column name) through
    :func:`~subroc_ext.utils.terminal.visible` before it prints it.

    Parameters
    ----------
    stream : io.TextIOBase or None
        ``sys.stdout`` or ``sys.stderr``.
    keep : str, default='\\n'
        The control characters written as they are: ``'\\n'``, and on
        stderr also ``'\\r'``, with which a progress bar redraws its line.

    Attributes
    ----------
    error : OSError or None
        Why the stream stopped (``BrokenPipeError`` for a closed pipe).
    """

    def __init__(self, stream, keep="\n"):
        self.stream, self.keep = stream, keep
        self.error = None if stream is not None else OSError(errno.EBADF, "it is closed")

    def write(self, text):
        """Write ``text`` (dropped once the stream has failed), its control
        characters but ``keep`` escaped; the length of ``text``."""
        if self.error is None:
            try:
                self.stream.write(visible(text, self.keep))
            except (OSError, ValueError) as error:  # ValueError: a closed file object
                self._failed(error)
        return len(text)

    def flush(self):
        """Flush the stream, keeping a failure instead of raising it."""
        if self.error is None:
            try:
                self.stream.flush()
            except (OSError, ValueError) as error:
                self._failed(error)

    def isatty(self):
        """Whether the stream is a working terminal."""
        return self.error is None and self.stream.isatty()

    def __getattr__(self, name):
        return getattr(self.stream, name)

    def _failed(self, error):
        self.error = error if isinstance(error, OSError) else OSError(errno.EBADF, str(error))
        with contextlib.suppress(OSError, ValueError):
            to_devnull(self.stream)


@contextlib.contextmanager
def sigterm_as_interrupt(args):
    """SIGTERM raised as ``KeyboardInterrupt`` in the block, after setting
    ``args.terminated`` (and, for SIGINT too, ``args.interrupted``: an
    extension module's import that the interrupt lands in, pandas' say,
    raises an ``ImportError`` in its place, which the command line then
    reads as the interrupt): a terminated run then ends as an interrupted one
    does (the searched subgroups kept, no staging folder left), with its own
    line and exit code (:func:`report_interrupted`). Both SIGTERM and SIGINT
    are raised by :func:`~subroc_ext.utils.interrupts.raise_interrupt`, which
    raises them once a compiler callback has returned (inside one the
    interrupt would be lost), and one that Python ignored (raised in a weakref
    callback while a module loads) is delivered again
    (:func:`~subroc_ext.utils.interrupts.ignored_interrupts_again`). Only in
    the main thread, the one where Python runs signal handlers."""

    def interrupt(signum, frame):
        args.interrupted = True  # an extension module's import it lands in raises an ImportError in its place
        raise_interrupt(signum, frame)

    def terminate(signum, frame):
        args.terminated = True
        interrupt(signum, frame)

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    handlers = {signal.SIGTERM: terminate}
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not when ignored (a background job)
        handlers[signal.SIGINT] = interrupt
    previous = {number: signal.signal(number, handler) for number, handler in handlers.items()}
    hook, sys.unraisablehook = sys.unraisablehook, ignored_interrupts_again(sys.unraisablehook)
    try:
        yield
    finally:
        sys.unraisablehook = hook
        for number, handler in previous.items():
            signal.signal(number, handler)


def report_interrupted(args, what=""):
    """Print the one line of Ctrl-C (or of SIGTERM, when :func:`sigterm_as_interrupt` set
    ``args.terminated``), below a progress bar that may be cut short; the exit code."""
    terminated = getattr(args, "terminated", False)
    line = f"{PROG}: {'terminated' if terminated else 'interrupted'}{' ' + what if what else ''}"
    print(line if args.quiet else f"\n{line}", file=sys.stderr)
    return TERMINATED if terminated else INTERRUPTED


def remove_earlier_results(out):
    """Remove an earlier run's files (:data:`RESULT_FILES`) from ``out``, for a run cut
    before its search finished (during the import of the command's modules too:
    this module imports nothing more); what became of them, in words."""
    out = Path(out)
    earlier = [out / name for name in RESULT_FILES if (out / name).is_file()]
    try:
        for path in earlier:
            path.unlink()
    except OSError as error:
        return (f"before the search finished; nothing was written, and {Path(error.filename or out).name} "
                f"of an earlier run could not be removed from {out.resolve()}: {error.strerror or error}")  # fmt: skip
    if earlier:
        return (f"before the search finished; nothing to keep, and the earlier run's files were removed "
                f"from {out.resolve()} (none is this run's)")  # fmt: skip
    return "before the search finished; nothing was written"
