"""Helpers shared by the experiment scripts: data preparation, models,
searches, covers, and writing tables.

Everything here is deterministic given the seed in the settings.
"""

import argparse
import hashlib
import json
import os
import pickle
import platform
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pysubgroup as ps
from threadpoolctl import threadpool_limits

import subroc_ext
from subroc_ext.demo import modelling
from subroc_ext.workflow import steps
from subroc_ext.workflow.diversity import cover_matrix
from subroc_ext.workflow.pipeline import make_quality_function

from . import config, datasets

SCORE = "score"
EXPERIMENTS_DIR = Path(__file__).resolve().parent
DEFAULT_OUT = EXPERIMENTS_DIR / "results"


# --------------------------------------------------------------------------
# command line
# --------------------------------------------------------------------------


def parser(description):
    """An argument parser with the options every script shares."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument(
        "--out", type=Path,
        help="output directory (default: experiments/results/; with --smoke a new temporary directory)",
    )  # fmt: skip
    p.add_argument("--smoke", action="store_true", help="tiny sizes: a few seconds, no network")
    p.add_argument("--datasets", nargs="+", choices=sorted(config.DATASETS), help="override the datasets")
    p.add_argument("--seed", type=int, help="override the seed of splits, model and tests")
    p.add_argument("--n-samples", type=int, help="override the randomization-test samples")
    p.add_argument("--depth", type=int, help="override every dataset's search depth")
    p.add_argument("--rows", type=int, help="subsample every dataset to this many rows")
    p.add_argument("--search", choices=sorted(SEARCH_ALGORITHMS), help="override the search algorithm")
    return p


def settings_from(args):
    """The run's settings: config defaults (full or smoke) plus overrides."""
    st = config.settings(args.smoke)
    for key in ("datasets", "seed", "n_samples", "depth", "rows", "search"):
        value = getattr(args, key, None)
        if value is not None:
            st[key] = tuple(value) if isinstance(value, list) else value
    if args.smoke:
        st["datasets"] = tuple(d for d in st["datasets"] if d not in config.NEEDS_NETWORK)
    args.out = output_dir(args.out, args.smoke)
    return st


def output_dir(out, smoke):
    """The directory a run writes to, created.

    A full run writes to ``out`` or, by default, the committed
    ``experiments/results/``. A smoke run must never touch the committed
    results: by default it writes to a new temporary directory (announced on
    stdout), and an ``out`` inside ``experiments/results/`` is refused.
    """
    if out is None:
        if not smoke:
            out = DEFAULT_OUT
        else:
            out = Path(tempfile.mkdtemp(prefix="subroc-ext-smoke-"))
            log(f"smoke run: writing to {out}")
    elif smoke and Path(out).resolve().is_relative_to(DEFAULT_OUT.resolve()):
        raise SystemExit(
            f"error: --out {out} is inside {DEFAULT_OUT}, which holds the committed results of the "
            "full run; a --smoke run must write elsewhere (omit --out for a temporary directory)"
        )
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    return out


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


# --------------------------------------------------------------------------
# data and model
# --------------------------------------------------------------------------


@dataclass
class Prepared:
    """A dataset split into four parts, scored by a model trained on the first."""

    name: str
    cfg: config.DatasetConfig
    n_rows: int
    ncr: float
    model: str
    search: pd.DataFrame
    validation: pd.DataFrame
    evaluation: pd.DataFrame
    model_seconds: float
    selectors: list = None

    @property
    def label(self):
        return self.cfg.label

    @property
    def positive(self):
        return self.cfg.positive

    @property
    def target(self):
        return subroc_ext.SoftClassifierTarget(self.cfg.label, SCORE)

    def depth(self, st, measure=None):
        """Search depth: the run's override, else the dataset's (per measure)."""
        if st.get("depth"):
            return st["depth"]
        return dict(self.cfg.measure_depths).get(measure, self.cfg.depth)

    def n_samples(self, st):
        """Randomization-test samples: the run's, capped by the dataset's maximum."""
        cap = self.cfg.max_n_samples
        return st["n_samples"] if cap is None else min(cap, st["n_samples"])


def load_frame(name, rows=None, seed=0):
    """The dataset as a DataFrame (NA rows dropped if configured, subsampled to ``rows``)."""
    cfg = config.DATASETS[name]
    frame, _, _ = datasets.load(cfg.loader)
    if cfg.dropna:
        frame = frame.dropna()
    if rows is not None and rows < len(frame):
        frame = frame.sample(n=rows, random_state=seed)
    return frame.reset_index(drop=True)


