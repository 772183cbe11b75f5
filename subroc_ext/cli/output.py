"""What the commands print and write: the results table, the files (each whole or
not at all, subgroups.csv first), and the one-line messages of a failure or an
interruption.

Printing never stops the work: the command line runs with both standard
streams behind a :class:`~subroc_ext.cli.streams.GuardedStream`, so the files
are written whatever happens to the streams, and printed only then. Nor does
the data drive the terminal: the streams show its control characters as
escapes, and the subgroups' descriptions and the messages are printed
through :func:`~subroc_ext.utils.terminal.visible` (a newline or a tab in a
value shown as ``\\n``, ``\\t``, never breaking the table).
"""

import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from ..exceptions import keeping
from ..inference.note_words import BY_PROMISE, note_words
from ..inference.verdicts import UNTESTABLE
from ..inputs.search_space import make_search_space
from ..metrics.covers import subgroup_membership
from ..reporting.comparison_report import write_comparison_report
from ..reporting.cells import failure_label
from ..reporting.findings import CHECK_PREFIX, RANKS, finding_noun, headline, shown_positions, than_words
from ..reporting.page import format_p_value
from ..reporting.reading import (STOPPED, effect_meaning, effect_text, intervals_text, measure_title, p_value_text,
                                 splits_text)
from ..utils.atomic import atomic_directory, atomic_path, remove_stale
from ..utils.descriptions import condition_text
from ..utils.spreadsheet import write_csv
from ..utils.terminal import clipped, one_line, visible
from .arguments import PROG
from .streams import FAILED, PIPE_CLOSED, RESULT_FILES

__all__ = [
    "PROG",
    "FAILED",
    "PIPE_CLOSED",
    "RESULT_FILES",
    "print_status",
    "fail",
    "why_empty",
    "check_out",
    "finish",
    "out_folder",
    "write_outputs",
    "finish_comparison",
    "print_recheck",
]


#: Number of subgroups printed.
_PRINTED = 10


def print_status(args, message):
    """Print a status line on stderr unless ``--quiet``."""
    if not args.quiet:
        print(message, file=sys.stderr, flush=True)


def fail(error):
    """Print ``error`` as one line on stderr and return exit code 2; an error that
    carries a table (``partial``: it came after the search) is raised again, for
    :func:`subroc_ext.cli.kept.keep` to keep the table."""
    if getattr(error, "partial", None) is not None:
        raise error
    message = error.args[0] if isinstance(error, KeyError) and error.args else str(error)
    print(f"{PROG}: error: {one_line(message)}", file=sys.stderr)
    return FAILED


def _bound(value):
    return "-" if pd.isna(value) else effect_text(value)


def _effects(rows):
    """``delta [low, high]`` of ``rows``: each effect with its interval (if any)."""
    return [
        _bound(delta) if pd.isna(delta) else effect_text(delta) + (
            "" if pd.isna(low) and pd.isna(high) else f" [{_bound(low)}, {_bound(high)}]"
        )
        for delta, low, high in rows[["delta", "delta_ci_low", "delta_ci_high"]].to_numpy()
    ]  # fmt: skip


def _row_notes(rows):
    """The ``note`` of ``rows`` (a table's rows, its ``attrs``): what the headline rules said
    (failure, range restriction, variant or explained by another row), range
    restriction by the promise's share, the other side of a cut (where the
    table has those columns)."""
    notes = []
    for _, record in rows.iterrows():
        label = failure_label(record, rows.attrs)
        if not label and record.get("verdict") == UNTESTABLE:
            label = UNTESTABLE
        restricted = bool(record.get("range_restricted", False)) and label != "range restriction"
        other = record.get("complement_of", np.nan)
        parts = ([label] if label else []) + (["range-restricted"] if restricted else []) + (
            [] if pd.isna(other) else [f"other side: #{int(other)}"])  # fmt: skip
        notes.append("; ".join(parts))
    return notes


