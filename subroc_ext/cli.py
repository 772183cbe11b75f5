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
* Ctrl-C ends with one line and exit code 130; during the significance test
  the searched subgroups are kept in ``subgroups.csv``, untested.

``subroc-ext compare DATA`` (two models) and ``subroc-ext drift REFERENCE
CURRENT`` (two periods) find where a ranking got worse and write the table
(CSV).
"""

import argparse
import contextlib
import math
import os
import signal
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from . import __version__
from .utils.validation import MODES, check_columns, finite_scores, positive_mask
from .utils.atomic import atomic_directory, atomic_path
from .utils.cluster import INSTALL, require_distributed
from .workflow.comparison import find_drift, find_regressions, split_periods
from .reporting.comparison_report import write_comparison_report
from .demo.datasets import load_adult
from .exceptions import InterruptedTest
from .inputs.labels import infer_positive_label
from .demo.modelling import fit_and_score, split_parts
from .workflow.multiclass import find_multiclass_subgroups
from .workflow.pipeline import MEASURES, find_subgroups, split_validation
from .metrics.covers import subgroup_membership
from .reporting.multiclass import write_multiclass_report
from .reporting.report import write_report
from .inputs.search_space import make_search_space
from .inputs.tables import parse_separator, read_table

__all__ = ["main"]

PROG = "subroc-ext"
#: Exceptions that our input validation raises; anything else is a bug and propagates.
_INPUT_ERRORS = (ValueError, KeyError, FileNotFoundError, TypeError)
#: Number of subgroups printed.
_PRINTED = 10
#: Exit codes: bad input or a failed write; Ctrl-C (128 + SIGINT); a closed
#: output pipe (128 + SIGPIPE), as the shell reports commands ended by them.
_FAILED, _INTERRUPTED, _PIPE_CLOSED = 2, 130, 141

_DESCRIPTION = """\
Find interpretable subgroups of your data (e.g. sex=='Female' AND age<25) where
a binary classifier's ROC AUC, PR AUC, average ranking loss or AUC attribution is
exceptionally bad (or good), and test them for significance on held-out data
(the SubROC framework).

examples:
  subroc-ext demo                         # UCI Adult census income, under a minute
  subroc-ext run scored.csv --label y --score p --positive-label 1 --out report/