def model_kind(requested="xgboost"):
    """``requested``, or sklearn's HistGradientBoostingClassifier when xgboost is missing."""
    if requested == "xgboost":
        try:
            import xgboost  # noqa: F401
        except ImportError:
            return "hist_gradient_boosting"
    return requested


def _categorical_features(frame, features, reference):
    X = frame[features].copy()
    for column in features:
        if not pd.api.types.is_numeric_dtype(reference[column]):
            categories = sorted(reference[column].dropna().astype(str).unique())
            X[column] = pd.Categorical(X[column].astype(object).where(X[column].notna()), categories=categories)
    return X


def _one_hot_features(frame, features, reference):
    numeric = [c for c in features if pd.api.types.is_numeric_dtype(reference[c])]
    nominal = [c for c in features if c not in numeric]
    X = frame[numeric].astype(float).fillna(reference[numeric].median())
    parts = [X]
    for column in nominal:
        categories = sorted(reference[column].dropna().astype(str).unique())
        values = pd.Categorical(frame[column].astype(object).where(frame[column].notna()), categories=categories)
        dummies = pd.get_dummies(values, prefix=column, dummy_na=True).astype(float)
        dummies.index = frame.index
        parts.append(dummies)
    return pd.concat(parts, axis=1)


def fit_and_score(train, others, label, positive, features, reference, kind, seed):
    """Fit a model of ``kind`` on ``train``; return ``others`` with a score column
    (the predicted probability of the positive class)."""
    y = (train[label] == positive).astype(int).to_numpy()
    with threadpool_limits(1):
        if kind == "xgboost":
            import xgboost

            model = xgboost.XGBClassifier(
                enable_categorical=True, tree_method="hist", n_jobs=1, random_state=seed
            )
            encode = _categorical_features
        elif kind == "hist_gradient_boosting":
            from sklearn.ensemble import HistGradientBoostingClassifier

            model = HistGradientBoostingClassifier(categorical_features="from_dtype", random_state=seed)
            encode = _categorical_features
        elif kind == "gaussian_nb":
            from sklearn.naive_bayes import GaussianNB

            model = GaussianNB()
            encode = _one_hot_features
        else:
            raise ValueError(f"unknown model {kind!r}")
        model.fit(encode(train, features, reference), y)
        return [
            frame.assign(**{SCORE: model.predict_proba(encode(frame, features, reference))[:, 1]})
            for frame in others
        ]


_PREPARED = {}


def prepare(name, st, model="xgboost"):
    """Load, split into four equal random parts, fit the model on part 0 and
    score parts 1-3 (search, validation, evaluation). Cached per process."""
    kind = model_kind(model)
    key = (name, st["seed"], st["rows"], kind)
    if key in _PREPARED:
        return _PREPARED[key]
    cfg = config.DATASETS[name]
    frame = load_frame(name, st["rows"], st["seed"])
    features = [c for c in frame.columns if c != cfg.label and c not in cfg.ignore]
    train, search, validation, evaluation = modelling.split_parts(
        frame, config.N_PARTS, random_state=st["seed"]
    )
    start = time.perf_counter()
    search, validation, evaluation = fit_and_score(
        train, [search, validation, evaluation], cfg.label, cfg.positive, features, frame, kind, st["seed"]
    )
    seconds = time.perf_counter() - start
    keep = [*features, cfg.label, SCORE]
    search, validation, evaluation = (f[keep].reset_index(drop=True) for f in (search, validation, evaluation))
    prepared = Prepared(
        name, cfg, len(frame), float((frame[cfg.label] != cfg.positive).mean()), kind,
        search, validation, evaluation, seconds,
    )  # fmt: skip
    prepared.selectors = ps.create_selectors(search, nbins=config.NBINS, ignore=[cfg.label, SCORE])
    _PREPARED[key] = prepared
    return prepared


def dataset_values(prepared, frame):
    """Every built-in measure on a whole split."""
    values = {}
    for measure in config.MEASURES:
        qf = make_quality_function(measure, prepared.label, positive_label=prepared.positive)
        qf.calculate_constant_statistics(frame, prepared.target)
        values[measure] = qf.dataset_value
    return values


# --------------------------------------------------------------------------
# searching
# --------------------------------------------------------------------------


def _fast_search():
    if not hasattr(subroc_ext, "FastSearch"):
        raise RuntimeError(
            f"search 'fast' needs subroc_ext.FastSearch, which this subroc-ext "
            f"({subroc_ext.__file__}) does not have yet; use --search best_first"
        )
    return subroc_ext.FastSearch()


