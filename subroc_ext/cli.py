"""The ``subroc-ext`` command: ``subroc-ext demo`` and ``subroc-ext run DATA``.

Both find the subgroups where a classifier performs exceptionally, print the
best ones as a table and write a report (CSV, PNG and HTML). ``subroc-ext
compare DATA`` (two models) and ``subroc-ext drift REFERENCE CURRENT`` (two
periods) find where a ranking got worse and write the table (CSV). Bad input ends
the command with exit code 2 and one line on stderr that names the problem.
"""

import argparse
import contextlib
import math
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from . import __version__
from ._validation import MODES, check_columns, finite_scores, positive_mask
from .cluster import INSTALL, require_distributed
from .comparison_pipeline import find_drift, find_regressions
from .labels import infer_positive_label
from .datasets import load_adult
from .modelling import fit_and_score, split_parts
from .multiclass_pipeline import find_multiclass_subgroups
from .pipeline import MEASURES, find_subgroups, split_validation
from .covers import subgroup_membership
from .multiclass_report import write_multiclass_report
from .report import write_report

__all__ = ["main"]

PROG = "subroc-ext"
#: Exceptions that our input validation raises; anything else is a bug and propagates.
_INPUT_ERRORS = (ValueError, KeyError, FileNotFoundError, TypeError)
#: Number of subgroups printed.
_PRINTED = 10

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
Search DATA (CSV or Parquet: one row per example with its attributes, true
label and the model's score) for subgroups where the model performs
exceptionally, test each on held-out validation rows, print the best and write
a report to --out: subgroups.csv, curves.png and a self-contained report.html.
Every column except the label, the score and --ignore'd ones can appear in a
subgroup; numeric columns are cut into 5 quantile bins.

example:
  subroc-ext run scored.csv --label defaulted --score risk --positive-label yes \\
      --measure roc_auc --validation-fraction 0.5 --out credit-report/
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
_support = _number(
    lambda text: int(text) if text.strip().lstrip("+-").isdigit() else float(text),
    "a number of rows (integer >= 0) or a fraction strictly between 0 and 1",
    lambda v: v >= 0 if isinstance(v, int) else 0 < v < 1,
)


def _column_list(text):
    """``a,b,c`` as a list of at least two distinct column names."""
    columns = [column.strip() for column in text.split(",")]
    if len(columns) < 2 or not all(columns) or len(set(columns)) != len(columns):
        raise argparse.ArgumentTypeError(
            f"expected at least two distinct comma-separated column names, got {text!r}"
        )
    return columns


_SAMPLES_HELP = (
    "random subsets per significance test: 'adaptive' draws until each subgroup's decision is "
    "known (up to 1,000,000), a number draws that many (the paper used 10,000)"
)


def _common_arguments(parser, samples_help):
    """Options shared by ``demo`` and ``run``."""
    parser.add_argument("--samples", type=_samples, metavar="N", help=samples_help)
    parser.add_argument("--seed", type=int, default=0, metavar="S",
                        help="seed of the data split(s) and the randomization test")  # fmt: skip
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
    run.add_argument("data", metavar="DATA", help="CSV (also .csv.gz etc.) or Parquet file")
    run.add_argument("--label", required=True, metavar="COL",
                     help="column of true binary labels")  # fmt: skip
    scores = run.add_mutually_exclusive_group(required=True)
    scores.add_argument("--score", metavar="COL",
                        help="column of model scores, higher meaning more likely positive")  # fmt: skip
    scores.add_argument("--score-columns", type=_column_list, metavar="A,B,C",
                        help="a multi-class model instead: one score column per class, each "
                             "named like the label value it scores (the measure is then "
                             "AUC_mu)")  # fmt: skip
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
    run.add_argument("--measure", choices=sorted(MEASURES), default="roc_auc",
                     help="performance measure")  # fmt: skip
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
                         help="run on N local worker processes (a Dask LocalCluster; needs "
                              f"{INSTALL})")  # fmt: skip
    _common_arguments(run, _SAMPLES_HELP)
    run.set_defaults(handler=_run, samples="adaptive")
    _comparison_parsers(commands)
    return parser


