"""Table 2 / supp. B.5: search runtimes with and without optimistic-estimate pruning.

The paper's protocol: for each dataset, depth (3 and 4), measure and weight
alpha = beta in {0, 0.1, 0.3, 1}, the search algorithm of the run
(``config.SEARCH``: ``ps.BestFirstSearch``; min support 20, top-10, quality
> 0) on the search split, scored by a Gaussian naive Bayes model (one-hot
categorical features) trained on the training split, with

* pruning on: subroc-ext's quality function;
* pruning off: the same function with every optimistic estimate +inf and no
  estimate computed at all (``subroc_ext.engine.counting.without_estimates``);

each ``runtime_repeats`` times (the paper: 10, Census 3), on and off
alternating, reporting the median wall and CPU time (the CPU time is the
headline: the machine is shared), the number of candidates evaluated (calls
of ``calculate_statistics``; the same in every repetition), the share still
evaluated with pruning on, the speed-up of the medians, and whether both
found the same top-10 qualities. Each search is stopped after
``runtime_timeout`` seconds (reported as stopped, never silently dropped; the
remaining repetitions of a stopped configuration are skipped). No
generalization awareness (plain weighted measures).

Side by side on Adult: the same searches with pysubgroup 0.9.0's own
``ps.ROCAUCQF``, ``ps.PRAUCQF`` and ``ps.ARLQF`` (they need a RangeIndex and
{0, 1} labels, which every frame here has), capped at ``pysubgroup_timeout``.

Outputs in ``--out``: ``table2_runtimes.csv|md`` (long, with the paper's
numbers), ``table2_speedups.md`` (the paper's layout), ``table2_pysubgroup.csv|md``.

    python -m experiments.table2_runtimes [--smoke] [--out DIR]
"""

import sys
from importlib.metadata import version
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import pandas as pd
import pysubgroup as ps

import subroc_ext
from experiments import common, config
from subroc_ext.workflow.pipeline import make_quality_function


def binary_frame(prepared):
    """The search split with the label as {0, 1} (1 = positive) and a RangeIndex."""
    frame = prepared.search.copy()
    frame[prepared.label] = (frame[prepared.label] == prepared.positive).astype(int)
    return frame.reset_index(drop=True)


def pysubgroup_qf(measure, label, weight):
    if measure == "roc_auc":
        return ps.ROCAUCQF(label, weight, weight)
    cls = {"pr_auc": ps.PRAUCQF, "arl": ps.ARLQF}[measure]
    return cls(label, 1, weight, weight)


def same_qualities(a, b):
    if not (a.finished and b.finished):
        return None
    qa = np.array([q for q, _ in a.results])
    qb = np.array([q for q, _ in b.results])
    return bool(len(qa) == len(qb) and np.allclose(qa, qb, rtol=1e-9, atol=1e-9))


def timed(frame, label, selectors, qf, depth, st, prune=True, timeout=None):
    return common.run_search(
        frame, subroc_ext.SoftClassifierTarget(label, common.SCORE), selectors, qf, depth=depth,
        result_set_size=st["runtime_result_set_size"], min_support=st["min_support"],
        prune=prune, timeout=timeout or st["runtime_timeout"], search=st["search"],
    )  # fmt: skip


def _seconds(run):
    return run.seconds if run is not None and run.finished else np.nan


def median_run(runs):
    """One :class:`common.SearchRun` standing for repetitions of a search: the
    median wall and CPU time, the first run's results and candidates; not
    finished if any repetition was stopped.

    Raises
    ------
    RuntimeError
        If the repetitions evaluated different numbers of candidates (the
        searches are deterministic, so that would be a bug).
    """
    if not all(run.finished for run in runs):
        return next(run for run in runs if not run.finished)
    counts = {run.candidates for run in runs}
    if len(counts) > 1:
        raise RuntimeError(f"repetitions of one search evaluated different numbers of candidates: {sorted(counts)}")
    return common.SearchRun(
        runs[0].results, float(np.median([run.seconds for run in runs])),
        float(np.median([run.cpu_seconds for run in runs])), runs[0].candidates, True,
    )  # fmt: skip


def repeated(frame, label, selectors, measure, w, depth, st, repeats, skip_on=False, skip_off=False):
    """``repeats`` searches with pruning on and off, alternating; returns the
    two median runs (None where skipped). A stopped search ends its side's repetitions."""
    on_runs, off_runs = [], []
    for _ in range(repeats):
        for runs, prune, skip in ((on_runs, True, skip_on), (off_runs, False, skip_off)):
            if skip or (runs and not runs[-1].finished):
                continue
            qf = make_quality_function(measure, label, positive_label=1, size_weight=w, balance_weight=w)
            runs.append(timed(frame, label, selectors, qf, depth, st, prune=prune))
    return (median_run(on_runs) if on_runs else None), (median_run(off_runs) if off_runs else None)