"""
_RUN_DESCRIPTION = """\
Search DATA (CSV, TSV or Parquet: one row per example with its attributes,
true label and the model's score) for subgroups where the model performs
exceptionally, test each on held-out validation rows, write a report to --out
(subgroups.csv, curves.png and a self-contained report.html) and print the
best. Every column except the label, the score and --ignore'd ones can appear
in a subgroup; numeric columns are cut into --nbins quantile bins. The seed
(--seed, default 0) fixes the validation split and the test's random subsets,
as random_state=0 does in the Python API: runs repeat exactly; pass other
seeds for other draws.

A multi-class model: --score-columns instead of --score (the measure is then
AUC_mu; --measure and --positive-label do not apply).

example:
  subroc-ext run scored.csv --label defaulted --score risk --positive-label yes \\
      --measure roc_auc --validation-fraction 0.5 --out credit-report/
  subroc-ext run scored.tsv --label marital --score-columns married,single,widowed
  subroc-ext run export.txt --sep ';' --encoding latin-1 --label y --score p
"""
_DEMO_DESCRIPTION = """\
Audit a gradient-boosting model on the UCI Adult census income data (48,842
rows, positive class '>50K'): split the rows into four random quarters (train,
search, validation, evaluation), train on the first, search the second for
subgroups with a bad ROC AUC (size and balance weights 1, generalization-aware,
at most 2 conditions, at least 20 rows, top 100), test them on the third,
print the top 10 and write a report to --out.
"""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr and exit code 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


class _Formatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """Keep the descriptions' line breaks and show the defaults that say something."""

    def _get_help_string(self, action):
        if isinstance(action.default, (bool, list, type(None))):
            return action.help
        return super()._get_help_string(action)


def _number(convert, kind, check):
    """An argparse type: ``convert`` the text and require ``check`` of the value."""

    def parse(text):
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {kind}, got {text!r}") from None
        if not check(value):
            raise argparse.ArgumentTypeError(f"expected {kind}, got {text!r}")
        return value

    return parse


_positive_int = _number(int, "a positive integer", lambda v: v >= 1)
_samples = _number(
    lambda text: text if text == "adaptive" else int(text), "'adaptive' or a positive integer",
    lambda v: v == "adaptive" or v >= 1,
)
_weight = _number(float, "a finite number >= 0", lambda v: math.isfinite(v) and v >= 0)
_fraction = _number(float, "a fraction strictly between 0 and 1", lambda v: 0 < v < 1)
_overlap = _number(float, "a Jaccard index between 0 and 1", lambda v: 0 <= v <= 1)
_seed = _number(int, "an integer >= 0", lambda v: v >= 0)
_support = _number(
    lambda text: int(text) if text.strip().lstrip("+-").isdigit() else float(text),
    "a number of rows (integer >= 0) or a fraction strictly between 0 and 1",
    lambda v: v >= 0 if isinstance(v, int) else 0 < v < 1,
)


def _score_columns(text):
    """``a,b,c`` (columns named like the classes they score) as a list, or
    ``CLASS=COLUMN,...`` as a dict ``{class text: column}``: at least two
    distinct columns."""
    items = [item.strip() for item in text.split(",")]
    named = ["=" in item for item in items]
    pairs = [tuple(part.strip() for part in item.split("=", 1)) for item in items]
    columns = [pair[-1] for pair in pairs]
    if (
        len(items) < 2 or not all(map(all, pairs)) or any(named) != all(named)
        or len(set(columns)) != len(columns) or len({pair[0] for pair in pairs}) != len(pairs)
    ):  # fmt: skip
        raise argparse.ArgumentTypeError(
            "expected at least two distinct comma-separated column names (A,B,C) or "
            f"CLASS=COLUMN pairs (yes=p_yes,no=p_no), got {text!r}"
        )
    return dict(pairs) if all(named) else columns


def _separator(text):
    """An argparse type: a field separator (see :func:`~subroc_ext.inputs.tables.parse_separator`)."""
    try:
        return parse_separator(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


_SAMPLES_HELP = (
    "random subsets per significance test: 'adaptive' draws until each subgroup's decision is "
    "known (up to 1,000,000), a number draws that many (the paper used 10,000)"
)


def _common_arguments(parser, samples_help):
    """Options shared by ``demo`` and ``run``."""
    parser.add_argument("--samples", type=_samples, metavar="N", help=samples_help)
    parser.add_argument("--seed", type=_seed, default=0, metavar="S",
                        help="seed of the data split(s) and the randomization test (the "
                             "API's random_state); other seeds give other draws")  # fmt: skip
    parser.add_argument("--quiet", action="store_true",
                        help="no progress bars or status messages on stderr")  # fmt: skip
    parser.add_argument("--export-rows", action="store_true",
                        help="also write rows.csv to the report directory: for every row of "
                             "the search and validation splits (split, row = its 0-based "
                             "position in its file) a 0/1 column per subgroup, named by its "
                             "description, in the order of subgroups.csv")  # fmt: skip


def _parser():
    """The argument parser of ``subroc-ext`` and its ``demo`` and ``run`` commands."""
    parser = _Parser(prog=PROG, description=_DESCRIPTION, formatter_class=_Formatter)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    demo = commands.add_parser(
        "demo", help="audit a model on the UCI Adult data (runs in under a minute)",
        description=_DEMO_DESCRIPTION, formatter_class=_Formatter,
    )  # fmt: skip
    demo.add_argument("--out", default="subroc-ext-demo", metavar="DIR",
                      help="directory for the report")  # fmt: skip
    _common_arguments(demo, _SAMPLES_HELP)
    demo.set_defaults(handler=_demo, samples="adaptive")

    run = commands.add_parser(
        "run", help="find and test subgroups in your own scored data",
        description=_RUN_DESCRIPTION, formatter_class=_Formatter,
    )  # fmt: skip
    run.add_argument("data", metavar="DATA",
                     help="a .csv, .tsv (also compressed, e.g. .csv.gz) or .parquet file, or "
                          "any delimited text with --sep")  # fmt: skip
    run.add_argument("--sep", type=_separator, metavar="C",
                     help="field separator of DATA and --validation (default: ',' for .csv, tab "
                          "for .tsv; e.g. --sep ';' or --sep '\\t')")  # fmt: skip
    run.add_argument("--encoding", metavar="E",
                     help="text encoding of DATA and --validation (default: utf-8; e.g. "
                          "latin-1)")  # fmt: skip
    run.add_argument("--label", required=True, metavar="COL",
                     help="column of true binary labels")  # fmt: skip
    scores = run.add_mutually_exclusive_group(required=True)
    scores.add_argument("--score", metavar="COL",
                        help="column of model scores, higher meaning more likely positive")  # fmt: skip
    scores.add_argument("--score-columns", type=_score_columns, metavar="A,B,C",
                        help="a multi-class model instead: one score column per class, each "
                             "named like the label value it scores, or CLASS=COLUMN pairs "
                             "(e.g. 0=p0,1=p1,2=p2); the measure is then AUC_mu")  # fmt: skip
    run.add_argument("--positive-label", metavar="V",
                     help="label value of the positive class (needed unless the labels "
                          "are 0/1 or true/false)")  # fmt: skip
    held_out = run.add_mutually_exclusive_group()
    held_out.add_argument("--validation", metavar="FILE",
                          help="held-out rows for the significance test (then all of DATA "
                               "is searched)")  # fmt: skip
    held_out.add_argument("--validation-fraction", type=_fraction, default=0.5, metavar="F",
                          help="share of DATA's rows held out for the significance test, "
                               "unless --validation is given")  # fmt: skip
    run.add_argument("--measure", choices=sorted(MEASURES),
                     help="performance measure (default: roc_auc; multi-class models: "
                          "AUC_mu)")  # fmt: skip
    run.add_argument("--mode", choices=MODES, default="worse",
                     help="look for subgroups where the model is worse, better or "
                          "either")  # fmt: skip
    run.add_argument("--size-weight", type=_weight, default=1.0, metavar="A",
                     help="exponent of the subgroup size in the quality (0: ignore "
                          "size)")  # fmt: skip
    run.add_argument("--balance-weight", type=_weight, default=1.0, metavar="B",
                     help="exponent of the class balance in the quality (0: ignore "
                          "balance)")  # fmt: skip
    run.add_argument("--no-generalization-awareness", dest="generalization_aware",
                     action="store_false",
                     help="rank patterns by their own quality, not by their gain over "
                          "their best shorter pattern")  # fmt: skip
    run.add_argument("--depth", type=_positive_int, default=2, metavar="D",
                     help="maximum number of conditions per subgroup")  # fmt: skip
    run.add_argument("--min-support", type=_support, default=20, metavar="M",
                     help="minimum number of searched rows in a subgroup, or their share "
                          "(e.g. 0.01)")  # fmt: skip
    run.add_argument("--nbins", type=_positive_int, default=5, metavar="N",
                     help="quantile bins per numeric column")  # fmt: skip
    run.add_argument("--top", type=_positive_int, default=100, metavar="K",
                     help="number of subgroups to find and test")  # fmt: skip
    run.add_argument("--no-collapse", dest="collapse_identical", action="store_false",
                     help="list descriptions of the same rows as separate subgroups (by "
                          "default they are one row, the others under 'alternatives')")  # fmt: skip
    run.add_argument("--max-overlap", type=_overlap, default=None, metavar="J",
                     help="drop subgroups whose rows overlap a better one's by a Jaccard "
                          "index above J (0-1) before testing, for a diverse result")  # fmt: skip
    run.add_argument("--ignore", nargs="+", action="extend", default=[], metavar="COL",
                     help="columns not to use in subgroup descriptions")  # fmt: skip
    run.add_argument("--bins-only", dest="thresholds", action="store_false",
                     help="numeric columns as quantile bins only, no thresholds (the SubROC "
                          "paper's search space, pysubgroup's create_selectors)")  # fmt: skip
    run.add_argument("--keep-ids", action="store_true",
                     help="keep ID-like columns (all or nearly all values distinct) in the "
                          "search space")  # fmt: skip
    run.add_argument("--threshold", type=_number(float, "a finite number", math.isfinite),
                     metavar="T",
                     help="operating point of the report's false-positive rate, false-negative "
                          "rate and precision per subgroup (score >= T predicts positive; "
                          "default: the Youden threshold of the search split)")  # fmt: skip
    run.add_argument("--out", default="subroc-ext-report", metavar="DIR",
                     help="directory for the report")  # fmt: skip
    cluster = run.add_mutually_exclusive_group()
    cluster.add_argument("--scheduler", metavar="ADDRESS",
                         help="run the search and the significance tests on the Dask cluster "
                              "whose scheduler listens at ADDRESS (e.g. tcp://10.0.0.5:8786; "
                              f"needs {INSTALL} here and on the workers); the results are the "
                              "same as on one process")  # fmt: skip
    cluster.add_argument("--jobs", type=_positive_int, metavar="N",
                         help="run the search and the significance tests on N threads (the "
                              "same results; before, N Dask worker processes)")  # fmt: skip
    _common_arguments(run, _SAMPLES_HELP)
    run.set_defaults(handler=_run, samples="adaptive")
    _comparison_parsers(commands)
    return parser


def _to_devnull(stream):
    """Point ``stream``'s file descriptor at the null device, so that no later
    write (nor Python's flush at exit) fails on a closed pipe (the Python
    documentation's "Note on SIGPIPE", module ``signal``)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, stream.fileno())
    os.close(devnull)


def _status(args, message):
    """Print a status line on stderr unless ``--quiet``; a closed stderr does
    not stop the work."""
    if args.quiet:
        return
    try:
        print(message, file=sys.stderr, flush=True)
    except BrokenPipeError:
        _to_devnull(sys.stderr)


def _read(path, what, args):
    """Read ``path`` with the command's ``--sep`` and ``--encoding``."""
    return read_table(path, what, sep=args.sep, encoding=args.encoding)


def _split(data, args):
    """The search and validation parts: DATA split by ``--seed``, or DATA and ``--validation``."""
    if args.validation is None:
        return split_validation(data, args.validation_fraction, args.seed)
    return data, _read(args.validation, "validation", args)


def _positive_label(labels, text, name):
    """The positive class of ``labels`` given as command-line ``text`` (or None).

    The text is converted to the column's type ('1' -> 1 for integers,
    'true'/'false' for booleans); without it, the API's rule applies
    (:func:`~subroc_ext.inputs.labels.infer_positive_label`: 1 or True for {0, 1},
    {-1, 1} and boolean labels, else an error asking for --positive-label).
    Raises ``ValueError`` unless the column is binary, without missing
    values, with the positive label among its values.
    """
    if text is None:
        return infer_positive_label(labels, name, option="--positive-label")
    positive = _convert_label(text, labels, name)
    positive_mask(labels, positive, name)
    return positive


def _convert_label(text, labels, name, option="--positive-label"):
    """``text`` (given with ``option``) as a value of the type of the column ``labels``."""
    dtype = labels.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        dtype = dtype.categories.dtype
    if pd.api.types.is_bool_dtype(dtype):
        spellings = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}
        if text.strip().lower() not in spellings:
            raise ValueError(
                f"{option} {text!r} is not a boolean, but label column {name!r} "
                "holds booleans; use true or false"
            )
        return spellings[text.strip().lower()]
    for kind, convert, check in (
        ("an integer", int, pd.api.types.is_integer_dtype),
        ("a number", float, pd.api.types.is_float_dtype),
    ):
        if check(dtype):
            try:
                return convert(text)
            except ValueError:
                raise ValueError(
                    f"{option} {text!r} is not {kind}, but label column {name!r} "
                    f"holds {dtype} values"
                ) from None
    return text


#: Why an option of binary models is refused for a multi-class one.
_NOT_MULTICLASS = {
    "--measure": "a multi-class model (--score-columns) is measured by AUC_mu, which "
                 "compares the scores of every pair of classes",
    "--positive-label": "AUC_mu compares every pair of classes of a multi-class model "
                        "(--score-columns); no class is the positive one",
    "--threshold": "a multi-class model (--score-columns) predicts the class of the highest "
                   "score; there is no single threshold on one score",
}  # fmt: skip


def _class_columns(labels, score_columns, name):
    """``{class: score column}`` from ``--score-columns``, the classes converted
    to the type of the label column ``labels``; every label value must be a
    class. Raises ``ValueError`` saying how to name the classes otherwise."""
    pairs = score_columns.items() if isinstance(score_columns, dict) else [
        (column, column) for column in score_columns
    ]  # fmt: skip
    values = sorted(pd.unique(labels.dropna()), key=str)
    how = (
        "name the class each column scores: --score-columns "
        + ",".join(f"{value}=COLUMN" for value in values[:8]) + ("" if len(values) <= 8 else ",...")
    )
    try:
        mapping = {
            _convert_label(text, labels, name, option="--score-columns class"): column
            for text, column in pairs
        }
    except ValueError as error:
        raise ValueError(f"{error}; {how}") from None
    unknown = [value for value in values if value not in mapping]
    if unknown:
        shown = ", ".join(repr(value) for value in unknown[:5])
        raise ValueError(
            f"label column {name!r} has value(s) {shown} that no score column scores "
            f"(classes {list(mapping)!r}); {how}"
        )
    return mapping


def _fail(error):
    """Print ``error`` as one line on stderr and return exit code 2."""
    message = error.args[0] if isinstance(error, KeyError) and error.args else str(error)
    print(f"{PROG}: error: {' '.join(str(message).split())}", file=sys.stderr)
    return _FAILED


def _bound(value):
    return "-" if pd.isna(value) else f"{value:.3f}"


def _effects(table, shown):
    """``delta [low, high]`` of the top ``shown`` rows: each effect with its simultaneous interval."""
    return [
        "-" if pd.isna(delta) else f"{delta:.3f} [{_bound(low)}, {_bound(high)}]"
        for delta, low, high in table[["delta", "delta_ci_low", "delta_ci_high"]].head(shown).to_numpy()
    ]


def _format_results(table, measure, shown=_PRINTED):
    """The top ``shown`` rows of a ``find_subgroups`` table as aligned text."""
    columns = ["description", "size_search", "ncr_search", f"{measure}_search",
               f"{measure}_validation", "delta", "p_value_corrected", "significant"]  # fmt: skip
    top = table[[c for c in columns if c in table.columns]].head(shown)
    if "delta" in top.columns:  # the effect with its simultaneous interval, in one column
        top = top.assign(delta=_effects(table, shown))
    top.index = range(1, len(top) + 1)
    width = max([len("description"), *map(len, top["description"])])

    def number(spec):
        return lambda value: "-" if pd.isna(value) else format(value, spec)

    text = top.to_string(
        formatters={
            "description": lambda text: text.ljust(width),
            "size_search": number(","),
            "ncr_search": number(".3f"),
            f"{measure}_search": number(".3f"),
            f"{measure}_validation": number(".3f"),
            "p_value_corrected": number(".2g"),
            "significant": lambda flag: "yes" if flag else "no",
            "delta": str,
        },
        justify="left",
    )
    return "\n".join(line.rstrip() for line in text.splitlines())


def _comparison(mode):
    """How the subgroups' measure compares with the whole data's, in words."""
    return {
        "worse": "is worse than on the whole data", "better": "is better than on the whole data",
    }.get(mode, "differs from the whole data")  # fmt: skip


def _why_empty(table, search, measure, space):
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
    """Print the top subgroups (or ``why_empty()``), the whole data's measure
    and the runtime."""
    attrs = table.attrs
    whole = attrs["dataset_values"]
    if len(table) == 0:
        print(f"No subgroup found in the {n_search:,} searched rows: {why_empty()}.")
    else:
        print(
            f"Top {min(_PRINTED, len(table))} of {len(table)} subgroups where the {measure} "
            f"{_comparison(attrs['mode'])} (searched {n_search:,} rows, tested on "
            f"{n_validation:,} held-out rows):\n"
        )
        print(_format_results(table, measure))
    print(
        f"\nWhole data: {measure} {whole[f'{measure}_search']:.3f} (search), "
        f"{whole[f'{measure}_validation']:.3f} (validation)."
    )
    if len(table):
        print(
            f"{int(table['significant'].sum())} of {len(table)} subgroups significant "
            f"({attrs['method']}-corrected p <= {attrs['alpha']}, {_samples_text(attrs)})."
        )
    if len(table) and "delta" in table.columns:
        print(
            f"delta: the {measure} on the subgroup's validation rows minus on all of them, "
            f"positive = {attrs['mode']}; [{1 - attrs['alpha']:.0%} intervals, simultaneous "
            "over all rows]"
        )
    print(f"Runtime: {runtime:.1f} s.")


def _samples_text(attrs):
    """How many random subsets the test drew, for the summary line."""
    if attrs["n_samples"] == "adaptive":
        return (
            f"adaptive: {attrs.get('null_samples_drawn', 0):,} random subsets drawn in all, "
            f"at most {attrs['max_samples']:,} per test"
        )
    return f"{attrs['n_samples']:,} random subsets per test"


def _check_out(out):
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


def _finish(args, table, *, measure, search, validation, start, space, report=None, note=None):
    """Write the files, then print the results; return the exit code.

    ``space`` is the search space's keywords (for :func:`_why_empty`);
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
            _export_rows(table, {"search": search, "validation": validation}, folder)

    written, error = _write_outputs(table, out, None if report is None else report_and_rows)
    _print_results(
        table, measure, len(search), len(validation), runtime,
        lambda: _why_empty(table, search, measure, space),
    )  # fmt: skip
    if note:
        print(note)
    if error is not None:
        _write_failed(error)
        return _FAILED
    if "report.html" in written:
        others = ", ".join(name for name in written if name != "report.html")
        print(
            f"Report: {(out / 'report.html').resolve()} (with {others})"
            + ("; it replaces the report an earlier run wrote there." if replaced else ".")
        )
    else:
        print(f"Table: {(out / 'subgroups.csv').resolve()}.")
    return 0


def _keep_untested(interrupted, args):
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
    _interrupted(args, f"during the significance test; {kept}")
    return _INTERRUPTED


def _interrupted(args, what=""):
    """Print the one line of Ctrl-C, below a progress bar that may be cut short."""
    line = f"{PROG}: interrupted{' ' + what if what else ''}"
    print(line if args.quiet else f"\n{line}", file=sys.stderr)


def _demo(args):
    """``subroc-ext demo``: audit a model trained on a quarter of UCI Adult."""
    start = time.perf_counter()
    try:
        _check_out(args.out)
    except ValueError as error:
        return _fail(error)
    _status(args, f"The report will be written to {Path(args.out).resolve()}/ "
                  "(files of an earlier report there are replaced).")  # fmt: skip
    _status(args, "Loading the UCI Adult data and training a gradient-boosting model ...")
    train, search, validation, _evaluation = split_parts(load_adult(), 4, random_state=args.seed)
    search, validation = fit_and_score(
        train, "income", ">50K", search, validation, random_state=args.seed
    )
    trained = time.perf_counter()
    _status(args, f"Trained in {trained - start:.1f} s. Searching and testing subgroups ...")
    try:
        table = find_subgroups(
            search, label="income", score="score", positive_label=">50K", validation=validation,
            measure="roc_auc", size_weight=1.0, balance_weight=1.0, generalization_aware=True,
            depth=2, min_support=20, result_set_size=100, n_samples=args.samples,
            random_state=args.seed, progress=not args.quiet,
        )  # fmt: skip
    except InterruptedTest as interrupted:
        return _keep_untested(interrupted, args)

    def report(folder, runtime):
        return write_report(
            table, validation, folder, label="income", score="score", positive_label=">50K",
            measure="roc_auc", title="SubROC demo: where does a model of UCI Adult income rank worst?",
            runtime=runtime, search=search,
        )  # fmt: skip

    return _finish(
        args, table, measure="roc_auc", search=search, validation=validation, start=start,
        space={"nbins": 5, "ignore": ["income", "score"]}, report=report,
        note=f"(of the runtime, loading and model training took {trained - start:.1f} s)",
    )  # fmt: skip


@contextlib.contextmanager
def _scheduler_client(address):
    """A Dask client connected to the scheduler at ``address`` (None without one)."""
    if address is None:
        yield None
        return
    distributed = require_distributed("--scheduler")
    try:
        client = distributed.Client(address, timeout="10s")
    except (OSError, TimeoutError, ValueError) as error:
        raise ValueError(f"cannot connect to the Dask scheduler at {address!r}: {error}") from None
    with client:
        yield client


def _space(args, ignore):
    """The keywords of ``run``'s search space, for :func:`_why_empty`."""
    return {"ignore": ignore, "nbins": args.nbins, "thresholds": args.thresholds,
            "keep_ids": args.keep_ids}  # fmt: skip


def _require_cluster(args):
    """Check for dask.distributed before any work or output, if asked for a cluster."""
    if args.scheduler is not None:
        require_distributed("--scheduler")


def _run(args):
    """``subroc-ext run``: find and test subgroups in the user's scored data."""
    if args.score_columns is not None:
        return _run_multiclass(args)
    start = time.perf_counter()
    measure = args.measure or "roc_auc"
    try:
        _require_cluster(args)
        data = _read(args.data, "data", args)
        check_columns(data, [args.label, args.score, *args.ignore])
        positive = _positive_label(data[args.label], args.positive_label, args.label)
        finite_scores(data[args.score], args.score)
        search, validation = _split(data, args)
        _check_out(args.out)
        with _scheduler_client(args.scheduler) as client:
            table = find_subgroups(
                search, label=args.label, score=args.score, measure=measure,
                positive_label=positive, mode=args.mode, validation=validation,
                size_weight=args.size_weight, balance_weight=args.balance_weight,
                generalization_aware=args.generalization_aware, depth=args.depth,
                min_support=args.min_support, nbins=args.nbins, ignore=args.ignore,
                thresholds=args.thresholds, keep_ids=args.keep_ids, result_set_size=args.top,
                collapse_identical=args.collapse_identical, max_overlap=args.max_overlap,
                n_samples=args.samples, random_state=args.seed, progress=not args.quiet,
                client=client, n_jobs=args.jobs,
            )  # fmt: skip
    except InterruptedTest as interrupted:
        return _keep_untested(interrupted, args)
    except (*_INPUT_ERRORS, ImportError) as error:
        return _fail(error)

    def report(folder, runtime):
        return write_report(
            table, validation, folder, label=args.label, score=args.score,
            positive_label=positive, measure=measure,
            title=f"SubROC report: {Path(args.data).name}", runtime=runtime, search=search,
            threshold=args.threshold,
        )  # fmt: skip

    return _finish(
        args, table, measure=measure, search=search, validation=validation, start=start,
        space=_space(args, [args.label, args.score, *args.ignore]),
        report=report,
    )  # fmt: skip


def _run_multiclass(args):
    """``subroc-ext run --score-columns a,b,c``: AUC_mu subgroups of a multi-class model.

    Every option of ``run`` applies except ``--measure``, ``--positive-label``
    and ``--threshold`` (refused, saying why); writes the multi-class report
    (``subgroups.csv`` and ``report.html``) to --out.
    """
    start = time.perf_counter()
    try:
        for option in _NOT_MULTICLASS:
            if getattr(args, option[2:].replace("-", "_")) is not None:
                raise ValueError(f"{option} does not apply: {_NOT_MULTICLASS[option]}")
        _require_cluster(args)
        data = _read(args.data, "data", args)
        columns = list(args.score_columns.values() if isinstance(args.score_columns, dict)
                       else args.score_columns)  # fmt: skip
        check_columns(data, [args.label, *columns, *args.ignore])
        search, validation = _split(data, args)
        check_columns(validation, [args.label, *columns], what="the validation data")
        labels = data[args.label] if args.validation is None else pd.concat(
            [data[args.label], validation[args.label]], ignore_index=True
        )  # fmt: skip
        score_columns = _class_columns(labels, args.score_columns, args.label)
        _check_out(args.out)
        with _scheduler_client(args.scheduler) as client:
            table = find_multiclass_subgroups(
                search, label=args.label, score_columns=score_columns, mode=args.mode,
                validation=validation, size_weight=args.size_weight,
                balance_weight=args.balance_weight, generalization_aware=args.generalization_aware,
                depth=args.depth, min_support=args.min_support, nbins=args.nbins,
                ignore=args.ignore, thresholds=args.thresholds, keep_ids=args.keep_ids,
                result_set_size=args.top, collapse_identical=args.collapse_identical,
                max_overlap=args.max_overlap, n_samples=args.samples, random_state=args.seed,
                progress=not args.quiet, client=client, n_jobs=args.jobs,
            )  # fmt: skip
    except InterruptedTest as interrupted:
        return _keep_untested(interrupted, args)
    except (*_INPUT_ERRORS, ImportError) as error:
        return _fail(error)

    def report(folder, runtime):
        return write_multiclass_report(
            table, validation, folder, title=f"SubROC multi-class report: {Path(args.data).name}",
            runtime=runtime,
        )  # fmt: skip

    return _finish(
        args, table, measure="auc_mu", search=search, validation=validation, start=start,
        space=_space(args, [args.label, *columns, *args.ignore]),
        report=report,
    )  # fmt: skip


# -- comparisons: `subroc-ext compare` and `subroc-ext drift` ---------------------

_COMPARE_DESCRIPTION = """\
Search DATA (one row per example: attributes, true label and two models'
scores) for subgroups where the new model (--score) falls behind the baseline
(--baseline) more than on the whole data, test each on held-out rows (random
subsets with the subgroup's size and class counts, both models evaluated on
each), print the best and write subgroups.csv and report.html (both ROC
curves of the top subgroups) to --out.

example:
  subroc-ext compare scored.csv --label y --score new --baseline old --out compare/
"""
_DRIFT_DESCRIPTION = """\
Search a REFERENCE and a CURRENT period (the same columns: attributes, true
label and the model's score) for subgroups where the model's ranking degraded
from the reference to the current period more than on the whole data, test
each on held-out rows of both periods, print the best and write
subgroups.csv and report.html (both ROC curves of the top subgroups) to --out.

example:
  subroc-ext drift january.csv june.csv --label y --score p --out drift/
"""


def _comparison_parsers(commands):
    """The ``compare`` and ``drift`` commands (options as those of ``run``)."""
    for name, description, handler in (
        ("compare", _COMPARE_DESCRIPTION, _compare),
        ("drift", _DRIFT_DESCRIPTION, _drift),
    ):
        parser = commands.add_parser(
            name, description=description, formatter_class=_Formatter,
            help="where does a new model fall behind the old one?" if name == "compare"
            else "where did a model degrade from a reference to a current period?",
        )  # fmt: skip
        if name == "compare":
            parser.add_argument("data", metavar="DATA", help="CSV or Parquet file")
            parser.add_argument("--baseline", required=True, metavar="COL",
                                help="column of the baseline (old) model's scores")  # fmt: skip
        else:
            parser.add_argument("reference", metavar="REFERENCE", help="the reference period")
            parser.add_argument("current", metavar="CURRENT", help="the current period")
        parser.add_argument("--sep", type=_separator, metavar="C",
                            help="field separator of the input files (default: by extension)")
        parser.add_argument("--encoding", metavar="E",
                            help="text encoding of the input files (default: utf-8)")
        parser.add_argument("--label", required=True, metavar="COL", help="column of true labels")
        parser.add_argument("--score", required=True, metavar="COL",
                            help="column of (the new model's) scores")  # fmt: skip
        parser.add_argument("--positive-label", metavar="V",
                            help="positive class (needed unless labels are 0/1 or true/false)")
        parser.add_argument("--validation-fraction", type=_fraction, default=0.5, metavar="F",
                            help="share of the rows (of each period) held out for the test")
        parser.add_argument("--measure", choices=sorted(MEASURES), default="roc_auc")
        parser.add_argument("--mode", choices=MODES, default="worse")
        parser.add_argument("--size-weight", type=_weight, default=1.0, metavar="A")
        parser.add_argument("--balance-weight", type=_weight, default=1.0, metavar="B")
        parser.add_argument("--no-generalization-awareness", dest="generalization_aware",
                            action="store_false")  # fmt: skip
        parser.add_argument("--depth", type=_positive_int, default=2, metavar="D")
        parser.add_argument("--min-support", type=_support, default=20, metavar="M",
                            help="minimum rows of a subgroup (in each period), or a share")
        parser.add_argument("--top", type=_positive_int, default=100, metavar="K")
        parser.add_argument("--ignore", nargs="+", action="extend", default=[], metavar="COL")
        parser.add_argument("--out", default=f"subroc-ext-{name}", metavar="DIR")
        _common_arguments(parser, _SAMPLES_HELP)
        parser.set_defaults(handler=handler, samples="adaptive")


def _comparison_settings(args, validation):
    """The keyword arguments ``compare`` and ``drift`` pass on (the validation
    split(s) drawn here, as the API draws them, for the report)."""
    return dict(
        label=args.label, score=args.score, measure=args.measure, mode=args.mode,
        validation=validation, size_weight=args.size_weight,
        balance_weight=args.balance_weight, generalization_aware=args.generalization_aware,
        depth=args.depth, min_support=args.min_support, ignore=args.ignore,
        result_set_size=args.top, n_samples=args.samples, random_state=args.seed,
        progress=not args.quiet,
    )  # fmt: skip


def _compare(args):
    """``subroc-ext compare DATA``: where a new model falls behind the baseline."""
    start = time.perf_counter()
    try:
        data = _read(args.data, "data", args)
        check_columns(data, [args.label])
        positive = _positive_label(data[args.label], args.positive_label, args.label)
        _check_out(args.out)
        check_columns(data, [args.score, args.baseline])
        search, validation = split_validation(data, args.validation_fraction, args.seed)
        table = find_regressions(search, baseline=args.baseline, positive_label=positive,
                                 **_comparison_settings(args, validation))  # fmt: skip
    except _INPUT_ERRORS as error:
        return _fail(error)
    return _finish_comparison(table, args, ("baseline", "new"), start, validation)


def _drift(args):
    """``subroc-ext drift REFERENCE CURRENT``: where a model degraded over time."""
    start = time.perf_counter()
    try:
        reference = _read(args.reference, "reference", args)
        current = _read(args.current, "current", args)
        check_columns(reference, [args.label], what="the reference data")
        positive = _positive_label(reference[args.label], args.positive_label, args.label)
        _check_out(args.out)
        for frame, name in ((reference, "reference"), (current, "current")):
            check_columns(frame, [args.label, args.score], what=f"the {name} data")
        (reference, held_reference), (current, held_current) = split_periods(
            reference, current, args.validation_fraction, args.seed
        )
        table = find_drift(reference, current, positive_label=positive,
                           **_comparison_settings(args, (held_reference, held_current)))  # fmt: skip
    except _INPUT_ERRORS as error:
        return _fail(error)
    return _finish_comparison(table, args, ("reference", "current"), start, held_reference, held_current)


def _finish_comparison(table, args, sides, start, validation, current=None):
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
             "delta_validation": "delta (validation)", "p_value_corrected": "p (corrected)",
             "significant": "significant"}  # fmt: skip
    top = table[list(shown)].head(_PRINTED).rename(columns=shown)
    if "delta_ci_low" in table.columns:  # the effect with its simultaneous interval
        top = top.assign(**{"delta (validation)": _effects(table, _PRINTED)})
    top.index = range(1, len(top) + 1)
    print(f"Top {len(top)} of {len(table)} subgroups where the {measure} of the {sides[1]} "
          f"{'model' if sides[0] == 'baseline' else 'period'} changed most ({args.mode}) "
          f"relative to the {sides[0]}:\n")  # fmt: skip
    width = max([len("description"), *map(len, top["description"])])
    print(top.to_string(float_format=lambda v: f"{v:.3g}", justify="left",
                        formatters={"description": lambda text: text.ljust(width)}))  # fmt: skip
    print("\nWhole data: " + ", ".join(f"{key} {value:.3f}" for key, value in whole.items()) + ".")
    print(f"{int(table['significant'].sum())} of {len(table)} subgroups significant "
          f"({table.attrs['method']}-corrected p <= {table.attrs['alpha']}).")  # fmt: skip
    if len(table) and "delta_ci_low" in table.columns:
        print(f"[{1 - table.attrs['alpha']:.0%} intervals, simultaneous over all rows]")
    if error is not None:
        _write_failed(error)
        return _FAILED
    others = ", ".join(name for name in written if name != "report.html")
    print(f"Runtime: {runtime:.1f} s. Report: {(out / 'report.html').resolve()} (with {others})"
          + ("; it replaces the report an earlier run wrote there." if replaced else "."))  # fmt: skip
    return 0


def main(argv=None):
    """Run the ``subroc-ext`` command line.

    Parameters
    ----------
    argv : list of str, optional
        Arguments without the program name (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        Exit code: 0 on success, 2 on bad input or arguments or a failed
        write, 130 after Ctrl-C, 141 when the output pipe was closed (after
        every file was written).
    """
    try:
        args = _parser().parse_args(argv)
    except SystemExit as stop:  # --help, or a usage error already printed
        return stop.code
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            code = args.handler(args)
        sys.stdout.flush()  # a closed pipe shows here, not in Python's flush at exit
    except BrokenPipeError:
        _to_devnull(sys.stdout)
        return _PIPE_CLOSED
    except KeyboardInterrupt:
        _interrupted(args)
        return _INTERRUPTED
    return code


def _show_warning(message, category, filename, lineno, file=None, line=None):
    """A warning as one line on stderr (columns left out of the search space, ...)."""
    print(f"{PROG}: warning: {message}", file=sys.stderr)


if __name__ == "__main__":
    raise SystemExit(main())
