"""Whatever ends a command, what it computed is kept: the one place that writes
a cut run's table and says what was kept.

The pipelines hand over what they computed with whatever ends them after the
search (:func:`subroc_ext.exceptions.keeping`: Ctrl-C as an
:class:`~subroc_ext.exceptions.InterruptedRun`, an error with its
``partial``), and so does the writing of the files; SIGTERM ends a run as
Ctrl-C does (:func:`~subroc_ext.cli.streams.sigterm_as_interrupt`).
:func:`keeping_results` catches it around a command, and :func:`keep` writes the
table to ``--out/subgroups.csv`` (the missing columns absent or empty, the
earlier run's files removed) and says in one line what was kept and what is
missing. A run cut before anything was computed removes the earlier run's
files from ``--out`` and says so: the folder never presents an earlier run's
results as this run's.
"""

import contextlib
import functools
import signal
import sys

from .output import PROG, out_folder, write_outputs
from .streams import remove_earlier_results, report_interrupted

__all__ = ["keep", "keeping_results"]

#: The stages a run can be cut in, in words.
STAGES = {"test": "the significance test", "describe": "the description of the subgroups",
          "splits": "the splits", "report": "the report", "print": "the printing of the results"}  # fmt: skip


def keeping_results(command):
    """``command`` (a function of the parsed arguments returning the exit code)
    with whatever ends it handed to :func:`keep`."""

    @functools.wraps(command)
    def kept(args):
        try:
            return command(args)
        except BaseException as ended:  # keep() raises again what it cannot keep
            return keep(ended, args)

    return kept


@contextlib.contextmanager
def _signals_ignored():
    """One more Ctrl-C or SIGTERM while the table is written: still one line, the table whole."""
    previous = {number: signal.signal(number, signal.SIG_IGN) for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def keep(ended, args):
    """Keep what a command computed before ``ended`` ended it; the exit code.

    Parameters
    ----------
    ended : BaseException
        What ended the command: a ``KeyboardInterrupt`` (Ctrl-C, SIGTERM) or an
        error, with the table so far as its ``partial``
        (:class:`~subroc_ext.exceptions.Partial`) when the search had finished.
    args : argparse.Namespace
        The command's arguments (``out``, ``quiet``).

    Returns
    -------
    int
        130 after Ctrl-C, 143 after SIGTERM (:func:`~subroc_ext.cli.streams.report_interrupted`).

    Raises
    ------
    BaseException
        ``ended`` again if it is an error (after the line saying what was kept)
        or anything but a ``KeyboardInterrupt`` or an error with a table.
    """
    partial = getattr(ended, "partial", None)
    interrupted = isinstance(ended, KeyboardInterrupt)
    try:
        out = out_folder(args.out)
    except ValueError:  # --out refused: nothing is written
        out = None
    if out is None or (partial is None and not interrupted):
        raise ended
    with _signals_ignored():
        said = remove_earlier_results(out) if partial is None else _kept(partial, out)
    if interrupted:
        return report_interrupted(args, said)
    print(f"{PROG}: error {said}", file=sys.stderr)
    raise ended


def _kept(partial, out):
    """Write ``partial.table`` to ``out`` (but after the printing: every file is
    there); what was kept, in words."""
    stage = partial.when or f"during {STAGES[partial.stage]}"
    if partial.stage == "print":
        return f"{stage}; every file was written to {out.resolve()}"
    _, error = write_outputs(partial.table, out)
    if error is not None:
        return f"{stage}; cannot write '{error.filename}': {error.strerror or error}"
    path = (out / "subgroups.csv").resolve()
    if partial.stage == "report":
        return f"{stage}; the table was kept in {path}, the report was not written"
    return f"{stage}; the {len(partial.table):,} {partial.kept} subgroups are in {path}, {partial.missing}"
