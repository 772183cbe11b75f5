"""The release gate of ``run``, ``compare`` and ``drift``: ``findings.json``,
``--format json`` and ``--fail-on``.

Every run writes ``findings.json`` beside ``subgroups.csv``, in the same
staging folder (:func:`~subroc_ext.cli.output.finish`), so the two always
come from one run. ``--format json`` prints that document on stdout instead
of the console table (which then goes to stderr). ``--fail-on failure``
ends the command with :data:`GATE_FAILED` when the headline names a failure
(:func:`~subroc_ext.reporting.gate.gate_reason`, from the rows the headline
names), after every file is written; the last line printed says the code
and why (on stdout, or on stderr with ``--format json``).
"""

import contextlib
import sys

from ..reporting.findings_json import FINDINGS_FILE, findings_json
from ..reporting.gate import gate_reason
from ..utils.atomic import atomic_path
from .arguments import GATE_FAILED, PROG

__all__ = ["GATE_FAILED", "gated"]


def gated(args, table, splits, finish):
    """Write and print a result (``finish(findings)``, ``findings(folder)``
    writing ``findings.json`` into the staging folder), then judge the gate.

    Parameters
    ----------
    args : argparse.Namespace
        ``format`` ('text' or 'json') and ``fail_on`` (None or 'failure').
    table : pandas.DataFrame
        The result.
    splits : dict of str to pandas.DataFrame
        The data of each split, for the document's rows and positives.
    finish : callable
        ``finish(findings)`` writes the files and prints; returns the exit code.

    Returns
    -------
    int
        ``finish``'s code if not 0; else :data:`GATE_FAILED` when
        ``--fail-on`` is given and the headline names a failure, else 0.
    """
    text = findings_json(table, splits={name: frame for name, frame in splits.items() if frame is not None})

    def write(folder):
        with atomic_path(folder / FINDINGS_FILE) as part:
            part.write_text(text, encoding="utf-8")

    as_json = args.format == "json"
    with contextlib.redirect_stdout(sys.stderr) if as_json else contextlib.nullcontext():
        code = finish(write)
    if as_json:
        print(text, end="")
    if code != 0 or args.fail_on is None:
        return code
    reason = gate_reason(table)
    if reason is None:
        _say(f"{PROG}: gate passed (exit code 0): the headline names no failure", as_json)
        return 0
    _say(f"{PROG}: gate failed (exit code {GATE_FAILED}): {reason}", as_json)
    return GATE_FAILED


def _say(line, as_json):
    """Print the gate's line on stdout (stderr with ``--format json``); where stdout
    cannot be written (``>/dev/full``, a closed pipe), on stderr too, so that it is
    never lost (the command then ends with exit code 2 or 141, :func:`subroc_ext.cli.main`)."""
    stream = sys.stderr if as_json else sys.stdout
    print(line, file=stream, flush=True)
    if getattr(stream, "error", None) is not None:  # a GuardedStream that failed
        print(line, file=sys.stderr)