def _text_table(table, columns, shown=_PRINTED):
    """The top ``shown`` rows of ``table``, then every headline failure ranked
    below them (:func:`~subroc_ext.reporting.findings.shown_positions`), as
    aligned text, one format for every command: each row under its rank in
    the table; ``columns`` maps each column to its header; numbers with three
    decimals (counts with thousands separators, p-values as the reports write
    them), flags as yes/no, the effect with its interval (``delta``) as one
    cell; a ``note`` column, when asked for, says what the headline's rules
    said of each row, which rows are mostly range restriction and which are
    the two sides of one cut."""
    positions = shown_positions(table, shown)
    rows = table.iloc[positions]
    top = rows[[c for c in columns if c in table.columns]]
    if "delta_ci_low" in table.columns and "delta" in top.columns:  # the effect with its interval, if any
        top = top.assign(delta=_effects(rows))
    if "p_value_exact" in table.columns and "p_value_corrected" in top.columns:
        # a bound where the test stopped once the decision was settled
        top = top.assign(p_value_corrected=[
            p_value_text(p, exact) for p, exact in rows[["p_value_corrected", "p_value_exact"]].to_numpy()
        ])  # fmt: skip
    if "note" in columns and {"failure", "range_restricted", "complement_of"} & set(table.columns):
        top = top.assign(note=_row_notes(rows))
    return _aligned(top, columns, positions + 1) + _verdict_notes(rows, positions + 1)


def _aligned(top, columns, ranks):
    """``top`` as lines of text laid out here, not by pandas (whose spacing differs
    between versions): its ``ranks`` in the table (a line of ``...`` where
    they skip rows), then each column under its header in ``columns``, two
    spaces apart; ranks, text and flags left-aligned, numbers right-aligned."""

    def cells(name):
        values, kind = top[name], top[name].dtype
        if name.startswith("p_value") and pd.api.types.is_numeric_dtype(kind):
            return [format_p_value(v) for v in values], False
        if pd.api.types.is_bool_dtype(kind):
            return ["yes" if flag else "no" for flag in values], True
        if pd.api.types.is_integer_dtype(kind):
            return ["-" if pd.isna(v) else f"{v:,}" for v in values], False
        if pd.api.types.is_float_dtype(kind):
            return ["-" if pd.isna(v) else f"{v:.3f}" for v in values], False
        text = [str(v) for v in values]
        return text, name != "delta"  # the effect with its interval lines up on the right

    ranks = [str(rank) for rank in ranks]
    rank_width = max(map(len, ranks), default=0)
    headers, laid_out = [" " * rank_width], [[rank.ljust(rank_width) for rank in ranks]]
    for name in top.columns:
        text, left = cells(name)
        width = max([len(columns[name]), *map(len, text)])
        pad = str.ljust if left else str.rjust
        headers.append(pad(columns[name], width))
        laid_out.append([pad(value, width) for value in text])
    lines, before = ["  ".join(headers)], 0
    for rank, row in zip(ranks, zip(*laid_out)):
        if int(rank) > before + 1:  # rows left out between
            lines.append("...")
        lines.append("  ".join(row))
        before = int(rank)
    return "\n".join(line.rstrip() for line in lines)


def _verdict_notes(rows, ranks):
    """The verdict notes of ``rows`` (their ``ranks`` in the table) that have one, one line each
    ('' without; the same note on every row, as without a holdout, is left to the summary)."""
    if "verdict_note" not in rows.columns:
        return ""
    notes = rows["verdict_note"].fillna("")
    if notes.nunique() == 1:
        return ""
    return "\nWhere the test and the interval disagree:" + "".join(
        f"\n  #{rank}: {note}" for rank, note in zip(ranks, notes) if note
    )


def _format_results(table, measure, shown=_PRINTED):
    """The top ``shown`` rows of a ``find_subgroups`` table (and the failures below them) as aligned text;
    what the scores promise on the split the effects are measured on (without a holdout, the searched rows)."""
    split = "validation" if table.attrs.get("holdout", True) else "search"
    names = ["description", "size_search", "ncr_search", f"{measure}_search",
             f"{measure}_validation", f"expected_{measure}_{split}", "delta", "p_value_corrected",
             "significant", "note"]  # fmt: skip
    return _text_table(table, {name: name for name in names}, shown)


def _comparison_of(attrs):
    """:func:`_comparison` of a table's ``attrs``."""
    return _comparison(attrs["mode"], attrs.get("case_mix", False), attrs.get("measure"))


def _comparison(mode, case_mix=False, measure=None):
    """How the subgroups' measure compares with the whole data's, in words."""
    if measure == "calibration_gap":
        return {"worse": "shows risks underestimated more than on the whole data",
                "better": "shows risks overestimated more than on the whole data",
                }.get(mode, "shows risks miscalibrated more than on the whole data")  # fmt: skip
    if case_mix:
        return {
            "worse": "falls further short of what the scores promise than on the whole data",
            "better": "exceeds what the scores promise by more than on the whole data",
        }.get(mode, "departs from what the scores promise more than on the whole data")  # fmt: skip
    return {
        "worse": "is worse than on the whole data", "better": "is better than on the whole data",
    }.get(mode, "differs from the whole data")  # fmt: skip