#: The search algorithms, by name: factories of objects with pysubgroup's
#: ``execute(task)``. THE switch of every experiment is ``config.SEARCH``
#: (``--search`` on the command line): pysubgroup's BestFirstSearch for now;
#: ``fast`` (subroc-ext's own engine, ``subroc_ext.FastSearch``) for the depth-4 runs.
SEARCH_ALGORITHMS = {"best_first": ps.BestFirstSearch, "fast": _fast_search}


@dataclass
class SearchRun:
    results: list  # (quality, description), best first
    seconds: float
    cpu_seconds: float
    candidates: int
    finished: bool


def run_search(data, target, selectors, qf, *, depth, result_set_size, min_support,
               min_quality=config.MIN_QUALITY, prune=True, timeout=None, search=config.SEARCH):  # fmt: skip
    """Run the search algorithm named ``search`` (:data:`SEARCH_ALGORITHMS`)
    on the task (:func:`subroc_ext.workflow.steps.search`): timed, candidates
    counted, optionally stopped after ``timeout`` seconds (then
    ``finished=False``, no results). ``prune=False`` searches without
    optimistic-estimate pruning and without computing any estimate."""
    found = steps.search(
        data, qf, target, selectors=selectors, depth=depth, min_support=min_support,
        result_set_size=result_set_size, min_quality=min_quality, prune=prune,
        algorithm=SEARCH_ALGORITHMS[search](), timeout=timeout,
    )  # fmt: skip
    return SearchRun(
        list(zip(found.qualities, found.subgroups)), found.seconds, found.cpu_seconds,
        found.candidates, found.finished,
    )  # fmt: skip


#: Boolean matrix: row i is subgroup i's cover on ``data``.
covers = cover_matrix


def iou(a, b):
    union = np.count_nonzero(a | b)
    return np.count_nonzero(a & b) / union if union else np.nan


def mean_pairwise_iou(cover_matrix):
    n = len(cover_matrix)
    if n < 2:
        return np.nan
    return float(np.mean([iou(cover_matrix[i], cover_matrix[j]) for i in range(n) for j in range(i + 1, n)]))


def raw_qualities(subgroups, data, prepared, measure):
    """The unweighted relative quality ``q`` of each subgroup on ``data`` (NaN where undefined)."""
    qf = make_quality_function(measure, prepared.label, positive_label=prepared.positive)
    qf.calculate_constant_statistics(data, prepared.target)
    values = [qf.calculate_statistics(sg, prepared.target, data).raw_quality for sg in subgroups]
    return np.where(np.isfinite(values), values, np.nan)


# --------------------------------------------------------------------------
# one SubROC setting: search + test + describe (Table 1, case study)
# --------------------------------------------------------------------------

SETTINGS = {
    # name: (size weight alpha, balance weight beta, generalization aware, top-k key)
    "basic": (0.0, 0.0, False, "top_basic"),
    "full": (1.0, 1.0, True, "top_full"),
    # supp. Table 5: the basic weights, but the top-100 tested and the top-5 significant reported
    "basic_tested": (0.0, 0.0, False, "top_full"),
}


def _cache_path(out, key):
    digest = hashlib.sha1(json.dumps(key, sort_keys=True, default=str).encode()).hexdigest()[:12]
    return Path(out) / "cache" / f"{key['dataset']}_{key['measure']}_{key['setting']}_{digest}.pkl"


