"""The command line end to end on large generated data, and how fast it starts.

Every measurement runs the command in a fresh process under GNU time
(``/usr/bin/time -v``) and records its wall time, CPU time (user + system)
and peak resident memory. With ``--trees A B`` each measurement alternates
between two source trees (e.g. ``main``'s worktree and a branch), pair by
pair, so that a shared machine's drift affects both alike.

Cases
-----
``run``
    ``python -m subroc_ext.cli run DATA.csv --label y --score p`` (depth 2,
    ROC AUC, top 100, the adaptive test on the half held out, the report)
    on a generated CSV of ``--rows`` rows (:func:`make_data`: six attributes,
    one of them a planted pair of conditions where the model fails).
``small``
    The same command on :func:`adult_sample`, ``--small-rows`` rows (2,000)
    of the shipped Adult data with a score column: a small run, where
    starting and writing the report are most of the time.
``version``
    ``python -m subroc_ext.cli --version``.
``demo``
    ``python -m subroc_ext.cli demo`` twice in a fresh copy of the package
    (as after ``pip install`` into a new virtual environment: no compiled
    kernel beside it), each pass with an empty user kernel cache
    (``$SUBROC_EXT_CACHE``, the first run on a machine) and then with the
    cache the first left (a fresh install on a machine that ran subroc-ext
    before), next to the runtime the demo reports.

Examples
--------
::

    nice -n 10 python benchmarks/bench_scale.py --cases run --rows 2000000 --trees /work/main .
    nice -n 10 python benchmarks/bench_scale.py --cases run --rows 2000000 --wide   # issue 58's table
    nice -n 10 python benchmarks/bench_scale.py --cases version demo --trees /work/main .
    nice -n 10 python benchmarks/bench_scale.py --cases small warm-demo --pairs 3 --trees /work/main .
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]


def make_data(rows, seed=0, wide=False):
    """``rows`` scored examples: attributes ``region`` (12 values), ``channel``
    (4), ``plan`` (3), ``age``, ``tenure``, ``spend``, label ``y`` (about 30 %
    positive) and score ``p``, random where ``channel == 'phone'`` and
    ``plan == 'basic'``; ``wide``: three more categorical attributes that
    change nothing (``segment``, 6 values, ``device``, 3, ``source``, 8), six
    categorical and three numeric in all, as issue 58's table."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({
        "region": rng.choice([f"r{i}" for i in range(12)], rows),
        "channel": rng.choice(["web", "app", "shop", "phone"], rows, p=[0.4, 0.3, 0.2, 0.1]),
        "plan": rng.choice(["basic", "plus", "pro"], rows),
        "age": rng.integers(18, 90, rows),
        "tenure": rng.integers(0, 240, rows),
        "spend": np.round(rng.gamma(2.0, 50.0, rows), 2),
    })  # fmt: skip
    logit = -1.5 + 0.02 * (frame["age"] - 50) + 0.004 * frame["tenure"] + 0.3 * (frame["plan"] == "pro")
    frame["y"] = (rng.random(rows) < 1 / (1 + np.exp(-logit))).astype(int)
    score = logit + rng.normal(0, 1, rows)
    failing = (frame["channel"] == "phone") & (frame["plan"] == "basic")
    score = np.where(failing, rng.normal(-1.5, 1.5, rows), score)
    frame["p"] = np.round(1 / (1 + np.exp(-score)), 6)
    if wide:
        other = np.random.default_rng(seed + 1)
        for name, values in (("segment", 6), ("device", 3), ("source", 8)):
            frame[name] = other.choice([f"{name[0]}{i}" for i in range(values)], rows)
    return frame


def adult_sample(rows, seed=0):
    """The first ``rows`` rows of the shipped Adult data with label ``y``
    (income above 50K) and score ``p``: a fixed logistic score of a few
    attributes with noise (ranking well overall, not in every subgroup)."""
    frame = pd.read_csv(ROOT / "subroc_ext" / "data" / "adult.csv.gz", nrows=rows)
    rng = np.random.default_rng(seed)
    frame["y"] = frame.pop("income").str.startswith(">50K").astype(int)
    logit = (-8 + 0.35 * frame["education_num"] + 0.04 * frame["age"] + 0.03 * frame["hours_per_week"]
             + 2.0 * (frame["marital_status"] == "Married-civ-spouse") + 0.0003 * frame["capital_gain"])
    frame["p"] = np.round(1 / (1 + np.exp(-(logit + rng.normal(0, 1, rows)))), 6)
    return frame


