"""The command line's arguments: the parser of every command, with its help texts.

Nothing here loads NumPy, pandas or the compiled kernels, so that
``subroc-ext --help`` and ``--version`` answer at once.
"""

import argparse
import math

from ..utils.names import (
    CALIBRATION_MEASURE_NAMES, CALIBRATION_MODES, CALIBRATIONS, INSTALL, INTERVALS, MEASURE_NAMES, MODES,
    REQUESTED_MEASURE_NAMES, VERSION,
)

__all__ = [
    "PROG",
    "GATE_FAILED",
    "build_parser",
]

#: The command's name in messages.
PROG = "subroc-ext"


_DESCRIPTION = """\
Find interpretable subgroups of your data (e.g. sex=='Female' AND age<25) where
a binary classifier's ROC AUC, PR AUC, average ranking loss or AUC attribution is
exceptionally bad (or good), and test them for significance on held-out data
(the SubROC framework).

examples:
  subroc-ext demo                         # UCI Adult census income, under a minute
  subroc-ext run scored.csv --label y --score p --positive-label 1 --out report/
"""


#: Exit code of a failed release gate (``--fail-on``): distinct from 0, from bad
#: input or a failed write (2), from a crash (1, Python's) and from the signals'
#: (130, 141, 143; :mod:`subroc_ext.cli.streams`).
GATE_FAILED = 3

#: The exit codes, at the end of the help of every command that runs a search.
_EXIT_CODES = f"""exit codes:
  0    done (with --fail-on: and the headline names no failure)
  2    bad input or arguments, a file that cannot be written, a stdout that
       cannot be written (the files are written first)
  {GATE_FAILED}    --fail-on failure: the headline names a failure (every file written;
       the last line printed says why)
  130  Ctrl-C (143: SIGTERM); 141: the output pipe was closed
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

    def parse_known_args(self, args=None, namespace=None):
        """argparse's, then the ``--score-columns`` given read together (:func:`_score_columns`)."""
        namespace, extras = super().parse_known_args(args, namespace)
        texts = vars(namespace).pop("score_column_texts", None)
        if texts is not None:
            try:
                namespace.score_columns = _score_columns(texts)
            except ValueError as error:
                self.error(f"argument --score-columns: {error}")
        return namespace, extras


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


_splits = _number(
    lambda text: text if text == "auto" else int(text), "'auto' or a positive integer",
    lambda v: v == "auto" or v >= 1,
)


_weight = _number(float, "a finite number >= 0", lambda v: math.isfinite(v) and v >= 0)


_fraction = _number(float, "a fraction strictly between 0 and 1", lambda v: 0 < v < 1)


_overlap = _number(
    lambda text: None if text.strip().lower() == "none" else float(text),
    "a Jaccard index between 0 and 1, or none", lambda v: v is None or 0 <= v <= 1,
)


_seed = _number(int, "an integer >= 0", lambda v: v >= 0)


_min_delta = _number(float, "a finite number >= 0", lambda v: math.isfinite(v) and v >= 0)


_support = _number(
    lambda text: int(text) if text.strip().lstrip("+-").isdigit() else float(text),
    "a number of rows (integer >= 0) or a fraction strictly between 0 and 1",
    lambda v: v >= 0 if isinstance(v, int) else 0 < v < 1,
)


def _score_columns(texts):
    """The classes' score columns from the ``--score-columns`` given (``texts``).

    One ``--score-columns a,b,c`` (columns named like the classes they score)
    is a list; ``CLASS=COLUMN,...`` a dict ``{class text: column}``. Given
    more than once, each ``--score-columns`` is one column (or one
    ``CLASS=COLUMN``), taken whole: the way to name columns with ``,`` (or,
    as ``CLASS=COLUMN``, with ``=``: the first ``=`` ends the class). At least
    two distinct columns and classes. Raises ``ValueError`` saying what is wrong.
    """
    items = [item.strip() for item in (texts[0].split(",") if len(texts) == 1 else texts)]
    given = repr(texts[0]) if len(texts) == 1 else f"{len(texts)} --score-columns"
    repeat = "for names with ',' or '=', give --score-columns once per class, as COLUMN or CLASS=COLUMN"
    pairs = [tuple(part.strip() for part in item.split("=", 1)) for item in items]
    named = {len(pair) == 2 for pair in pairs}
    columns, classes = [pair[-1] for pair in pairs], [pair[0] for pair in pairs]
    twice = [name for name in columns if columns.count(name) > 1] or [
        name for name in classes if classes.count(name) > 1
    ]  # fmt: skip
    if len(items) < 2:
        problem = "a multi-class model needs at least two score columns (A,B,C or yes=p_yes,no=p_no)"
    elif not all(map(all, pairs)):
        problem = "an empty column or class name"
    elif len(named) > 1:
        problem = "plain column names mixed with CLASS=COLUMN pairs"
    elif twice:
        what = "column" if columns.count(twice[0]) > 1 else "class"
        problem = f"{what} {twice[0]!r} is given twice"
    else:
        return dict(pairs) if named == {True} else columns
    raise ValueError(f"{problem} in {given}; {repeat}")