def _status(args, message):
    """Print a status line on stderr unless ``--quiet``."""
    if not args.quiet:
        print(message, file=sys.stderr, flush=True)


def _read_table(path, what):
    """Read a CSV or Parquet file (chosen by extension) with at least one row."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{what} file '{path}' not found")
    if not path.is_file():
        raise ValueError(f"{what} file '{path}' is not a file")
    suffixes = [suffix.lower() for suffix in path.suffixes]
    if suffixes[-1:] in ([".parquet"], [".pq"]):
        try:
            frame = pd.read_parquet(path)
        except ImportError:
            raise ValueError(
                f"reading the Parquet file '{path}' needs pyarrow: pip install pyarrow"
            ) from None
        except (ValueError, OSError) as error:
            raise ValueError(f"cannot read {what} file '{path}' as Parquet: {error}") from None
    elif ".csv" in suffixes:
        try:
            frame = pd.read_csv(path)
        except pd.errors.EmptyDataError:
            raise ValueError(f"{what} file '{path}' is empty") from None
        except (pd.errors.ParserError, UnicodeDecodeError) as error:
            raise ValueError(f"cannot parse {what} file '{path}' as CSV: {error}") from None
    else:
        raise ValueError(
            f"cannot tell the format of {what} file '{path}' from its extension; "
            "use .csv (also compressed, e.g. .csv.gz) or .parquet"
        )
    if len(frame) == 0:
        raise ValueError(f"{what} file '{path}' has no rows")
    return frame


def _positive_label(labels, text, name):
    """The positive class of ``labels`` given as command-line ``text`` (or None).

    The text is converted to the column's type ('1' -> 1 for integers,
    'true'/'false' for booleans); without it, the API's rule applies
    (:func:`~subroc_ext.labels.infer_positive_label`: 1 or True for {0, 1},
    {-1, 1} and boolean labels, else an error asking for --positive-label).
    Raises ``ValueError`` unless the column is binary, without missing
    values, with the positive label among its values.
    """
    if text is None:
        return infer_positive_label(labels, name, option="--positive-label")
    positive = _convert_label(text, labels, name)
    positive_mask(labels, positive, name)
    return positive


def _convert_label(text, labels, name):
    """``text`` as a value of the type of the column ``labels``."""
    dtype = labels.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        dtype = dtype.categories.dtype
    if pd.api.types.is_bool_dtype(dtype):
        spellings = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}
        if text.strip().lower() not in spellings:
            raise ValueError(
                f"--positive-label {text!r} is not a boolean, but label column {name!r} "
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
                    f"--positive-label {text!r} is not {kind}, but label column {name!r} "
                    f"holds {dtype} values"
                ) from None
    return text


def _fail(error):
    """Print ``error`` as one line on stderr and return exit code 2."""
    message = error.args[0] if isinstance(error, KeyError) and error.args else str(error)
    print(f"{PROG}: error: {' '.join(str(message).split())}", file=sys.stderr)
    return 2


def _bound(value):
    return "-" if pd.isna(value) else f"{value:.3f}"


def _format_results(table, measure, shown=_PRINTED):
    """The top ``shown`` rows of a ``find_subgroups`` table as aligned text."""
    columns = ["description", "size_search", "ncr_search", f"{measure}_search",
               f"{measure}_validation", "delta", "p_value_corrected", "significant"]  # fmt: skip
    top = table[[c for c in columns if c in table.columns]].head(shown)
    if "delta" in top.columns:  # the effect with its simultaneous interval, in one column
        top = top.assign(delta=[
            "-" if pd.isna(delta) else
            f"{delta:.3f} [{_bound(low)}, {_bound(high)}]"
            for delta, low, high in table[["delta", "delta_ci_low", "delta_ci_high"]].head(shown).to_numpy()
        ])  # fmt: skip
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


def _print_results(table, measure, n_search, n_validation, runtime):
    """Print the top subgroups, the whole data's measure and the runtime."""
    attrs = table.attrs
    whole = attrs["dataset_values"]
    comparison = {
        "worse": "is worse than on the whole data", "better": "is better than on the whole data",
    }.get(attrs["mode"], "differs from the whole data")
    if len(table) == 0:
        print(
            f"No subgroup of at least {attrs['min_support']} rows has a {measure} that "
            f"{comparison} (searched {n_search:,} rows)."
        )
    else:
        print(
            f"Top {min(_PRINTED, len(table))} of {len(table)} subgroups where the {measure} "
            f"{comparison} (searched {n_search:,} rows, tested on {n_validation:,} held-out "
            "rows):\n"
        )
        print(_format_results(table, measure))
    print(
        f"\nWhole data: {measure} {whole[f'{measure}_search']:.3f} (search), "
        f"{whole[f'{measure}_validation']:.3f} (validation)."
    )
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


