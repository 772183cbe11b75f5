"""What the commands print and write: the results table, the files (each whole or
not at all, subgroups.csv first), and the one-line messages of a failure or an
interruption.
"""

import os
import signal
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from ..inputs.search_space import make_search_space
from ..metrics.covers import subgroup_membership
from ..reporting.comparison_report import write_comparison_report
from ..reporting.findings import headline
from ..reporting.page import format_p_value
from ..reporting.report import STOPPED, intervals_text, p_value_text
from ..utils.atomic import atomic_directory, atomic_path
from .arguments import PROG

__all__ = [
    "PROG",
    "FAILED",
    "INTERRUPTED",
    "PIPE_CLOSED",
    "to_devnull",
    "print_status",
    "fail",
    "why_empty",
    "check_out",
    "finish",
    "keep_untested",
    "report_interrupted",
    "finish_comparison",
]


#: Number of subgroups printed.
_PRINTED = 10


#: Exit codes: bad input or a failed write; Ctrl-C (128 + SIGINT); a closed
#: output pipe (128 + SIGPIPE), as the shell reports commands ended by them.
FAILED, INTERRUPTED, PIPE_CLOSED = 2, 130, 141


def to_devnull(stream):
    """Point ``stream``'s file descriptor at the null device, so that no later
    write (nor Python's flush at exit) fails on a closed pipe (the Python
    documentation's "Note on SIGPIPE", module ``signal``)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, stream.fileno())
    os.close(devnull)


def print_status(args, message):
    """Print a status line on stderr unless ``--quiet``; a closed stderr does
    not stop the work."""
    if args.quiet:
        return
    try:
        print(message, file=sys.stderr, flush=True)
    except BrokenPipeError:
        to_devnull(sys.stderr)


def fail(error):
    """Print ``error`` as one line on stderr and return exit code 2."""
    message = error.args[0] if isinstance(error, KeyError) and error.args else str(error)
    print(f"{PROG}: error: {' '.join(str(message).split())}", file=sys.stderr)
    return FAILED


def _bound(value):
    return "-" if pd.isna(value) else f"{value:.3f}"


def _effects(table, shown):
    """``delta [low, high]`` of the top ``shown`` rows: each effect with its interval (if any)."""
    return [
        "-" if pd.isna(delta) else f"{delta:.3f}" + (
            "" if pd.isna(low) and pd.isna(high) else f" [{_bound(low)}, {_bound(high)}]"
        )
        for delta, low, high in table[["delta", "delta_ci_low", "delta_ci_high"]].head(shown).to_numpy()
    ]  # fmt: skip


def _text_table(table, columns, shown=_PRINTED):
    """The top ``shown`` rows of ``table`` as aligned text, one format for every
    command: ``columns`` maps each column to its header; numbers with three
    decimals (counts with thousands separators, p-values as the reports write
    them), flags as yes/no, the effect with its interval (``delta``) as one
    cell."""
    top = table[[c for c in columns if c in table.columns]].head(shown)
    if "delta_ci_low" in table.columns and "delta" in top.columns:  # the effect with its interval, if any
        top = top.assign(delta=_effects(table, shown))
    if {"p_value_exact", "p_value_corrected"} <= set(top.columns) | {"p_value_exact"} and "p_value_exact" in table:
        # a bound where the test stopped once the decision was settled
        top = top.assign(p_value_corrected=[
            p_value_text(p, exact) for p, exact in table[["p_value_corrected", "p_value_exact"]].head(shown).to_numpy()
        ])  # fmt: skip
    top.index = range(1, len(top) + 1)
    width = max([len("description"), *map(len, top["description"])])
    p_width = max([len("p_value_corrected"), *(len(str(v)) for v in top.get("p_value_corrected", []))])

    def cell(name):
        kind = top[name].dtype
        if name == "description":
            return lambda text: text.ljust(width)
        if name == "p_value_corrected" and not pd.api.types.is_numeric_dtype(kind):  # text: '≤ p (stopped)'?
            return lambda text: text.ljust(p_width)
        if name.startswith("p_value"):
            return format_p_value
        if pd.api.types.is_bool_dtype(kind):
            return lambda flag: "yes" if flag else "no"
        if pd.api.types.is_integer_dtype(kind):
            return lambda value: "-" if pd.isna(value) else f"{value:,}"
        if pd.api.types.is_float_dtype(kind):
            return lambda value: "-" if pd.isna(value) else f"{value:.3f}"
        return str

    text = top.rename(columns=columns).to_string(
        formatters={columns[name]: cell(name) for name in top.columns}, justify="left"
    )
    return "\n".join(line.rstrip() for line in text.splitlines()) + _notes(table, shown)


def _notes(table, shown):
    """The verdict notes of the top ``shown`` rows that have one, one line each
    ('' without; the same note on every row, as without a holdout, is left to the summary)."""
    if "verdict_note" not in table.columns:
        return ""
    notes = table["verdict_note"].head(shown).fillna("")
    if notes.nunique() == 1:
        return ""
    return "".join(f"\n  {rank}. {note}" for rank, note in enumerate(notes, 1) if note)


def _format_results(table, measure, shown=_PRINTED):
    """The top ``shown`` rows of a ``find_subgroups`` table as aligned text."""
    names = ["description", "size_search", "ncr_search", f"{measure}_search",
             f"{measure}_validation", "delta", "p_value_corrected", "significant"]  # fmt: skip
    return _text_table(table, {name: name for name in names}, shown)


def _comparison(mode):
    """How the subgroups' measure compares with the whole data's, in words."""
    return {
        "worse": "is worse than on the whole data", "better": "is better than on the whole data",
    }.get(mode, "differs from the whole data")  # fmt: skip


def why_empty(table, search, measure, space):
    """Why a search found nothing, in one sentence: no condition is left, every
    condition is smaller than the minimum support, or none is exceptional.

    ``space`` holds the keywords :func:`~subroc_ext.make_search_space` made
    the search space with (``ignore``: the label, score and ignored columns)."""
    attrs = table.attrs
    min_support = attrs["min_support"]
    selectors = list(make_search_space(search, warn=False, **space))
    if not selectors:
        return (
            "no column is left to describe subgroups with (every column is the label, a "
            "score or --ignore'd)"
        )
    sizes = [int(pd.Series(selector.covers(search)).sum()) for selector in selectors]
    largest = max(range(len(sizes)), key=sizes.__getitem__)
    if sizes[largest] < min_support:
        return (
            f"every condition covers fewer rows than the minimum support of {min_support:,} "
            f"(the largest, {selectors[largest]}, covers {sizes[largest]:,}); lower --min-support"
        )
    return (
        f"no subgroup of at least {min_support:,} rows and at most {attrs['depth']} "
        f"condition(s) has a {measure} that {_comparison(attrs['mode'])}"
    )


def _print_results(table, measure, n_search, n_validation, runtime, why_empty):
    """Print the headline, the top subgroups (or ``why_empty()``), the whole
    data's measure and the runtime (``n_validation`` None: no holdout)."""
    attrs = table.attrs
    whole = attrs["dataset_values"]
    tested = "tested on the same rows" if n_validation is None else f"tested on {n_validation:,} held-out rows"
    if len(table) == 0:
        print(f"No subgroup found in the {n_search:,} searched rows: {why_empty()}.")
    else:
        print(headline(table).text() + "\n")
        print(
            f"Top {min(_PRINTED, len(table))} of {len(table)} distinct subgroups by quality, where "
            f"the {measure} {_comparison(attrs['mode'])} (searched {n_search:,} rows, {tested}):\n"
        )
        print(_format_results(table, measure))
    splits = [f"{whole[f'{measure}_search']:.3f} (search)"]
    if f"{measure}_validation" in whole:
        splits.append(f"{whole[f'{measure}_validation']:.3f} (validation)")
    print(f"\nWhole data: {measure} {', '.join(splits)}.")
    if len(table):
        print(f"Test: {_decision_text(attrs)}, {_samples_text(attrs)}.")
    if len(table) and "p_value_exact" in table.columns and not table["p_value_exact"].fillna(True).all():
        print(f"p: {STOPPED}.")
    if len(table) and "delta" in table.columns:
        rows = "validation rows" if n_validation is not None else "rows"
        print(
            f"delta: the {measure} on the subgroup's {rows} minus on all of them, "
            f"positive = {attrs['mode']}; {intervals_text(attrs, 1 - attrs['alpha'])}"
        )
    print(f"Runtime: {runtime:.1f} s.")