def _separator(text):
    """An argparse type: a field separator (see :func:`~subroc_ext.inputs.tables.parse_separator`)."""
    from ..inputs.tables import parse_separator  # pandas: only when --sep is given

    try:
        return parse_separator(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _decimal(text):
    """An argparse type: the decimal mark of delimited text, one character."""
    if len(text) != 1 or text.isdigit():
        raise argparse.ArgumentTypeError(f"expected one character such as ',' or '.', got {text!r}")
    return text


_CASE_MIX_HELP = (
    "rank and test by how much further the ROC AUC falls short of what the subgroup's own scores "
    "promise (its expected ROC AUC) than on the whole data: slices of the strongest predictor, "
    "where every model ranks worse, are then no finding (assumes the scores are probabilities up "
    "to a monotone map)"
)
_SAMPLES_HELP = (
    "random subsets per significance test: 'adaptive' draws until each subgroup's decision is "
    "known (up to 1,000,000), a number draws that many (the paper used 10,000)"
)


def _verdict_arguments(parser):
    """``--min-delta`` and ``--intervals`` (``run``, ``compare``, ``drift``)."""
    parser.add_argument("--min-delta", type=_min_delta, default=0.0, metavar="D",
                        help="significant only if the effect's interval lies beyond D (an "
                             "effect that matters, e.g. 0.02 of ROC AUC)")  # fmt: skip
    parser.add_argument("--intervals", choices=INTERVALS, default="fcr",
                        help="the effect interval beside the decision: 'fcr' matches it (false "
                             "coverage-rate intervals of the selected rows; significant only if "
                             "the interval excludes 0); 'simultaneous' covers all rows at once "
                             "and leaves the decision to the test")  # fmt: skip


def _gate_arguments(parser):
    """``--format`` and ``--fail-on`` (``run``, ``compare``, ``drift``)."""
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="what is printed on stdout: the console table (text), or json: the "
                             "findings.json written to --out (the table then goes to stderr)")  # fmt: skip
    parser.add_argument("--fail-on", choices=("failure",), metavar="failure",
                        help=f"a release gate: exit with code {GATE_FAILED} when the headline names a failure "
                             "(a significant subgroup; with --min-delta D only one whose interval "
                             "lies beyond D), after every file is written; the last line printed "
                             "says the code and why")  # fmt: skip


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


def _allow_large_argument(parser):
    parser.add_argument("--allow-large", action="store_true",
                        help="start a search estimated to need more memory than the machine has "
                             "available (refused by default)")  # fmt: skip


def _distinct_arguments(parser):
    """Options of the diverse result (``run``, ``compare``, ``drift``)."""
    parser.add_argument("--no-collapse", dest="collapse_identical", action="store_false",
                        help="list descriptions of the same rows as separate subgroups (by "
                             "default they are one row, the others under 'alternatives')")  # fmt: skip
    parser.add_argument("--max-overlap", type=_overlap, default=0.8, metavar="J",
                        help="report distinct subgroups: one whose rows overlap a better one's "
                             "by a Jaccard index above J (0-1) is listed under that one's "
                             "'near_copies' instead, and the search goes on until --top "
                             "distinct ones are found; 'none': the exact top --top")  # fmt: skip