def _export_rows(table, splits, out):
    """``rows.csv`` in ``out``: split, row and one 0/1 column per subgroup; its path."""
    parts = []
    for name, frame in splits.items():
        membership = subgroup_membership(table, frame).astype(np.int8)
        membership.insert(0, "row", frame.index)
        membership.insert(0, "split", name)
        parts.append(membership)
    path = Path(out) / "rows.csv"
    pd.concat(parts).to_csv(path, index=False)
    return path


def _write_report(table, data, args, measure, title, runtime, search=None):
    """Write the report (and rows.csv with --export-rows) and say where; return the
    exit code (2 if writing failed).

    The results are printed before, so a failure here loses nothing.
    """
    out = Path(args.out).resolve()
    replaced = (out / "report.html").exists()
    try:
        if "score_columns" in table.attrs:
            files = write_multiclass_report(table, data, out, title=title, runtime=runtime)
        else:
            files = write_report(
                table, data, out, label=table.attrs["label"], score=table.attrs["score"],
                positive_label=table.attrs["positive_label"], measure=measure, title=title,
                runtime=runtime, search=search, threshold=getattr(args, "threshold", None),
            )  # fmt: skip
        rows = _export_rows(table, {"search": search, "validation": data}, out) if args.export_rows else None
    except OSError as error:
        print(f"{PROG}: error: cannot write the report to '{args.out}': {error}", file=sys.stderr)
        return 2
    written = ", ".join(path.name for path in (*files[:-1], rows) if path is not None)
    print(
        f"Report: {files.html} (with {written})"
        + ("; it replaces the report an earlier run wrote there." if replaced else ".")
    )
    return 0


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
    table = find_subgroups(
        search, label="income", score="score", positive_label=">50K", validation=validation,
        measure="roc_auc", size_weight=1.0, balance_weight=1.0, generalization_aware=True,
        depth=2, min_support=20, result_set_size=100, n_samples=args.samples,
        random_state=args.seed, progress=not args.quiet,
    )  # fmt: skip
    runtime = time.perf_counter() - start
    title = "SubROC demo: where does a model of UCI Adult income rank worst?"
    _print_results(table, "roc_auc", len(search), len(validation), runtime)
    print(f"(of the runtime, loading and model training took {trained - start:.1f} s)")
    return _write_report(table, validation, args, "roc_auc", title, runtime, search)


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