def timed(command, environment, cwd):
    """Wall s, CPU s, peak MB and stdout of ``command`` under GNU time."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as report:
        done = subprocess.run(
            ["/usr/bin/time", "-v", "-o", report.name, *command], env=environment, cwd=cwd,
            capture_output=True, text=True,
        )  # fmt: skip
        text = report.read()
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{done.stderr[-2000:]}")

    def field(name):
        return re.search(rf"{re.escape(name)}: (.*)", text).group(1).strip()

    clock = [float(part) for part in field("Elapsed (wall clock) time (h:mm:ss or m:ss)").split(":")]
    wall = sum(value * 60**power for power, value in enumerate(reversed(clock)))
    cpu = float(field("User time (seconds)")) + float(field("System time (seconds)"))
    return wall, cpu, int(field("Maximum resident set size (kbytes)")) / 1024, done.stdout


def environment_of(tree, cache=None):
    """The environment of a run of ``tree``'s code: the user's kernel cache
    (warm, as for any later run) unless ``cache`` is given."""
    environment = {**os.environ, "PYTHONPATH": str(tree)}
    if cache is not None:
        environment["SUBROC_EXT_CACHE"] = str(cache)
    environment.pop("NUMBA_CACHE_DIR", None)
    return environment


def reported_runtime(stdout):
    found = re.search(r"Runtime: ([\d.]+) s", stdout)
    return float(found.group(1)) if found else float("nan")


def fresh_copy(tree, folder):
    """The package of ``tree`` copied to ``folder`` without compiled files."""
    target = Path(folder) / "site-packages"
    shutil.copytree(Path(tree) / "subroc_ext", target / "subroc_ext",
                    ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    return target


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", nargs="+", default=["run", "version", "demo"],
                        choices=["run", "small", "version", "warm-demo", "demo"])  # fmt: skip
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--small-rows", type=int, default=2_000)
    parser.add_argument("--trees", nargs="+", default=[str(ROOT)], help="source trees to compare")
    parser.add_argument("--pairs", type=int, default=1, help="measurements per case and tree")
    parser.add_argument("--data", help="the generated CSV (made if missing)")
    parser.add_argument("--wide", action="store_true", help="six categorical attributes, not three (issue 58)")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="bench_scale_"))
    rows = []
    try:
        if "run" in args.cases:
            data = Path(args.data or work / f"scale_{args.rows}.csv")
            if not data.exists():
                make_data(args.rows, wide=args.wide).to_csv(data, index=False)
            print(f"data: {data} ({data.stat().st_size / 1e6:.0f} MB, {args.rows:,} rows)", flush=True)
        if "small" in args.cases:
            small = work / f"adult_{args.small_rows}.csv"
            adult_sample(args.small_rows).to_csv(small, index=False)
        caches = {tree: work / f"cache-{i}" for i, tree in enumerate(args.trees)}
        warm_up = [["demo"]] if "warm-demo" in args.cases else []
        if "small" in args.cases:
            warm_up.append(["run", str(small), "--label", "y", "--score", "p"])
        for tree, arguments in ((tree, arguments) for tree in args.trees for arguments in warm_up):
            # each tree's kernels compiled into a cache of its own before anything is timed
            timed([sys.executable, "-m", "subroc_ext.cli", *arguments, "--out", str(work / "warm"), "--quiet"],
                  environment_of(tree, caches[tree]), work)  # fmt: skip
        for _ in range(args.pairs):
            for tree in args.trees:
                before = len(rows)
                tag = Path(tree).resolve().name
                if "version" in args.cases:
                    wall, cpu, peak, _ = timed([sys.executable, "-m", "subroc_ext.cli", "--version"],
                                               environment_of(tree), work)  # fmt: skip
                    rows.append(("--version", tag, wall, cpu, peak, ""))
                if "run" in args.cases:
                    command = [sys.executable, "-m", "subroc_ext.cli", "run", str(data), "--label", "y",
                               "--score", "p", "--out", str(work / "report"), "--quiet"]  # fmt: skip
                    wall, cpu, peak, out = timed(command, environment_of(tree), work)
                    rows.append((f"run {args.rows:,} rows", tag, wall, cpu, peak,
                                 f"reported {reported_runtime(out):.1f} s"))  # fmt: skip
                if "small" in args.cases:
                    command = [sys.executable, "-m", "subroc_ext.cli", "run", str(small), "--label", "y",
                               "--score", "p", "--out", str(work / "small"), "--quiet"]  # fmt: skip
                    wall, cpu, peak, out = timed(command, environment_of(tree, caches[tree]), work)
                    rows.append((f"run {args.small_rows:,} Adult rows", tag, wall, cpu, peak,
                                 f"reported {reported_runtime(out):.1f} s"))  # fmt: skip
                if "warm-demo" in args.cases:
                    command = [sys.executable, "-m", "subroc_ext.cli", "demo", "--out", str(work / "demo"), "--quiet"]
                    wall, cpu, peak, out = timed(command, environment_of(tree, caches[tree]), work)
                    rows.append(("demo, warm kernel cache", tag, wall, cpu, peak,
                                 f"reported {reported_runtime(out):.1f} s"))  # fmt: skip
                if "demo" in args.cases:
                    for label, empty in (("first demo, empty kernel cache", True),
                                         ("first demo, kernel cache of an earlier install", False),
                                         ("second demo", False)):  # fmt: skip
                        if empty:
                            shutil.rmtree(work / "demo-cache", ignore_errors=True)
                        if label != "second demo":
                            shutil.rmtree(work / "install", ignore_errors=True)
                            install = fresh_copy(tree, work / "install")
                        command = [sys.executable, "-m", "subroc_ext.cli", "demo", "--out",
                                   str(work / "demo"), "--quiet"]  # fmt: skip
                        wall, cpu, peak, out = timed(command, environment_of(install, work / "demo-cache"), work)
                        rows.append((label, tag, wall, cpu, peak, f"reported {reported_runtime(out):.1f} s"))
                for row in rows[before:]:
                    print(*row, flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("\n| case | tree | wall s | CPU s | peak MB | note |\n|---|---|---|---|---|---|")
    for case, tag, wall, cpu, peak, note in rows:
        print(f"| {case} | {tag} | {wall:.2f} | {cpu:.2f} | {peak:,.0f} | {note} |")


if __name__ == "__main__":
    main()