def why_empty(table, search, measure, space, validation=None):
    """Why a search found nothing, in one sentence: no condition is left, every
    condition is smaller than the minimum support, or none is exceptional.

    ``space`` holds the keywords :func:`~subroc_ext.make_search_space` made
    the search space with (``ignore``: the label, score and ignored columns;
    with the ``validation`` rows, as the search did).
    Values rarer than the minimum support get no condition (the table's
    ``attrs['search_space']['rare_values']`` counts them), so only the
    conditions the search had are measured here."""
    attrs = table.attrs
    min_support = attrs["min_support"]
    selectors = list(make_search_space(search, warn=False, min_support=min_support, held_out=validation, **space))
    rare = sum(attrs.get("search_space", {}).get("rare_values", {}).values())
    sizes = [int(np.count_nonzero(selector.covers(search))) for selector in selectors]
    if not selectors and not rare:
        return (
            "no column is left to describe subgroups with (every column is the label, a "
            "score or --ignore'd)"
        )
    if not sizes or max(sizes) < min_support:
        candidates = [(size, str(selector)) for size, selector in zip(sizes, selectors)] + [
            (int(counts.max()), condition_text(name, "value", (counts.idxmax(),)))
            for name in attrs.get("search_space", {}).get("rare_values", {})
            for counts in [search[name].value_counts()]
        ]  # the rare values' largest, one per column: counted, not made into conditions
        size, largest = max(candidates, key=lambda candidate: candidate[0])
        return (
            f"every condition covers fewer rows than the minimum support of {min_support:,} "
            f"(the largest, {largest}, covers {size:,}); lower --min-support"
        )
    return (
        f"no subgroup of at least {min_support:,} rows and at most {attrs['depth']} "
        f"condition(s) has a {measure} that {_comparison_of(attrs)}"
    )


#: The widest description printed: a longer one (a column named by 10,000 characters) is cut in its
#: middle (:func:`~subroc_ext.utils.terminal.clipped`); the files keep it whole.
DESCRIPTION_WIDTH = 120


def _printable(table):
    """``table`` with its subgroups' descriptions as a terminal shows them
    (:func:`~subroc_ext.utils.terminal.visible`: the values and column names in them are data),
    each at most :data:`DESCRIPTION_WIDTH` characters."""
    if "description" not in table.columns:
        return table
    return table.assign(description=table["description"].map(lambda text: clipped(visible(text), DESCRIPTION_WIDTH)))


def _print_results(table, measure, n_search, n_validation, runtime, why_empty):
    """Print the headline, the top subgroups (or ``why_empty()``), the whole
    data's measure and the runtime (``n_validation`` None: no holdout)."""
    table = _printable(table)
    attrs = table.attrs
    whole = attrs["dataset_values"]
    tested = "tested on the same rows" if n_validation is None else f"tested on {n_validation:,} held-out rows"
    if len(table) == 0:  # the data checks still come first: a leak can leave nothing to find
        for check in attrs.get("data_checks", []):
            print(f"{CHECK_PREFIX} {visible(check)}")
        calibration = headline(table).calibration  # and the whole data's calibration
        if calibration:
            print(calibration)
        print(f"No subgroup found in the {n_search:,} searched rows: {visible(why_empty())}.")
    else:
        print(headline(table).text() + "\n")
        print(
            f"{_top_rows(table)}, where the {measure} {_comparison_of(attrs)} (searched "
            f"{n_search:,} rows, {tested}):\n"
        )
        print(_format_results(table, measure))
    splits = [f"{whole[f'{measure}_search']:.3f} (search)"]
    if f"{measure}_validation" in whole:
        splits.append(f"{whole[f'{measure}_validation']:.3f} (validation)")
    print(f"\nWhole data: {measure} {', '.join(splits)}.")
    _print_expected(table, measure)
    if len(table) and {"failure", "range_restricted", "complement_of"} & set(table.columns):
        print(f"note: {_notes_legend(table.attrs)}")
    if len(table):
        print(f"Test: {_decision_text(attrs)}, {_samples_text(attrs)}.")
    if len(table) and "p_value_exact" in table.columns and not table["p_value_exact"].fillna(True).all():
        print(f"p: {STOPPED}.")
    if len(table) and "delta" in table.columns:
        rows = "validation rows" if n_validation is not None else "rows"
        what = (
            f"the {measure}'s shortfall from what the scores promise on the subgroup's {rows} minus "
            "on all of them" if attrs.get("case_mix") else
            f"the {measure} on the subgroup's {rows} minus on all of them"
        )  # fmt: skip
        print(f"delta: {what}, positive = {effect_meaning(attrs)}; {intervals_text(attrs, 1 - attrs['alpha'])}"
        )
    print(f"Runtime: {runtime:.1f} s.")


