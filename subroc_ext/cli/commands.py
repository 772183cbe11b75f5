"""The commands: read and check the input, run the pipeline, hand the table to the
output.
"""

import contextlib
import json
import time
from pathlib import Path

import pandas as pd

from ..demo.datasets import load_adult
from ..demo.modelling import fit_and_score, split_parts
from ..exceptions import InterruptedSplits, SearchMemoryError
from ..inputs.findings_file import read_findings
from ..inputs.labels import infer_positive_label
from ..inputs.tables import read_table
from ..reporting.findings_json import json_records
from ..reporting.multiclass import write_multiclass_report
from ..reporting.preload import preload_plotting
from ..reporting.report import write_report
from ..utils.cluster import require_distributed
from ..utils.validation import check_columns, finite_scores, positive_mask, shown
from ..workflow.comparison import find_drift, find_regressions, split_periods
from ..workflow.multiclass import find_multiclass_subgroups
from ..workflow.pipeline import find_subgroups, split_validation
from ..workflow.recheck import recheck
from .gate import gated
from .kept import keeping_results
from .output import check_out, fail, finish, finish_comparison, print_recheck, print_status
from .streams import report_interrupted
from .warm_up import kernels_compiled

__all__ = [
    "demo_command",
    "run_command",
    "compare_command",
    "drift_command",
    "recheck_command",
]


#: Exceptions that our input validation raises; anything else is a bug and propagates.
_INPUT_ERRORS = (ValueError, KeyError, FileNotFoundError, TypeError, SearchMemoryError)


def _read(path, what, args):
    """Read ``path`` with the command's ``--sep`` and ``--encoding``."""
    _arrow_memory_from_the_system()
    return read_table(path, what, sep=args.sep, encoding=args.encoding, decimal=args.decimal)


def _arrow_memory_from_the_system():
    """Have pyarrow, which holds pandas' text columns, allocate with the system's
    allocator, which returns freed memory, not with mimalloc, which keeps it:
    at 2,000,000 rows mimalloc kept the text of the table as read beside its
    split copies (73 MB of the peak; the runtime the same). The command owns its
    process; the library leaves the allocator alone."""
    try:
        import pyarrow
    except ImportError:  # pandas without pyarrow holds text as Python strings
        return
    pyarrow.set_memory_pool(pyarrow.system_memory_pool())


def _split(data, args):
    """The search and validation parts: DATA split by ``--seed``, DATA and ``--validation``, or
    (``--no-holdout``) DATA and None."""
    if args.no_holdout:
        return data, None
    if args.validation is None:
        return split_validation(data, args.validation_fraction, args.seed)
    return data, _read(args.validation, "validation", args)


def _check_file(frame, path, what, label, scores, positive=None):
    """Check the label and score columns of a file other than DATA (``--validation``,
    drift's periods), every message naming the file: the columns exist, the
    scores are finite numbers and, given ``positive``, both classes are there."""
    try:
        check_columns(frame, [label, *scores], what="the file")
        for score in scores:
            finite_scores(frame[score], score)
        if positive is not None:
            is_positive = positive_mask(frame[label], positive, label)
            for present, kind in ((is_positive.any(), "positives"), ((~is_positive).any(), "negatives")):
                if not present:
                    raise ValueError(f"it has no {kind} (positive label {shown(positive)}) in label column {label!r}")
    except (ValueError, KeyError) as error:
        message = error.args[0] if isinstance(error, KeyError) else str(error)
        raise ValueError(f"{what} file '{path}': {message}") from None


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
    "--case-mix": "the expected ROC AUC reads one score as the probability of the positive "
                  "class; a multi-class model (--score-columns) has one score per class",
    "--calibrate": "the expected ROC AUC reads one score as the probability of the positive "
                   "class; a multi-class model (--score-columns) has one score per class",
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
        raise ValueError(
            f"label column {name!r} has value(s) {', '.join(map(shown, unknown[:5]))} that no score column scores "
            f"(classes {list(mapping)!r}); {how}"
        )
    return mapping