def pruning_table(st):
    rows = []
    for dataset in st["runtime_datasets"]:
        prepared = common.prepare(dataset, st, model=st["runtime_model"])
        frame = binary_frame(prepared)
        label = prepared.label
        common.log(f"table2: {dataset}: {len(frame)} rows, {len(prepared.selectors)} selectors, model {prepared.model}")
        depths = st["runtime_depths"]
        if prepared.cfg.runtime_depths and not st.get("runtime_depths_forced"):
            depths = tuple(d for d in depths if d in prepared.cfg.runtime_depths) or prepared.cfg.runtime_depths
        repeats = st["runtime_repeats"]
        if prepared.cfg.runtime_repeats and not st.get("runtime_repeats_forced"):
            repeats = prepared.cfg.runtime_repeats
        for depth in depths:
            for measure in st["runtime_measures"]:
                off_timed_out = on_timed_out = False
                for w in st["runtime_weights"]:
                    on, off = repeated(
                        frame, label, prepared.selectors, measure, w, depth, st, repeats,
                        skip_on=on_timed_out, skip_off=off_timed_out,
                    )  # fmt: skip
                    on_timed_out = on_timed_out or (on is not None and not on.finished)
                    off_timed_out = off_timed_out or (off is not None and not off.finished)
                    paper = config.PAPER_RUNTIMES.get((depth, measure, dataset))
                    share = config.PAPER_EVALUATED_SHARE.get((depth, measure, dataset))
                    i = list(config.FULL["runtime_weights"]).index(w) if w in config.FULL["runtime_weights"] else None
                    row = {
                        "dataset": dataset, "depth": depth, "measure": measure, "alpha=beta": w,
                        "repeats": repeats, "search": st["search"], "on_s": _seconds(on), "off_s": _seconds(off),
                        "on_cpu_s": on.cpu_seconds if on and on.finished else np.nan,
                        "off_cpu_s": off.cpu_seconds if off and off.finished else np.nan,
                        "on_candidates": on.candidates if on and on.finished else np.nan,
                        "off_candidates": off.candidates if off and off.finished else np.nan,
                        "status": "ok" if (on and on.finished and off and off.finished) else
                                  f"on: {_status(on, st)}, off: {_status(off, st)}",
                        "same_result": same_qualities(on, off) if on and off else None,
                        "paper_off_s": paper[i][0] if paper and i is not None else np.nan,
                        "paper_on_s": paper[i][1] if paper and i is not None else np.nan,
                        "paper_share_%": share[i] if share and i is not None else np.nan,
                    }  # fmt: skip
                    row["share_%"] = 100 * row["on_candidates"] / row["off_candidates"]
                    row["speedup"] = row["off_s"] / row["on_s"]
                    row["speedup_cpu"] = row["off_cpu_s"] / row["on_cpu_s"]
                    row["paper_speedup"] = row["paper_off_s"] / row["paper_on_s"]
                    rows.append(row)
                    common.log(
                        f"  {dataset} d{depth} {measure:>16} w={w:g}: on {row['on_s']:.2f}s "
                        f"({row['on_candidates']} cand.), off {row['off_s']:.2f}s "
                        f"({row['off_candidates']} cand.), same={row['same_result']} {row['status']}"
                    )
    return pd.DataFrame(rows)


def _status(run, st):
    if run is None:
        return "not run (a lighter weight already exceeded the time budget)"
    return "ok" if run.finished else f"stopped after {st['runtime_timeout']:.0f}s"


def speedup_layout(table):
    """Speed-ups of the medians, ours by CPU time / by wall time (paper, wall),
    one row per measure and weight, one column per dataset and depth."""
    rows = []
    for (measure, w), group in table.groupby(["measure", "alpha=beta"], sort=False):
        row = {"measure": config.MEASURE_NAMES[measure], "alpha=beta": w}
        for _, r in group.iterrows():
            ours = "-" if np.isnan(r.speedup_cpu) else f"{r.speedup_cpu:.1f} / {r.speedup:.1f}"
            paper = "" if np.isnan(r.paper_speedup) else f" ({r.paper_speedup:.1f})"
            row[f"{r.dataset} d{r.depth}"] = ours + paper
        rows.append(row)
    return pd.DataFrame(rows)