def _run(args):
    """``subroc-ext run``: find and test subgroups in the user's scored data."""
    if args.score_columns is not None:
        if args.scheduler is not None or args.jobs is not None:
            return _fail(ValueError("--scheduler and --jobs are not available with "
                                    "--score-columns (multi-class models) yet"))  # fmt: skip
        return _run_multiclass(args)
    start = time.perf_counter()
    try:
        for option, value in (("--jobs", args.jobs), ("--scheduler", args.scheduler)):
            if value is not None:
                require_distributed(option)  # before any work or output
        data = _read_table(args.data, "data")
        check_columns(data, [args.label, args.score, *args.ignore])
        positive = _positive_label(data[args.label], args.positive_label, args.label)
        finite_scores(data[args.score], args.score)
        if args.validation is None:
            search, validation = split_validation(data, args.validation_fraction, args.seed)
        else:
            search, validation = data, _read_table(args.validation, "validation")
        _check_out(args.out)
        with _scheduler_client(args.scheduler) as client:
            table = find_subgroups(
                search, label=args.label, score=args.score, measure=args.measure,
                positive_label=positive, mode=args.mode, validation=validation,
                size_weight=args.size_weight, balance_weight=args.balance_weight,
                generalization_aware=args.generalization_aware, depth=args.depth,
                min_support=args.min_support, ignore=args.ignore, thresholds=args.thresholds,
                keep_ids=args.keep_ids, result_set_size=args.top,
                collapse_identical=args.collapse_identical, max_overlap=args.max_overlap,
                n_samples=args.samples, random_state=args.seed, progress=not args.quiet,
                client=client, n_jobs=args.jobs,
            )  # fmt: skip
    except (*_INPUT_ERRORS, ImportError) as error:
        return _fail(error)
    runtime = time.perf_counter() - start
    title = f"SubROC report: {Path(args.data).name}"
    _print_results(table, args.measure, len(search), len(validation), runtime)
    return _write_report(table, validation, args, args.measure, title, runtime, search)


def _run_multiclass(args):
    """``subroc-ext run --score-columns a,b,c``: AUC_mu subgroups of a multi-class model.

    Prints the top subgroups and writes the multi-class report (``subgroups.csv``
    and ``report.html``) to --out.
    """
    start = time.perf_counter()
    try:
        if args.positive_label is not None:
            raise ValueError("--positive-label does not apply to a multi-class model (--score-columns)")
        data = _read_table(args.data, "data")
        if args.validation is None:
            search, validation = split_validation(data, args.validation_fraction, args.seed)
        else:
            search, validation = data, _read_table(args.validation, "validation")
        _check_out(args.out)
        table = find_multiclass_subgroups(
            search, label=args.label, score_columns=args.score_columns, mode=args.mode,
            validation=validation, size_weight=args.size_weight,
            balance_weight=args.balance_weight, generalization_aware=args.generalization_aware,
            depth=args.depth, min_support=args.min_support, ignore=args.ignore,
            thresholds=args.thresholds, keep_ids=args.keep_ids, result_set_size=args.top,
            n_samples=args.samples, random_state=args.seed, progress=not args.quiet,
        )  # fmt: skip
    except _INPUT_ERRORS as error:
        return _fail(error)
    runtime = time.perf_counter() - start
    whole = table.attrs["dataset_values"]
    print(
        f"Top {min(_PRINTED, len(table))} of {len(table)} subgroups by AUC_mu (mode "
        f"{args.mode}; searched {len(search):,} rows, tested on {len(validation):,}):\n"
    )
    print(_format_results(table, "auc_mu"))
    print(
        f"\nWhole data: auc_mu {whole['auc_mu_search']:.3f} (search), "
        f"{whole['auc_mu_validation']:.3f} (validation). "
        f"{int(table['significant'].sum())} of {len(table)} subgroups significant."
    )
    print(f"Runtime: {runtime:.1f} s.")
    title = f"SubROC multi-class report: {Path(args.data).name}"
    return _write_report(table, validation, args, "auc_mu", title, runtime, search)


# -- comparisons: `subroc-ext compare` and `subroc-ext drift` ---------------------