def _print_expected(table, measure):
    """The whole data's expected ROC AUC, where the probabilities came from, and the notes."""
    whole = table.attrs["dataset_values"]
    splits = [(name, whole.get(f"expected_roc_auc_{name}", np.nan)) for name in ("search", "validation")]
    splits = [f"{value:.3f} ({name})" for name, value in splits if np.isfinite(value)]
    if measure != "roc_auc" or not splits:
        return
    print(
        f"Its scores promise {', '.join(splits)}, the expected ROC AUC if they were the true "
        f"probabilities; probabilities: {table.attrs.get('probabilities', 'the scores')}."
    )


def _top_rows(table, shown=_PRINTED):
    """What the printed table holds: ``'Top 10 of 100 distinct subgroups by quality'``, and
    the headline's failures ranked below them (``', then the failure ranked #65'``)."""
    below = [int(position) + 1 for position in shown_positions(table, shown) if position >= shown]
    then = ""
    if below:
        noun = finding_noun(table.attrs) + ("s" if len(below) > 1 else "")
        then = f", then the {noun} ranked " + ", ".join(f"#{rank}" for rank in below)
    return f"Top {min(shown, len(table))} of {len(table)} distinct subgroups by quality{then}"


def _notes_legend(attrs):
    """What the ranks and each word of the ``note`` column mean, in the words of the
    table's mode and measure (its promise's words where the rules checked one)."""
    mode, measure = attrs.get("mode", "worse"), attrs.get("measure", "roc_auc")
    words = note_words(mode, measure)
    sides = [note_words(side, measure) for side in ("worse", "better") if mode in (side, "both")]
    # every measure of a single model has a promise (a comparison: the ROC AUC's), when the scores are probabilities
    promised = (measure == "roc_auc" or "measure_kind" in attrs) and \
        not str(attrs.get("probabilities", "")).startswith("none")  # fmt: skip
    noun = finding_noun(attrs)
    terms = [RANKS, f"{noun} = named in the headline"]
    if not attrs.get("holdout", True) and promised:
        terms.append(f"{noun} {BY_PROMISE} = " + " or ".join(side.beyond for side in sides)
                     + ", tested over the whole search, where the table's test cannot tell")  # fmt: skip
    for side in sides if promised else []:
        terms += [f"{side.slice} = no {side.than} its own scores promise ({side.every})",
                  f"not shown {side.than} promised = {side.gap}, but not beyond chance"]  # fmt: skip
    than = than_words(attrs)
    terms += [
        f"variant #k = not significantly {than} the rest of {noun} #k",
        f"explained #k = not a {noun} outside {noun} #k",
        f"beside a {noun} #k = {than} the whole data only by holding {noun} #k's rows",
        *([f"range-restricted = at least half of the subgroup's {measure_title(measure)} {words.change} is what "
           "its own scores promise"] if promised else []),
        "other side = both sides of one cut are listed",
        f"{UNTESTABLE} = the measure is undefined on the rows it is tested on (a ROC AUC on rows of one class)",
    ]  # fmt: skip
    if promised and not attrs.get("case_mix") and measure == "roc_auc":
        terms.append("--case-mix ranks and tests by the shortfall instead")
    return "; ".join(terms)


def _decision_text(attrs):
    """The rule of ``significant``, for the summary line."""
    if not attrs.get("holdout", True):
        return f"{attrs['method']} permutation test, family-wise error <= {attrs['alpha']}"
    if attrs.get("splits"):
        return f"{splits_text(attrs)}: e-BH's level <= {attrs['alpha']} in the column p_value_corrected"
    rule = f"{attrs['method']}-corrected p <= {attrs['alpha']}"
    if attrs.get("intervals") == "fcr":
        rule += f" and the interval beyond {attrs.get('min_delta', 0):g}"
    return rule