def build_parser():
    """The argument parser of ``subroc-ext`` and its ``demo`` and ``run`` commands."""
    parser = _Parser(prog=PROG, description=_DESCRIPTION, formatter_class=_Formatter)
    parser.add_argument("--version", action="version", version=f"%(prog)s {VERSION}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    demo = commands.add_parser(
        "demo", help="audit a model on the UCI Adult data (runs in under a minute)",
        description=_DEMO_DESCRIPTION, formatter_class=_Formatter,
    )  # fmt: skip
    demo.add_argument("--out", default="subroc-ext-demo", metavar="DIR",
                      help="directory for the report")  # fmt: skip
    demo.add_argument("--case-mix", action="store_true", help=_CASE_MIX_HELP)
    _common_arguments(demo, _SAMPLES_HELP)
    demo.set_defaults(samples="adaptive")

    run = commands.add_parser(
        "run", help="find and test subgroups in your own scored data",
        description=_RUN_DESCRIPTION, formatter_class=_Formatter, epilog=_EXIT_CODES,
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
    run.add_argument("--decimal", type=_decimal, metavar="C",
                     help="decimal mark of the numbers in DATA and --validation (default '.'; "
                          "e.g. --decimal ',' for 0,37)")  # fmt: skip
    run.add_argument("--label", required=True, metavar="COL",
                     help="column of true binary labels")  # fmt: skip
    scores = run.add_mutually_exclusive_group(required=True)
    scores.add_argument("--score", metavar="COL",
                        help="column of model scores, higher meaning more likely positive")  # fmt: skip
    scores.add_argument("--score-columns", action="append", dest="score_column_texts", metavar="A,B,C",
                        help="a multi-class model instead: one score column per class, each "
                             "named like the label value it scores, or CLASS=COLUMN pairs "
                             "(e.g. 0=p0,1=p1,2=p2); the measure is then AUC_mu; for names with "
                             "',' or '=', repeat the option, one COLUMN or CLASS=COLUMN each")  # fmt: skip
    run.set_defaults(score_columns=None)
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
    held_out.add_argument("--no-holdout", action="store_true",
                          help="hold out nothing: search all of DATA and test the whole search "
                               "by permutations (max-T; family-wise error over every pattern, "
                               "more power on small data; no effect intervals); each row's "
                               "promise, and --case-mix, by labels drawn from the probabilities "
                               "over the whole search")  # fmt: skip
    run.add_argument("--measure", choices=sorted(MEASURE_NAMES + REQUESTED_MEASURE_NAMES + CALIBRATION_MEASURE_NAMES),
                     help="performance measure (default: roc_auc; multi-class models: "
                          "AUC_mu); pr_auc_normalized: the PR AUC above the least its subgroup's "
                          "prevalence allows; calibration_gap, brier and log_loss read the scores as "
                          "probabilities")  # fmt: skip
    run.add_argument("--mode", choices=MODES + CALIBRATION_MODES,
                     help="look for subgroups where the model is worse (default), better or "
                          "either (both); calibration_gap: both (default: the risk under- or "
                          "overestimated), under (underestimated) or over (overestimated)")  # fmt: skip
    run.add_argument("--case-mix", action="store_true", default=None, help=_CASE_MIX_HELP)
    run.add_argument("--calibrate", choices=CALIBRATIONS,
                     help="how scores become the probabilities of the expected ROC AUC: auto "
                          "(default: scores in [0, 1] as given, others through a sigmoid fitted "
                          "on the searched rows), none, isotonic or sigmoid; calibration_gap: the "
                          "global fix the gaps are measured after (auto = isotonic, cross-fitted "
                          "on the searched rows where they are miscalibrated; none = the scores as given, each gap against the "
                          "whole data's)")  # fmt: skip
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
    run.add_argument("--splits", type=_splits, default=1, metavar="B",
                     help="audit B random search/validation splits of DATA (each holding out "
                          "--validation-fraction) and aggregate what they find, so that another "
                          "--seed gives the same answer; auto: 4, and up to 16 until settled; "
                          "1: one split")  # fmt: skip
    _distinct_arguments(run)
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
    _verdict_arguments(run)
    _gate_arguments(run)
    cluster = run.add_mutually_exclusive_group()
    cluster.add_argument("--scheduler", metavar="ADDRESS",
                         help="run the search and the significance tests on the Dask cluster "
                              "whose scheduler listens at ADDRESS (e.g. tcp://10.0.0.5:8786; "
                              f"needs {INSTALL} here and on the workers); the results are the "
                              "same as on one process")  # fmt: skip
    cluster.add_argument("--jobs", type=_positive_int, metavar="N",
                         help="run the search and the significance tests on N threads (the "
                              "same results; before, N Dask worker processes)")  # fmt: skip
    _allow_large_argument(run)
    _common_arguments(run, _SAMPLES_HELP)
    run.set_defaults(samples="adaptive")
    _comparison_parsers(commands)
    _recheck_parser(commands)
    return parser


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


_RECHECK_DESCRIPTION = """\
Measure the subgroups of a findings.json (written by subroc-ext run) again on
DATA, new rows of the same model (e.g. next month's): each subgroup's size,
measure and effect with its interval (at the confidence the findings had),
beside the effect the findings reported, and whether it grew (worse), shrank
(better) or stayed. No search and no new test: the subgroups are fixed.

example:
  subroc-ext recheck audit/findings.json june.csv
  subroc-ext recheck audit/findings.json june.csv --label outcome --score risk
"""


def _recheck_parser(commands):
    """The ``recheck`` command."""
    parser = commands.add_parser(
        "recheck", help="measure the subgroups of a findings.json again on new data",
        description=_RECHECK_DESCRIPTION, formatter_class=_Formatter,
    )  # fmt: skip
    parser.add_argument("findings", metavar="FINDINGS", help="a findings.json of subroc-ext run")
    parser.add_argument("data", metavar="DATA", help="the new rows (CSV, TSV or Parquet)")
    parser.add_argument("--label", metavar="COL", help="column of true labels (default: the findings')")
    parser.add_argument("--score", metavar="COL", help="column of scores (default: the findings')")
    parser.add_argument("--positive-label", metavar="V", help="positive class (default: the findings')")
    parser.add_argument("--sep", type=_separator, metavar="C", help="field separator of DATA")
    parser.add_argument("--encoding", metavar="E", help="text encoding of DATA (default: utf-8)")
    parser.add_argument("--decimal", type=_decimal, metavar="C", help="decimal mark of DATA's numbers")
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="print a table (text) or the rows as JSON records (json)")  # fmt: skip
    parser.add_argument("--quiet", action="store_true", help="no status messages on stderr")


