"""The ``subroc-ext`` command: ``subroc-ext demo`` and ``subroc-ext run DATA``.

Both find the subgroups where a classifier performs exceptionally, write a
report (``subgroups.csv`` first, then the curves and the HTML page, each file
whole or not at all: :mod:`subroc_ext.utils.atomic`) and then print the best ones
as a table. So nothing is lost when the output is cut short:

* bad input ends the command with exit code 2 and one line on stderr that
  names the problem, before any work;
* a file that cannot be written (full disk, permissions) is one line naming
  it, exit code 2, and no partial file (the results are still printed);
* a closed output pipe (``subroc-ext run ... | head -1``) ends quietly with
  exit code 141 (128 + SIGPIPE, as other commands end), every file written;
  a closed stderr only silences the status lines; a stdout that cannot be
  written (``>&-``, ``>/dev/full``) is one line on stderr and exit code 2,
  every file written;
* Ctrl-C ends with one line and exit code 130 (SIGTERM: 143); during the
  significance test the searched subgroups are kept in ``subgroups.csv``,
  untested;
* --out never mixes two runs: a run's files are written into a staging
  folder there and moved in together, after the earlier run's are removed;
  staging folders that SIGKILL left behind are removed by the next run.

``subroc-ext compare DATA`` (two models) and ``subroc-ext drift REFERENCE
CURRENT`` (two periods) find where a ranking got worse and write the table
(CSV).
"""

import contextlib
import signal
import sys
import threading
import warnings

from .arguments import build_parser
from .commands import compare_command, demo_command, drift_command, run_command
from .output import FAILED, PIPE_CLOSED, PROG, GuardedStream, on_sigterm, report_interrupted

__all__ = ["main"]

#: The function of each command.
COMMANDS = {"demo": demo_command, "run": run_command, "compare": compare_command, "drift": drift_command}


def main(argv=None):
    """Run the ``subroc-ext`` command line.

    Parameters
    ----------
    argv : list of str, optional
        Arguments without the program name (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        Exit code: 0 on success, 2 on bad input or arguments, a failed write
        or a stdout that cannot be written, 130 after Ctrl-C, 141 when the
        output pipe was closed (after every file was written), 143 after
        SIGTERM.
    """
    streams = sys.stdout, sys.stderr
    out = sys.stdout = GuardedStream(sys.stdout)
    sys.stderr = GuardedStream(sys.stderr)
    try:
        code = _run(argv)
        out.flush()  # a closed pipe or a full disk shows here, not in Python's flush at exit
        if out.error is None:
            return code
        if isinstance(out.error, BrokenPipeError):
            return PIPE_CLOSED
        print(f"{PROG}: error: cannot write to standard output: {out.error.strerror or out.error}"
              + ("; every file was written" if code == 0 else ""), file=sys.stderr)  # fmt: skip
        return code or FAILED
    finally:
        sys.stdout, sys.stderr = streams


def _run(argv):
    """Parse ``argv`` and run its command; the exit code."""
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as stop:  # --help, or a usage error already printed
        return stop.code
    try:
        with warnings.catch_warnings(), _handled(signal.SIGTERM, on_sigterm(args)):
            warnings.showwarning = _show_warning
            return COMMANDS[args.command](args)
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM
        return report_interrupted(args)


@contextlib.contextmanager
def _handled(number, handler):
    """Signal ``number`` handled by ``handler`` in the block (in the main thread,
    the only one where Python runs signal handlers; elsewhere as before)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(number, handler)
    try:
        yield
    finally:
        signal.signal(number, previous)


def _show_warning(message, category, filename, lineno, file=None, line=None):
    """A warning as one line on stderr (columns left out of the search space, ...)."""
    print(f"{PROG}: warning: {message}", file=sys.stderr)