_COMPARE_DESCRIPTION = """\
Search DATA (one row per example: attributes, true label and two models'
scores) for subgroups where the new model (--score) falls behind the baseline
(--baseline) more than on the whole data, test each on held-out rows (random
subsets with the subgroup's size and class counts, both models evaluated on
each), print the best and write subgroups.csv to --out.

example:
  subroc-ext compare scored.csv --label y --score new --baseline old --out compare/
"""
_DRIFT_DESCRIPTION = """\
Search a REFERENCE and a CURRENT period (the same columns: attributes, true
label and the model's score) for subgroups where the model's ranking degraded
from the reference to the current period more than on the whole data, test
each on held-out rows of both periods, print the best and write
subgroups.csv to --out.

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
        _common_arguments(parser, "random subsets per significance test")
        parser.set_defaults(handler=handler, samples=10_000)


def _comparison_settings(args):
    """The keyword arguments ``compare`` and ``drift`` pass on unchanged."""
    return dict(
        label=args.label, score=args.score, measure=args.measure, mode=args.mode,
        validation=args.validation_fraction, size_weight=args.size_weight,
        balance_weight=args.balance_weight, generalization_aware=args.generalization_aware,
        depth=args.depth, min_support=args.min_support, ignore=args.ignore,
        result_set_size=args.top, n_samples=args.samples, random_state=args.seed,
        progress=not args.quiet,
    )  # fmt: skip


def _compare(args):
    """``subroc-ext compare DATA``: where a new model falls behind the baseline."""
    start = time.perf_counter()
    try:
        data = _read_table(args.data, "data")
        check_columns(data, [args.label])
        positive = _positive_label(data[args.label], args.positive_label, args.label)
        _check_out(args.out)
        table = find_regressions(data, baseline=args.baseline, positive_label=positive,
                                 **_comparison_settings(args))  # fmt: skip
    except _INPUT_ERRORS as error:
        return _fail(error)
    return _finish_comparison(table, args, ("baseline", "new"), start)


def _drift(args):
    """``subroc-ext drift REFERENCE CURRENT``: where a model degraded over time."""
    start = time.perf_counter()
    try:
        reference = _read_table(args.reference, "reference")
        current = _read_table(args.current, "current")
        check_columns(reference, [args.label], what="the reference data")
        positive = _positive_label(reference[args.label], args.positive_label, args.label)
        _check_out(args.out)
        table = find_drift(reference, current, positive_label=positive, **_comparison_settings(args))
    except _INPUT_ERRORS as error:
        return _fail(error)
    return _finish_comparison(table, args, ("reference", "current"), start)


def _finish_comparison(table, args, sides, start):
    """Print the top subgroups of a comparison and write subgroups.csv."""
    measure, whole = table.attrs["measure"], table.attrs["dataset_values"]
    suffix = "" if sides[0] == "baseline" else "_current"
    old = f"{measure}_{'baseline' if sides[0] == 'baseline' else 'reference'}_validation"
    shown = {"description": "description", "delta_search": "delta (search)",
             old: f"{sides[0]} (validation)", f"{measure}{suffix}_validation": f"{sides[1]} (validation)",
             "delta_validation": "delta (validation)", "p_value_corrected": "p (corrected)",
             "significant": "significant"}  # fmt: skip
    top = table[list(shown)].head(_PRINTED).rename(columns=shown)
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
    path = Path(args.out) / "subgroups.csv"
    try:
        table.drop(columns="subgroup").to_csv(path, index=False)
    except OSError as error:
        print(f"{PROG}: error: cannot write '{path}': {error}", file=sys.stderr)
        return 2
    print(f"Runtime: {time.perf_counter() - start:.1f} s. Table: {path}.")
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
        Exit code: 0 on success, 2 on bad input or arguments.
    """
    try:
        args = _parser().parse_args(argv)
    except SystemExit as stop:  # --help, or a usage error already printed
        return stop.code
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        return args.handler(args)


def _show_warning(message, category, filename, lineno, file=None, line=None):
    """A warning as one line on stderr (columns left out of the search space, ...)."""
    print(f"{PROG}: warning: {message}", file=sys.stderr)


if __name__ == "__main__":
    raise SystemExit(main())