def pysubgroup_table(st):
    prepared = common.prepare("adult", st, model=st["runtime_model"])
    frame = binary_frame(prepared)
    label = prepared.label
    rows = []
    for depth, measure, w in st["pysubgroup_runs"]:
        ours = timed(frame, label, prepared.selectors,
                     make_quality_function(measure, label, positive_label=1, size_weight=w, balance_weight=w),
                     depth, st)  # fmt: skip
        theirs = timed(frame, label, prepared.selectors, pysubgroup_qf(measure, label, w), depth, st,
                       timeout=st["pysubgroup_timeout"])  # fmt: skip
        row = {
            "depth": depth, "measure": measure, "alpha=beta": w,
            "ours_s": _seconds(ours), "ours_cpu_s": ours.cpu_seconds, "ours_candidates": ours.candidates,
            "pysubgroup_s": _seconds(theirs),
            "pysubgroup_cpu_s": theirs.cpu_seconds if theirs.finished else np.nan,
            "pysubgroup_candidates": theirs.candidates if theirs.finished else np.nan,
            "pysubgroup_status": "ok" if theirs.finished else
                f"stopped after {st['pysubgroup_timeout']:.0f}s (> {theirs.candidates} candidates)",
            "speedup": _seconds(theirs) / _seconds(ours),
            "same_top10_qualities": same_qualities(ours, theirs),
        }  # fmt: skip
        rows.append(row)
        common.log(
            f"  pysubgroup d{depth} {measure} w={w:g}: ours {row['ours_s']:.2f}s, "
            f"pysubgroup {row['pysubgroup_s']:.1f}s {row['pysubgroup_status']}, same={row['same_top10_qualities']}"
        )
    return pd.DataFrame(rows)


def main(argv=None):
    p = common.parser(__doc__.splitlines()[0])
    p.add_argument("--skip-pysubgroup", action="store_true", help="do not run pysubgroup's own quality functions")
    p.add_argument("--only-pysubgroup", action="store_true", help="run only the pysubgroup comparison")
    p.add_argument("--runtime-depths", type=int, nargs="+", help="override the depths")
    p.add_argument("--pysubgroup-depths", type=int, nargs="+", help="keep only the pysubgroup runs at these depths")
    p.add_argument("--timeout", type=float, help="override the per-search time budget (seconds)")
    p.add_argument("--repeats", type=int, help="override the repetitions of every search (also Census's)")
    args = p.parse_args(argv)
    st = common.settings_from(args)
    if args.datasets:
        st["runtime_datasets"] = tuple(args.datasets)
    if args.smoke:
        st["runtime_datasets"] = tuple(d for d in st["runtime_datasets"] if d not in config.NEEDS_NETWORK)
    if args.runtime_depths:
        st["runtime_depths"] = tuple(args.runtime_depths)
        st["runtime_depths_forced"] = True
    if args.pysubgroup_depths:
        st["pysubgroup_runs"] = tuple(r for r in st["pysubgroup_runs"] if r[0] in args.pysubgroup_depths)
    if args.timeout:
        st["runtime_timeout"] = args.timeout
    if args.repeats:
        st["runtime_repeats"] = args.repeats
        st["runtime_repeats_forced"] = True
    if not args.only_pysubgroup:
        table = pruning_table(st)
        common.write_table(table, args.out, "table2_runtimes", title="Runtimes with (on) and without (off) pruning")
        common.write_table(
            speedup_layout(table), args.out, "table2_speedups",
            title="Speed-up off/on of the median runtimes: ours by CPU time / by wall time (paper by wall time; depth 3: supp. Tables 13-15, depth 4: Tables 18-20)",
        )  # fmt: skip
    if not args.skip_pysubgroup and not hasattr(ps, "ROCAUCQF"):
        print(f"NOTE: pysubgroup {version('pysubgroup')} has no ROCAUCQF/PRAUCQF/ARLQF (they came "
              "with pysubgroup 0.9.0): skipping the comparison with its own quality "
              "functions (table2_pysubgroup.*)", flush=True)  # fmt: skip
        args.skip_pysubgroup = True
    if not args.skip_pysubgroup:
        common.write_table(
            pysubgroup_table(st), args.out, "table2_pysubgroup",
            title="Adult: subroc-ext vs pysubgroup 0.9.0's own quality functions (pruning on)",
        )  # fmt: skip
    common.log("table2: done")


if __name__ == "__main__":
    main()