@keeping_results
def demo_command(args):
    """``subroc-ext demo``: audit a model trained on a quarter of UCI Adult."""
    start = time.perf_counter()
    try:
        check_out(args.out)
    except ValueError as error:
        return fail(error)
    print_status(args, f"The report will be written to {Path(args.out).resolve()}/ "
                  "(files of an earlier report there are replaced).")  # fmt: skip
    print_status(args, "Loading the UCI Adult data and training a gradient-boosting model ...")
    preload_plotting()  # beside the model's training and the search
    train, search, validation, _evaluation = split_parts(load_adult(), 4, random_state=args.seed)
    search, validation = fit_and_score(
        train, "income", ">50K", search, validation, random_state=args.seed
    )
    trained = time.perf_counter()
    print_status(args, f"Trained in {trained - start:.1f} s. Searching and testing subgroups ...")
    kernels_compiled(args)
    table = find_subgroups(
        search, label="income", score="score", positive_label=">50K", validation=validation,
        measure="roc_auc", size_weight=1.0, balance_weight=1.0, generalization_aware=True,
        depth=2, min_support=20, result_set_size=100, n_samples=args.samples,
        random_state=args.seed, progress=not args.quiet, case_mix=args.case_mix,
    )  # fmt: skip

    def report(folder, runtime):
        return write_report(
            table, validation, folder, label="income", score="score", positive_label=">50K",
            measure="roc_auc", title="SubROC demo: where does a model of UCI Adult income rank worst?",
            runtime=runtime, search=search,
        )  # fmt: skip

    return finish(
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
    """The keywords of ``run``'s search space, for :func:`why_empty`."""
    return {"ignore": ignore, "nbins": args.nbins, "thresholds": args.thresholds,
            "keep_ids": args.keep_ids}  # fmt: skip


@contextlib.contextmanager
def _splits_kept():
    """Ctrl-C (SIGTERM) after two or more of ``--splits`` finished: the
    :class:`~subroc_ext.exceptions.InterruptedSplits` with their aggregate,
    the run's table, put in the list yielded (written and printed as a
    finished run's; the command then ends as interrupted, saying how many
    splits of how many finished). With fewer it goes on to
    :func:`~subroc_ext.cli.kept.keep` (one split's table, or nothing)."""
    kept = []
    try:
        yield kept
    except InterruptedSplits as cut:
        if not cut.aggregated:
            raise
        kept.append(cut)


def _require_cluster(args):
    """Check for dask.distributed before any work or output, if asked for a cluster."""
    if args.scheduler is not None:
        require_distributed("--scheduler")


@keeping_results
def run_command(args):
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
        if args.splits != 1 and (args.no_holdout or args.validation is not None):
            raise ValueError(f"--splits {args.splits} splits DATA at random: not with "
                             f"{'--no-holdout' if args.no_holdout else '--validation'}")  # fmt: skip
        search, validation = _split(data, args)
        whole = None if args.splits == 1 else data  # many splits: every split is of all the rows
        del data  # a random split copies the rows: the table read is not needed beside its parts
        if args.validation is not None:
            _check_file(validation, args.validation, "validation", args.label, [args.score], positive)
        check_out(args.out)
        preload_plotting()  # beside the search and the test
        kernels_compiled(args)
        interrupted = None  # Ctrl-C after 2 of --splits finished: their aggregate written, exit code 130
        with _scheduler_client(args.scheduler) as client, _splits_kept() as kept:
            table = find_subgroups(
                search if whole is None else whole, label=args.label, score=args.score, measure=measure,
                positive_label=positive, mode=args.mode,
                validation=validation if whole is None else args.validation_fraction, splits=args.splits,
                size_weight=args.size_weight, balance_weight=args.balance_weight,
                generalization_aware=args.generalization_aware, depth=args.depth,
                min_support=args.min_support, nbins=args.nbins, ignore=args.ignore,
                thresholds=args.thresholds, keep_ids=args.keep_ids, result_set_size=args.top,
                collapse_identical=args.collapse_identical, max_overlap=args.max_overlap,
                n_samples=args.samples, intervals=args.intervals, min_delta=args.min_delta,
                random_state=args.seed, progress=not args.quiet, client=client, n_jobs=args.jobs,
                case_mix=bool(args.case_mix), calibrate=args.calibrate or "auto",
                allow_large=args.allow_large,
            )  # fmt: skip
        if kept:
            table, interrupted = kept[0].table, kept[0]
        if whole is not None:  # the report's curves: the split whose table is shown
            shown = table.attrs["splits"]
            search, validation = split_validation(whole, args.validation_fraction, shown["seeds"][shown["shown"]])
    except (*_INPUT_ERRORS, ImportError) as error:
        return fail(error)

    def report(folder, runtime):
        held_out = validation is not None  # else all rows were searched and tested
        return write_report(
            table, validation if held_out else search, folder, label=args.label, score=args.score,
            positive_label=positive, measure=measure,
            title=f"SubROC report: {Path(args.data).name}", runtime=runtime,
            search=search if held_out else None, split="validation" if held_out else "search",
            threshold=args.threshold,
        )  # fmt: skip

    def written(findings):
        code = finish(args, table, measure=measure, search=search, validation=validation, start=start,
                      space=_space(args, [args.label, args.score, *args.ignore]), report=report,
                      findings=findings)  # fmt: skip
        if interrupted is None or code != 0:
            return code
        cut = interrupted.partial
        return report_interrupted(args, f"{cut.when}; the aggregate of those {interrupted.finished} is written to "
                                        f"{Path(args.out).resolve()}: {cut.missing}")  # fmt: skip

    return gated(args, table, {"search": search, "validation": validation}, written)


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
        if args.validation is not None:
            _check_file(validation, args.validation, "validation", args.label, columns)
        labels = data[args.label] if args.validation is None else pd.concat(
            [data[args.label], validation[args.label]], ignore_index=True
        )  # fmt: skip
        score_columns = _class_columns(labels, args.score_columns, args.label)
        check_out(args.out)
        with _scheduler_client(args.scheduler) as client:
            table = find_multiclass_subgroups(
                search, label=args.label, score_columns=score_columns, mode=args.mode or "worse",
                validation=validation, size_weight=args.size_weight,
                balance_weight=args.balance_weight, generalization_aware=args.generalization_aware,
                depth=args.depth, min_support=args.min_support, nbins=args.nbins,
                ignore=args.ignore, thresholds=args.thresholds, keep_ids=args.keep_ids,
                result_set_size=args.top, collapse_identical=args.collapse_identical,
                max_overlap=args.max_overlap, n_samples=args.samples, intervals=args.intervals,
                min_delta=args.min_delta, random_state=args.seed, progress=not args.quiet,
                client=client, n_jobs=args.jobs, allow_large=args.allow_large,
            )  # fmt: skip
    except (*_INPUT_ERRORS, ImportError) as error:
        return fail(error)

    def report(folder, runtime):
        return write_multiclass_report(
            table, search if validation is None else validation, folder, title=f"SubROC multi-class report: {Path(args.data).name}",
            runtime=runtime,
        )  # fmt: skip

    return gated(args, table, {"search": search, "validation": validation}, lambda findings: finish(
        args, table, measure="auc_mu", search=search, validation=validation, start=start,
        space=_space(args, [args.label, *columns, *args.ignore]),
        report=report, findings=findings,
    ))  # fmt: skip


def _comparison_settings(args, validation):
    """The keyword arguments ``compare`` and ``drift`` pass on (the validation
    split(s) drawn here, as the API draws them, for the report)."""
    return dict(
        label=args.label, score=args.score, measure=args.measure, mode=args.mode,
        validation=validation, size_weight=args.size_weight,
        balance_weight=args.balance_weight, generalization_aware=args.generalization_aware,
        depth=args.depth, min_support=args.min_support, ignore=args.ignore,
        result_set_size=args.top, collapse_identical=args.collapse_identical,
        max_overlap=args.max_overlap, n_samples=args.samples, intervals=args.intervals,
        min_delta=args.min_delta, random_state=args.seed, progress=not args.quiet,
        allow_large=args.allow_large,
    )  # fmt: skip


@keeping_results
def compare_command(args):
    """``subroc-ext compare DATA``: where a new model falls behind the baseline."""
    start = time.perf_counter()
    try:
        data = _read(args.data, "data", args)
        check_columns(data, [args.label])
        positive = _positive_label(data[args.label], args.positive_label, args.label)
        check_out(args.out)
        check_columns(data, [args.score, args.baseline])
        search, validation = split_validation(data, args.validation_fraction, args.seed)
        table = find_regressions(search, baseline=args.baseline, positive_label=positive,
                                 **_comparison_settings(args, validation))  # fmt: skip
    except _INPUT_ERRORS as error:
        return fail(error)
    splits = {"search": search, "validation": validation}
    return gated(args, table, splits, lambda findings: finish_comparison(
        table, args, ("baseline", "new"), start, splits, validation, findings=findings))  # fmt: skip


@keeping_results
def drift_command(args):
    """``subroc-ext drift REFERENCE CURRENT``: where a model degraded over time."""
    start = time.perf_counter()
    try:
        reference = _read(args.reference, "reference", args)
        current = _read(args.current, "current", args)
        check_columns(reference, [args.label], what="the reference data")
        positive = _positive_label(reference[args.label], args.positive_label, args.label)
        check_out(args.out)
        for frame, path, name in ((reference, args.reference, "reference"), (current, args.current, "current")):
            _check_file(frame, path, name, args.label, [args.score], positive)
        (reference, held_reference), (current, held_current) = split_periods(
            reference, current, args.validation_fraction, args.seed
        )
        table = find_drift(reference, current, positive_label=positive,
                           **_comparison_settings(args, (held_reference, held_current)))  # fmt: skip
    except _INPUT_ERRORS as error:
        return fail(error)
    splits = {"reference_search": reference, "reference_validation": held_reference,
              "current_search": current, "current_validation": held_current}  # fmt: skip
    return gated(args, table, splits, lambda findings: finish_comparison(
        table, args, ("reference", "current"), start, splits, held_reference, held_current,
        findings=findings))  # fmt: skip


def recheck_command(args):
    """``subroc-ext recheck FINDINGS DATA``: the findings' subgroups measured again on new data."""
    try:
        findings = read_findings(args.findings)  # once: a pipe (<(...), /dev/stdin) can be read only once
        data = _read(args.data, "data", args)
        positive = None
        if args.positive_label is not None:
            label = args.label or findings["settings"].get("label")
            check_columns(data, [label])
            positive = _positive_label(data[label], args.positive_label, label)
        table = recheck(findings, data, label=args.label, score=args.score, positive_label=positive)
    except _INPUT_ERRORS as error:
        return fail(error)
    if args.format == "json":
        print(json.dumps(json_records(table), indent=2, ensure_ascii=False, allow_nan=False))
    else:
        print_recheck(table, args)
    return 0