def _samples_text(attrs):
    """How many random subsets, label draws (case mix) or permuted searches the test drew, for the
    summary line."""
    draws = "label draws" if attrs.get("case_mix") else "random subsets"
    if not attrs.get("holdout", True):
        searches = "label-draw searches" if attrs.get("case_mix") else "permuted searches"
        return f"{attrs.get('null_samples_drawn', 0):,} {searches}"
    if attrs["n_samples"] == "adaptive":
        return (
            f"adaptive: {attrs.get('null_samples_drawn', 0):,} {draws} in all, "
            f"at most {attrs['max_samples']:,} per test"
        )
    return f"{attrs['n_samples']:,} {draws} per test"


def out_folder(out):
    """``--out`` as a path; ``ValueError`` if it is empty (it would name the current
    folder, and the run would replace result files there)."""
    if not out:
        raise ValueError("--out is empty; name the folder for the results (e.g. --out report)")
    return Path(out)


def check_out(out):
    """Create the report directory ``out`` if needed and make sure files can be
    written there, so that a bad ``--out`` fails before the search, not after;
    remove the staging folders that killed runs left there."""
    path = out_folder(out)
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
        remove_stale(path)
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
    write_csv(pd.concat(parts), Path(folder) / "rows.csv")


def write_outputs(table, out, report=None, findings=None):
    """Write ``subgroups.csv``, then ``findings(folder)``'s file (``findings.json``),
    then the files ``report(folder)`` writes, into a staging folder, and move
    them into ``out`` together, after the files of an earlier run
    (:data:`RESULT_FILES`) are removed.

    If the report fails (an error, Ctrl-C), the table (and the findings) alone move in: the
    folder then holds this run's table and nothing of the earlier run; Ctrl-C
    is raised as an :class:`~subroc_ext.exceptions.InterruptedRun` of the
    ``'report'`` stage, an error other than ``OSError`` with its ``partial``
    (:func:`~subroc_ext.exceptions.keeping`), so that
    :func:`subroc_ext.cli.kept.keep` says what was kept.

    Returns
    -------
    (list of str, OSError or None)
        The names of the files written, in order, and the error that stopped
        the writing (its ``filename`` is the file that failed).
    """
    try:
        with keeping(table, "report", "finished", "the report was not written"), \
             atomic_directory(out, replaces=RESULT_FILES, keep=["subgroups.csv", "findings.json"]) as folder:
            with atomic_path(folder / "subgroups.csv") as part:  # whole, so it can be kept
                write_csv(table.drop(columns="subgroup", errors="ignore"), part)
            if findings is not None:
                findings(folder)
            if report is not None:
                report(folder)
            names = sorted(path.name for path in folder.iterdir() if path.name != "subgroups.csv")
    except OSError as error:
        return [], error
    return ["subgroups.csv", *names], None


def _write_failed(error):
    """Print the one line of a failed write."""
    print(f"{PROG}: error: cannot write '{error.filename}': {error.strerror or error}", file=sys.stderr)


def _write_files(args, table, report, splits, findings=None):
    """Write ``subgroups.csv``, ``findings(folder)``'s findings.json, the files ``report(folder)`` writes and, with
    ``--export-rows``, ``rows.csv`` of the frames ``splits`` (``{split name:
    frame}``) into ``--out`` (:func:`write_outputs`); the names written and the
    error that stopped the writing."""

    def report_and_rows(folder):
        report(folder)
        if args.export_rows:
            _export_rows(table, splits, folder)

    return write_outputs(table, Path(args.out), None if report is None else report_and_rows, findings)


def _printing(table):
    """The block that prints the results once every file is written: Ctrl-C there
    carries the table as written (:func:`~subroc_ext.exceptions.keeping`)."""
    return keeping(table, "print", "finished", "every file was written")


