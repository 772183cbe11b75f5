"""The command line's standard streams and signals: nothing printed can stop the work.

:func:`~subroc_ext.cli.main` runs every command with ``sys.stdout`` and
``sys.stderr`` behind a :class:`GuardedStream`, whose writes never raise: a
closed stderr (``... 2>&1 | head -1``, ``2>&-``) only silences the status
lines and warnings; a stdout that fails (a closed pipe, ``>&-``,
``>/dev/full``) is reported once the files are written (exit code 141 for a
closed pipe, else one line on stderr and exit code 2). SIGTERM is raised as
Ctrl-C is (:func:`sigterm_as_interrupt`), so a terminated run ends as an
interrupted one does. Kept apart from :mod:`subroc_ext.cli.output` so that
``--help`` and ``--version`` load nothing else.
"""

import contextlib
import errno
import os
import signal
import sys
import threading

from .arguments import PROG

__all__ = ["FAILED", "INTERRUPTED", "PIPE_CLOSED", "TERMINATED", "GuardedStream", "report_interrupted",
           "sigterm_as_interrupt", "to_devnull"]

#: Exit codes: bad input or a failed write; Ctrl-C (128 + SIGINT); a closed
#: output pipe (128 + SIGPIPE); SIGTERM (128 + SIGTERM), as the shell reports
#: commands ended by them.
FAILED, INTERRUPTED, PIPE_CLOSED, TERMINATED = 2, 130, 141, 143


def to_devnull(stream):
    """Point ``stream``'s file descriptor at the null device, so that no later
    write (nor Python's flush at exit) fails on a closed pipe (the Python
    documentation's "Note on SIGPIPE", module ``signal``)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, stream.fileno())
    os.close(devnull)


class GuardedStream:
    """A text stream whose writes never raise.

    The first failure of the wrapped stream (a closed pipe, a closed file
    descriptor, a full disk), or a stream that is None because the process
    started with it closed, is kept in :attr:`error`; from then on the text
    is dropped, and the file descriptor points at the null device so that
    Python's own flush at exit cannot fail either.

    Parameters
    ----------
    stream : io.TextIOBase or None
        ``sys.stdout`` or ``sys.stderr``.

    Attributes
    ----------
    error : OSError or None
        Why the stream stopped (``BrokenPipeError`` for a closed pipe).
    """

    def __init__(self, stream):
        self.stream = stream
        self.error = None if stream is not None else OSError(errno.EBADF, "it is closed")

    def write(self, text):
        """Write ``text`` (dropped once the stream has failed); its length."""
        if self.error is None:
            try:
                self.stream.write(text)
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
    ``args.terminated``: a terminated run then ends as an interrupted one
    does (the searched subgroups kept, no staging folder left), with its own
    line and exit code (:func:`report_interrupted`).
    Only in the main thread, the one where Python runs signal handlers."""

    def terminate(signum, frame):
        args.terminated = True
        raise KeyboardInterrupt

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def report_interrupted(args, what=""):
    """Print the one line of Ctrl-C (or of SIGTERM, when :func:`sigterm_as_interrupt` set
    ``args.terminated``), below a progress bar that may be cut short; the exit code."""
    terminated = getattr(args, "terminated", False)
    line = f"{PROG}: {'terminated' if terminated else 'interrupted'}{' ' + what if what else ''}"
    print(line if args.quiet else f"\n{line}", file=sys.stderr)
    return TERMINATED if terminated else INTERRUPTED
