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
* Ctrl-C ends with one line and exit code 130 (SIGTERM: 143) saying what
  was kept: the table computed so far is written to ``subgroups.csv``
  (searched; searched and tested; finished, without the report), and a run
  cut before anything was computed removes the earlier run's files
  (:mod:`subroc_ext.cli.kept`);
* --out never mixes two runs: a run's files are written into a staging
  folder there and moved in together, after the earlier run's are removed;
  staging folders that SIGKILL left behind are removed by the next run.

``subroc-ext compare DATA`` (two models) and ``subroc-ext drift REFERENCE
CURRENT`` (two periods) find where a ranking got worse and write the table
(CSV). Each of ``run``, ``compare`` and ``drift`` also writes ``findings.json``
and, with ``--fail-on failure``, ends with exit code 3 when the headline names a
failure (:mod:`subroc_ext.cli.gate`); ``subroc-ext recheck FINDINGS DATA``
measures the findings' subgroups again on new data.
"""

import importlib
import sys
import warnings

from ..utils.terminal import one_line
from .arguments import GATE_FAILED, PROG, build_parser
from .streams import (
    FAILED,
    PIPE_CLOSED,
    GuardedStream,
    remove_earlier_results,
    report_interrupted,
    sigterm_as_interrupt,
)

__all__ = ["main"]

#: The function of each command, in :mod:`subroc_ext.cli.commands` (imported
#: only once a command runs: ``--help`` and ``--version`` load nothing else).
COMMANDS = {"demo": "demo_command", "run": "run_command", "compare": "compare_command",
            "drift": "drift_command", "recheck": "recheck_command"}  # fmt: skip

#: The commands that write no file, only print.
PRINTS_ONLY = {"recheck"}


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
        or a stdout that cannot be written, 3 when ``--fail-on`` finds a failure
        (every file written), 130 after Ctrl-C, 141 when the
        output pipe was closed (after every file was written), 143 after
        SIGTERM.
    """
    streams = sys.stdout, sys.stderr
    out = sys.stdout = GuardedStream(sys.stdout)
    sys.stderr = GuardedStream(sys.stderr, keep="\n\r")  # \r: a progress bar's redraw
    try:
        code, command = _run(argv)
        out.flush()  # a closed pipe or a full disk shows here, not in Python's flush at exit
        if out.error is None:
            return code
        if isinstance(out.error, BrokenPipeError):
            return PIPE_CLOSED
        done = code in (0, GATE_FAILED)  # the gate's line was printed on stderr too (cli.gate)
        written = "; every file was written" if done and command not in PRINTS_ONLY else ""
        print(f"{PROG}: error: cannot write to standard output: {out.error.strerror or out.error}{written}",
              file=sys.stderr)  # fmt: skip
        return FAILED if done else code
    finally:
        sys.stdout, sys.stderr = streams


def _run(argv):
    """Parse ``argv`` and run its command; the exit code and the command (None if none ran)."""
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as stop:  # --help, or a usage error already printed
        return stop.code, None
    return _command(args), args.command


def _command(args):
    """Run the command of the parsed ``args``; the exit code."""
    try:
        _announce_compilation(args)
        from .warm_up import warming_up

        with warnings.catch_warnings(), sigterm_as_interrupt(args), warming_up(args):
            warnings.showwarning = _show_warning
            command = getattr(importlib.import_module(".commands", __name__), COMMANDS[args.command])
            return command(args)
    except (KeyboardInterrupt, ImportError) as stopped:  # Ctrl-C or SIGTERM; maybe mid-import: nothing more imported
        if isinstance(stopped, ImportError) and not getattr(args, "interrupted", False):
            raise  # an import that failed by itself (an interrupt inside an extension's import becomes one)
        writes = args.command not in PRINTS_ONLY and getattr(args, "out", None)
        return report_interrupted(args, remove_earlier_results(args.out) if writes else "")


def _announce_compilation(args):
    """Say so on stderr when the compiled kernels are not cached yet (the first
    run after an install or an update compiles them: about 30 s of CPU, for
    ``demo`` and ``run`` on two cores, :mod:`subroc_ext.cli.warm_up`; 60-70 s
    measured on a busy two-core machine, benchmarks/RESULTS.md)."""
    from ..utils.kernel_cache import kernels_cached

    if not args.quiet and not kernels_cached():
        print(f"{PROG}: compiling the search and test kernels for this machine (up to a minute, once "
              "per installed version; later runs start at once) ...", file=sys.stderr, flush=True)  # fmt: skip


def _show_warning(message, category, filename, lineno, file=None, line=None):
    """A warning as one line on stderr (columns left out of the search space, ...),
    the names and values in it unable to drive the terminal."""
    print(f"{PROG}: warning: {one_line(message)}", file=sys.stderr)