def _decision_text(attrs):
    """The rule of ``significant``, for the summary line."""
    if not attrs.get("holdout", True):
        return f"{attrs['method']} permutation test, family-wise error <= {attrs['alpha']}"
    rule = f"{attrs['method']}-corrected p <= {attrs['alpha']}"
    if attrs.get("intervals") == "fcr":
        rule += f" and the interval beyond {attrs.get('min_delta', 0):g}"
    return rule


def _samples_text(attrs):
    """How many random subsets (or permuted searches) the test drew, for the summary line."""
    if not attrs.get("holdout", True):
        return f"{attrs.get('null_samples_drawn', 0):,} permuted searches"
    if attrs["n_samples"] == "adaptive":
        return (
            f"adaptive: {attrs.get('null_samples_drawn', 0):,} random subsets drawn in all, "
            f"at most {attrs['max_samples']:,} per test"
        )
    return f"{attrs['n_samples']:,} random subsets per test"


def check_out(out):
    """Create the report directory ``out`` if needed and make sure files can be
    written there, so that a bad ``--out`` fails before the search, not after."""
    path = Path(out)
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as error:
        raise ValueError(
            f"cannot write the report to '{out}': {error.strerror or error}"
        ) from None
    return path


def _export_rows(table, splits, folder):
    """Write ``rows.csv`` into ``folder``: split, row and one 0/1 column per subgroup."""
    parts = []
    for name, frame in splits.items():
        membership = subgroup_membership(table, frame).astype(np.int8)
        membership.insert(0, "row", frame.index)
        membership.insert(0, "split", name)
        parts.append(membership)
    pd.concat(parts).to_csv(Path(folder) / "rows.csv", index=False)