def run_setting(prepared, measure, setting, st, out):
    """Search the top-k patterns of a setting, test them on the validation
    split and describe them on the search and evaluation splits.

    Returns a dict with ``table`` (one row per pattern, best first),
    ``covers`` (search-split covers), ``search_seconds``, ``test_seconds``,
    ``candidates``. Cached in ``out/cache/`` so that several scripts share one run.
    """
    alpha, beta, generalization_aware, top_key = SETTINGS[setting]
    depth = prepared.depth(st, measure)
    n_samples = prepared.n_samples(st)
    key = {
        "dataset": prepared.name, "measure": measure, "setting": setting, "seed": st["seed"],
        "rows": st["rows"], "depth": depth, "k": st[top_key], "n_samples": n_samples,
        "min_support": st["min_support"], "model": prepared.model, "min_quality": config.MIN_QUALITY,
        "search": st["search"],
    }  # fmt: skip
    path = _cache_path(out, key)
    if path.exists():
        with open(path, "rb") as handle:
            return pickle.load(handle)
    qf = make_quality_function(
        measure, prepared.label, positive_label=prepared.positive, size_weight=alpha,
        balance_weight=beta, generalization_aware=generalization_aware,
    )  # fmt: skip
    run = run_search(
        prepared.search, prepared.target, prepared.selectors, qf, depth=depth,
        result_set_size=st[top_key], min_support=st["min_support"], search=st["search"],
    )  # fmt: skip
    subgroups = [d for _, d in run.results]
    start = time.perf_counter()
    statistic = make_quality_function(measure, prepared.label, positive_label=prepared.positive)
    tested = steps.test(
        subgroups, prepared.validation, statistic, prepared.target, n_samples=n_samples,
        method=config.CORRECTION, alpha=config.ALPHA, random_state=st["seed"],
        intervals="simultaneous",  # the paper's protocol: the test alone decides
    )  # fmt: skip
    test_seconds = time.perf_counter() - start
    described = steps.describe(subgroups, prepared.search, prepared.target, positive_label=prepared.positive)
    table = pd.concat(
        [
            pd.DataFrame(
                {
                    "rank": np.arange(1, len(subgroups) + 1),
                    "description": [str(sg) for sg in subgroups],
                    "quality": [q for q, _ in run.results],
                }
            ),
            described,
            pd.DataFrame(
                {
                    "q_search": raw_qualities(subgroups, prepared.search, prepared, measure),
                    "q_evaluation": raw_qualities(subgroups, prepared.evaluation, prepared, measure),
                    "q_validation": tested["statistic"].to_numpy(dtype=float),
                    "p_value": tested["p_value"].to_numpy(dtype=float),
                    "p_value_corrected": tested["p_value_corrected"].to_numpy(dtype=float),
                    "significant": tested["significant"].to_numpy(dtype=bool),
                }
            ),
        ],
        axis=1,
    )
    outcome = {
        "key": key,
        "table": table,
        "covers": covers(subgroups, prepared.search),
        "search_seconds": run.seconds,
        "test_seconds": test_seconds,
        "candidates": run.candidates,
        "depth": depth,
        "n_samples": n_samples,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as handle:
        pickle.dump(outcome, handle)
    return outcome


def reported_rows(outcome, setting, st):
    """Indices of the reported patterns: basic = the top-k; full and
    basic_tested = the top ``report`` of the significant ones."""
    table = outcome["table"]
    if setting == "basic":
        return np.arange(len(table))
    return np.flatnonzero(table["significant"].to_numpy())[: st["report"]]


# --------------------------------------------------------------------------
# output
# --------------------------------------------------------------------------


def _format(value, digits):
    if isinstance(value, (float, np.floating)):
        if np.isnan(value):
            return "-"
        if value == int(value) and abs(value) >= 1000:
            return f"{int(value)}"
        magnitude = abs(value)
        if magnitude >= 100:
            return f"{value:.0f}"
        if magnitude >= 10:
            return f"{value:.1f}"
        return f"{value:.{digits}f}"
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    return str(value).replace("|", "\\|")


def markdown(frame, digits=2):
    """A GitHub markdown table of ``frame`` (no external dependency)."""
    header = "| " + " | ".join(map(str, frame.columns)) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    rows = ["| " + " | ".join(_format(v, digits) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([header, rule, *rows]) + "\n"


def write_table(frame, out, name, digits=2, title=None):
    """Write ``out/name.csv`` and ``out/name.md``; return the markdown."""
    out = Path(out)
    frame.to_csv(out / f"{name}.csv", index=False)
    text = markdown(frame, digits)
    with open(out / f"{name}.md", "w") as handle:
        if title:
            handle.write(f"### {title}\n\n")
        handle.write(text)
    return text


def machine_info():
    """CPU count, CPU model, RAM and software versions."""
    info = {"nproc": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()}
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    info["cpu"] = line.split(":", 1)[1].strip()
                    break
        with open("/proc/meminfo") as handle:
            total = next(line for line in handle if line.startswith("MemTotal"))
            info["ram_gb"] = round(int(total.split()[1]) / 1024**2, 1)
    except (OSError, StopIteration):
        pass
    import importlib.metadata as md

    for package in ("pysubgroup", "numpy", "pandas", "scikit-learn", "xgboost", "matplotlib"):
        try:
            info[package] = md.version(package)
        except md.PackageNotFoundError:
            info[package] = "not installed"
    return info


def write_json(data, out, name):
    with open(Path(out) / f"{name}.json", "w") as handle:
        json.dump(data, handle, indent=2, default=str)