def finish(args, table, *, measure, search, validation, start, space, report=None, note=None, findings=None):
    """Write the files, then print the results; return the exit code.

    ``space`` is the search space's keywords (for :func:`why_empty`);
    ``findings(folder)`` writes ``findings.json`` after ``subgroups.csv``
    (:func:`~subroc_ext.cli.gate.gated`);
    ``report(folder, runtime)`` writes the report's files into ``folder``
    (after those), then ``rows.csv`` with ``--export-rows``;
    ``note`` is printed after the results.
    """
    out = Path(args.out)
    replaced = report is not None and (out / "report.html").exists()
    runtime = time.perf_counter() - start
    splits = {"search": search} if validation is None else {"search": search, "validation": validation}
    written, error = _write_files(
        args, table, None if report is None else (lambda folder: report(folder, runtime)), splits, findings
    )
    with _printing(table):
        _print_results(
            table, measure, len(search), None if validation is None else len(validation), runtime,
            lambda: why_empty(table, search, measure, space, validation),
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


def finish_comparison(table, args, sides, start, splits, validation, current=None, findings=None):
    """Write subgroups.csv, ``findings(folder)``'s findings.json, then the report (each whole or not at all: a failed
    report leaves the table) and, with ``--export-rows``, rows.csv of the
    frames ``splits`` (``{split name: frame}``); print the top subgroups of a
    comparison; return the exit code. ``validation``: the validation split
    (of the reference period, ``current`` that of the current period)."""
    out = Path(args.out)
    replaced = (out / "report.html").exists()
    runtime = time.perf_counter() - start

    def report(folder):
        write_comparison_report(table, validation, folder, current=current, runtime=runtime)

    written, error = _write_files(args, table, report, splits, findings)  # the files first, then the printing
    measure, whole = table.attrs["measure"], table.attrs["dataset_values"]
    suffix = "" if sides[0] == "baseline" else "_current"
    old = f"{measure}_{'baseline' if sides[0] == 'baseline' else 'reference'}_validation"
    shown = {"description": "description", "delta_search": "delta (search)",
             old: f"{sides[0]} (validation)", f"{measure}{suffix}_validation": f"{sides[1]} (validation)",
             "delta": "delta (validation)", "p_value_corrected": "p (corrected)",
             "significant": "significant", "note": "note"}  # fmt: skip
    with _printing(table):
        table = _printable(table)
        print(headline(table).text() + "\n")
        if len(table):
            print(f"{_top_rows(table)}, where "
                  f"the {measure} of the {sides[1]} {'model' if sides[0] == 'baseline' else 'period'} "
                  f"changed more ({args.mode}) than on the whole data, relative to the {sides[0]}:\n")  # fmt: skip
            print(_text_table(table, shown))
        print("\n" + _whole_comparison(whole, measure, sides))
        if len(table) and "delta_ci_low" in table.columns:
            print(f"Test: {_decision_text(table.attrs)}; [{intervals_text(table.attrs, 1 - table.attrs['alpha'])}]")
        if error is not None:
            _write_failed(error)
            return FAILED
        others = ", ".join(name for name in written if name != "report.html")
        print(f"Runtime: {runtime:.1f} s. Report: {(out / 'report.html').resolve()} (with {others})"
              + ("; it replaces the report an earlier run wrote there." if replaced else "."))  # fmt: skip
    return 0


def _whole_comparison(whole, measure, sides):
    """The whole data's measure of both sides on each split, as a sentence,
    with what each side's scores promise where known."""
    parts = []
    for split in ("search", "validation"):
        values = [whole.get(f"{measure}_{side}_{split}") for side in sides]
        if None in values:
            continue
        text = f"{measure} {values[0]:.3f} ({sides[0]}) and {values[1]:.3f} ({sides[1]}) on the {split} split"
        promised = [whole.get(f"expected_roc_auc_{side}_{split}") for side in sides]
        if None not in promised:
            text += f", their scores promising {promised[0]:.3f} and {promised[1]:.3f}"
        parts.append(text)
    return "Whole data: " + "; ".join(parts) + "."


def print_recheck(table, args):
    """Print a :func:`~subroc_ext.recheck` table: each finding's effect before and now."""
    settings = table.attrs["settings"]
    shown = {"description": "description", "failure_before": "failure before", "delta_before": "delta before",
             "size": "size", settings["measure"]: settings["measure"], "delta": "delta now",
             "trend": "trend", "credible": "credible"}  # fmt: skip
    print(f"{len(table):,} finding(s) of {args.findings} measured again on {args.data} "
          f"({settings['measure']} on all rows: {table.attrs['whole']:.3f}):\n")  # fmt: skip
    if len(table):
        print(_text_table(_printable(table), shown, shown=len(table)))
    level = settings.get("interval_level")
    print(f"\ndelta: the {settings['measure']} on the subgroup's rows minus on all of them, positive = "
          f"{settings['mode']}; intervals at the findings' {'' if level is None else f'{level:.1%} '}level; "
          f"trend: the effect grew (worse), shrank (better) or stayed; credible: the interval lies beyond "
          f"{settings.get('min_delta', 0):g}.")  # fmt: skip