def _write_outputs(table, out, report=None):
    """Write ``subgroups.csv``, then the files ``report(folder)`` writes, each
    whole or not at all.

    Returns
    -------
    (list of str, OSError or None)
        The names of the files written, in order, and the error that stopped
        the writing (its ``filename`` is the file that failed).
    """
    written = []
    try:
        with atomic_path(out / "subgroups.csv") as part:
            table.drop(columns="subgroup", errors="ignore").to_csv(part, index=False)
        written.append("subgroups.csv")
        if report is not None:
            with atomic_directory(out) as folder:
                report(folder)
                names = sorted(path.name for path in folder.iterdir())
            written += [name for name in names if name not in written]
    except OSError as error:
        return written, error
    return written, None


def _write_failed(error):
    """Print the one line of a failed write."""
    print(f"{PROG}: error: cannot write '{error.filename}': {error.strerror or error}", file=sys.stderr)


def finish(args, table, *, measure, search, validation, start, space, report=None, note=None):
    """Write the files, then print the results; return the exit code.

    ``space`` is the search space's keywords (for :func:`why_empty`);
    ``report(folder, runtime)`` writes the report's files into ``folder``
    (after ``subgroups.csv``), then ``rows.csv`` with ``--export-rows``;
    ``note`` is printed after the results.
    """
    out = Path(args.out)
    replaced = report is not None and (out / "report.html").exists()
    runtime = time.perf_counter() - start

    def report_and_rows(folder):
        report(folder, runtime)
        if args.export_rows:
            splits = {"search": search} if validation is None else {"search": search, "validation": validation}
            _export_rows(table, splits, folder)

    written, error = _write_outputs(table, out, None if report is None else report_and_rows)
    _print_results(
        table, measure, len(search), None if validation is None else len(validation), runtime,
        lambda: why_empty(table, search, measure, space),
    )  # fmt: skip
    if note:
        print(note)
    if error is not None:
        _write_failed(error)
        return FAILED
    if "report.html" in written:
        others = ", ".join(name for name in written if name != "report.html")
        print(
            f"Report: {(out / 'report.html').resolve()} (with {others})"
            + ("; it replaces the report an earlier run wrote there." if replaced else ".")
        )
    else:
        print(f"Table: {(out / 'subgroups.csv').resolve()}.")
    return 0