def _comparison_parsers(commands):
    """The ``compare`` and ``drift`` commands (options as those of ``run``)."""
    for name, description in (
        ("compare", _COMPARE_DESCRIPTION),
        ("drift", _DRIFT_DESCRIPTION),
    ):
        parser = commands.add_parser(
            name, description=description, formatter_class=_Formatter, epilog=_EXIT_CODES,
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
        parser.add_argument("--decimal", type=_decimal, metavar="C",
                            help="decimal mark of the numbers in the input files (default '.')")
        parser.add_argument("--label", required=True, metavar="COL", help="column of true labels")
        parser.add_argument("--score", required=True, metavar="COL",
                            help="column of (the new model's) scores")  # fmt: skip
        parser.add_argument("--positive-label", metavar="V",
                            help="positive class (needed unless labels are 0/1 or true/false)")
        parser.add_argument("--validation-fraction", type=_fraction, default=0.5, metavar="F",
                            help="share of the rows (of each period) held out for the test")
        parser.add_argument("--measure", choices=sorted(MEASURE_NAMES), default="roc_auc")
        parser.add_argument("--mode", choices=MODES, default="worse")
        parser.add_argument("--size-weight", type=_weight, default=1.0, metavar="A")
        parser.add_argument("--balance-weight", type=_weight, default=1.0, metavar="B")
        parser.add_argument("--no-generalization-awareness", dest="generalization_aware",
                            action="store_false")  # fmt: skip
        parser.add_argument("--depth", type=_positive_int, default=2, metavar="D")
        parser.add_argument("--min-support", type=_support, default=20, metavar="M",
                            help="minimum rows of a subgroup (in each period), or a share")
        parser.add_argument("--top", type=_positive_int, default=100, metavar="K")
        _distinct_arguments(parser)
        parser.add_argument("--ignore", nargs="+", action="extend", default=[], metavar="COL")
        parser.add_argument("--out", default=f"subroc-ext-{name}", metavar="DIR")
        _verdict_arguments(parser)
        _allow_large_argument(parser)
        _gate_arguments(parser)
        _common_arguments(parser, _SAMPLES_HELP)
        parser.set_defaults(samples="adaptive")