def keep_untested(interrupted, args):
    """Ctrl-C during the significance test: write the searched subgroups,
    untested, to ``subgroups.csv`` and say so in one line; exit code 130."""
    table = interrupted.table
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # one more Ctrl-C: still one line
    try:
        _, error = _write_outputs(table, Path(args.out))
    finally:
        signal.signal(signal.SIGINT, previous)
    kept = (
        f"cannot write '{error.filename}': {error.strerror or error}" if error is not None
        else f"the {len(table):,} searched subgroups are in "
             f"{(Path(args.out) / 'subgroups.csv').resolve()}, untested (no p-values)"
    )  # fmt: skip
    report_interrupted(args, f"during the significance test; {kept}")
    return INTERRUPTED


def report_interrupted(args, what=""):
    """Print the one line of Ctrl-C, below a progress bar that may be cut short."""
    line = f"{PROG}: interrupted{' ' + what if what else ''}"
    print(line if args.quiet else f"\n{line}", file=sys.stderr)


def finish_comparison(table, args, sides, start, validation, current=None):
    """Write subgroups.csv, then the report (each whole or not at all: a failed
    report leaves the table), print the top subgroups of a comparison; return
    the exit code. ``validation``: the validation split (of the reference
    period, ``current`` that of the current period)."""
    out = Path(args.out)
    replaced = (out / "report.html").exists()
    runtime = time.perf_counter() - start

    def report(folder):
        write_comparison_report(table, validation, folder, current=current, runtime=runtime)

    written, error = _write_outputs(table, out, report)  # the files first, then the printing
    measure, whole = table.attrs["measure"], table.attrs["dataset_values"]
    suffix = "" if sides[0] == "baseline" else "_current"
    old = f"{measure}_{'baseline' if sides[0] == 'baseline' else 'reference'}_validation"
    shown = {"description": "description", "delta_search": "delta (search)",
             old: f"{sides[0]} (validation)", f"{measure}{suffix}_validation": f"{sides[1]} (validation)",
             "delta": "delta (validation)", "p_value_corrected": "p (corrected)",
             "significant": "significant"}  # fmt: skip
    print(headline(table).text() + "\n")
    if len(table):
        print(f"Top {min(_PRINTED, len(table))} of {len(table)} distinct subgroups by quality, where "
              f"the {measure} of the {sides[1]} {'model' if sides[0] == 'baseline' else 'period'} "
              f"changed more ({args.mode}) than on the whole data, relative to the {sides[0]}:\n")  # fmt: skip
        print(_text_table(table, shown))
    print("\nWhole data: " + ", ".join(f"{key} {value:.3f}" for key, value in whole.items()) + ".")
    if len(table) and "delta_ci_low" in table.columns:
        print(f"Test: {_decision_text(table.attrs)}; [{intervals_text(table.attrs, 1 - table.attrs['alpha'])}]")
    if error is not None:
        _write_failed(error)
        return FAILED
    others = ", ".join(name for name in written if name != "report.html")
    print(f"Runtime: {runtime:.1f} s. Report: {(out / 'report.html').resolve()} (with {others})"
          + ("; it replaces the report an earlier run wrote there." if replaced else "."))  # fmt: skip
    return 0
