"""Integration tests of the pysubgroup quality functions in subroc_ext.objective.quality.

* drop-in parity with pysubgroup 0.9.0's ``ROCAUCQF``, ``PRAUCQF`` and
  ``ARLQF`` on real data (German credit, a sample of Adult);
* the same qualities on any index and any label encoding;
* clear errors for bad input;
* the pysubgroup call protocol (statistics, representations, vectorization);
* user-defined measures against a direct computation;
* optimistic estimates that bound every subset of small covers.

Search-level tests (pruning, every algorithm) are in ``test_search.py``.
"""

import itertools

import numpy as np
import pandas as pd
import pysubgroup as ps
import pytest
from sklearn.metrics import roc_auc_score as sklearn_roc_auc
from threadpoolctl import threadpool_limits

import subroc_ext
from search_helpers import make_qf, needs_pysubgroup_qfs
from subroc_ext.scoring import bitset, cover_kernels, measures
from subroc_ext.objective.generalization import generalization_aware_quality
from subroc_ext.demo.datasets import load_adult, load_german_credit
from subroc_ext.demo.modelling import fit_and_score, split_parts
from subroc_ext.objective.statistics import SubgroupStatistics
from synthetic import scored_frame

TARGET = subroc_ext.SoftClassifierTarget("label", "score")
MODES = ("worse", "better", "both")
#: (size_weight alpha, balance_weight beta)
WEIGHTS = [(0, 0), (1, 1), (0.3, 1), (1, 0.3), (2, 0)]
QF_NAMES = ("roc", "pr", "arl", "attribution")




def statistics_table(qf, data, subgroups, target=TARGET):
    """The statistics of each subgroup: one row per subgroup, one float column per field."""
    qf.calculate_constant_statistics(data, target)
    rows = [qf.calculate_statistics(sg, target, data) for sg in subgroups]
    return pd.DataFrame(rows, columns=SubgroupStatistics._fields, dtype=float)


def qualities(qf, data, subgroups, target=TARGET):
    qf.calculate_constant_statistics(data, target)
    return np.array([qf.evaluate(sg, target, data) for sg in subgroups], dtype=float)


def selector_subgroups(data, n_pairs, seed, attributes=None):
    """Every selector alone, and ``n_pairs`` random pairs of selectors."""
    columns = data.columns if attributes is None else list(attributes) + ["label", "score"]
    selectors = ps.create_selectors(data[columns], ignore=["label", "score"])
    rng = np.random.default_rng(seed)
    pairs = [rng.choice(len(selectors), size=2, replace=False) for _ in range(n_pairs)]
    return [ps.Conjunction([s]) for s in selectors] + [
        ps.Conjunction([selectors[i], selectors[j]]) for i, j in pairs
    ]


def top_k(result):
    return [(float(q), frozenset(map(str, sg.selectors))) for q, sg, _ in result.results]


def assert_same_top_k(found, expected, k):
    """Same sorted qualities; same descriptions except those tied at the cut-off."""
    found_q = [q for q, _ in found]
    expected_q = [q for q, _ in expected]
    assert len(found_q) == len(expected_q), (found, expected)
    np.testing.assert_allclose(found_q, expected_q, rtol=1e-9, atol=1e-12)
    cutoff = expected_q[-1] if len(expected) == k else np.nan

    def untied(items):
        return {d for q, d in items if not np.isclose(q, cutoff, rtol=1e-9, atol=1e-12)}

    assert untied(found) == untied(expected)


# ---------------------------------------------------------------------------
# real data: German credit and a sample of Adult, scored by a model trained
# on a separate split
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def german():
    """333 rows of German credit scored by a model fit on the other 667;
    0..n-1 index and a 0/1 ``label`` (1 = 'bad' credit), as pysubgroup needs."""
    parts = split_parts(load_german_credit(), 3, random_state=0)
    with threadpool_limits(1):  # OpenMP threads crawl on a busy machine
        (scored,) = fit_and_score(pd.concat(parts[:2]), "class", "bad", parts[2])
    scored = scored.reset_index(drop=True)
    scored["label"] = (scored.pop("class") == "bad").astype(int)
    return scored


@pytest.fixture(scope="module")
def adult():
    """400 rows of Adult scored by a model fit on 1,500 other rows;
    ``label`` 1 = income '>50K'."""
    frame = load_adult()
    rows = np.random.default_rng(0).permutation(len(frame))
    with threadpool_limits(1):
        (scored,) = fit_and_score(
            frame.iloc[rows[:1500]], "income", ">50K", frame.iloc[rows[1500:1900]]
        )
    scored = scored.reset_index(drop=True)
    scored["label"] = (scored.pop("income") == ">50K").astype(int)
    return scored


#: Attributes used for the comparisons with pysubgroup (whose evaluation is slow).
PARITY_ATTRIBUTES = {
    "german": [  # 47 selectors, categorical and numeric
        "checking_status", "duration", "credit_history", "purpose", "savings_status",
        "employment", "personal_status", "age", "housing", "job",
    ],
    "adult": ["age", "workclass", "education", "marital_status", "sex", "hours_per_week"],
}
SEARCH_ATTRIBUTES = {
    "german": ["checking_status", "savings_status", "housing"],
    "adult": ["relationship", "race", "sex"],
}


@pytest.fixture(scope="module")
def real_data(german, adult):
    return {"german": german, "adult": adult}


def test_real_data_is_as_pysubgroup_needs_it(german, adult):
    for data, size in ((german, 333), (adult, 400)):
        assert len(data) == size
        assert isinstance(data.index, pd.RangeIndex) and data.index[0] == 0
        assert set(data["label"]) == {0, 1}
        assert data["score"].between(0, 1).all() and data["score"].nunique() > 100
    # the model is better than chance on held-out rows
    assert sklearn_roc_auc(german["label"], german["score"]) > 0.65
    assert sklearn_roc_auc(adult["label"], adult["score"]) > 0.8


# ---------------------------------------------------------------------------
# drop-in parity with pysubgroup 0.9.0
# ---------------------------------------------------------------------------

#: name -> (pysubgroup class, our class, arguments before the weights)
#: (None where pysubgroup has no such class: the tests below skip then)
PYSUBGROUP_QFS = {
    "roc": (getattr(ps, "ROCAUCQF", None), subroc_ext.ROCAUCQF, ()),
    "pr": (getattr(ps, "PRAUCQF", None), subroc_ext.PRAUCQF, (1,)),
    "arl": (getattr(ps, "ARLQF", None), subroc_ext.ARLQF, (1,)),
}


def keyword_qf(name, balance, size):
    """Our quality function built with pysubgroup's keyword names."""
    _, ours, extra = PYSUBGROUP_QFS[name]
    keywords = {"positive_label_value": extra[0]} if extra else {}
    return ours(
        label_column="label", subgroup_class_balance_weight=balance,
        subgroup_size_weight=size, **keywords,
    )  # fmt: skip


@needs_pysubgroup_qfs
@pytest.mark.parametrize("balance_size", [(0, 0), (1, 1)], ids=str)
@pytest.mark.parametrize("qf_name", PYSUBGROUP_QFS)
@pytest.mark.parametrize("dataset", ["german", "adult"])
def test_qualities_match_pysubgroup(real_data, dataset, qf_name, balance_size):
    """Same constructor arguments, same quality of every subgroup."""
    data = real_data[dataset]
    n_pairs = 30 if dataset == "german" else 15
    subgroups = selector_subgroups(data, n_pairs, seed=1, attributes=PARITY_ATTRIBUTES[dataset])
    theirs_cls, ours_cls, extra = PYSUBGROUP_QFS[qf_name]
    theirs = theirs_cls("label", *extra, *balance_size)
    expected = qualities(theirs, data, subgroups)

    finite = np.isfinite(expected)
    assert finite.sum() > 0.6 * len(subgroups)
    assert (~finite).sum() >= 1  # some undefined subgroups (e.g. empty pairs) too
    assert np.ptp(expected[finite]) > 0.1

    for ours in (ours_cls("label", *extra, *balance_size), keyword_qf(qf_name, *balance_size)):
        found = qualities(ours, data, subgroups)
        np.testing.assert_allclose(found, expected, rtol=1e-9, atol=1e-12)
        assert ours.dataset_value == pytest.approx(theirs.dataset_quality, rel=1e-12)


@needs_pysubgroup_qfs
def test_weight_argument_order_matches_pysubgroup(german):
    """Asymmetric weights: balance weight first, then size weight."""
    subgroups = selector_subgroups(german, 10, seed=2)[::4]
    for qf_name, (theirs_cls, ours_cls, extra) in PYSUBGROUP_QFS.items():
        expected = qualities(theirs_cls("label", *extra, 2, 0.5), german, subgroups)
        np.testing.assert_allclose(
            qualities(ours_cls("label", *extra, 2, 0.5), german, subgroups), expected, rtol=1e-9
        )
        np.testing.assert_allclose(
            qualities(keyword_qf(qf_name, 2, 0.5), german, subgroups), expected, rtol=1e-9
        )
        swapped = qualities(ours_cls("label", *extra, 0.5, 2), german, subgroups)
        assert not np.allclose(swapped[np.isfinite(swapped)], expected[np.isfinite(expected)])


@needs_pysubgroup_qfs
def test_optimistic_estimates_match_pysubgroup_without_weights(german):
    """With weights (0, 0) pysubgroup's bounds are those of the paper, as ours
    (German scores have no ties, so pysubgroup's tie-order problem can't show).
    Where no subset of a cover is defined, ours is -inf (pysubgroup's is some
    finite number, also valid)."""
    subgroups = selector_subgroups(german, 20, seed=3)[::2]
    for theirs_cls, ours_cls, extra in PYSUBGROUP_QFS.values():
        theirs, ours = theirs_cls("label", *extra), ours_cls("label", *extra)
        theirs.calculate_constant_statistics(german, TARGET)
        ours.calculate_constant_statistics(german, TARGET)
        expected = np.array([theirs.optimistic_estimate(sg, TARGET, german) for sg in subgroups])
        found = np.array([ours.optimistic_estimate(sg, TARGET, german) for sg in subgroups])
        defined = np.isfinite(found)
        assert defined.sum() > 0.8 * len(subgroups)
        np.testing.assert_allclose(found[defined], expected[defined], rtol=1e-9, atol=1e-12)
        assert np.all(found[~defined] == -np.inf)


_pysubgroup_searches = {}


def pysubgroup_search(real_data, dataset, qf_name, balance_size, algorithm):
    """pysubgroup's own top-10 at depth 2 (cached: pysubgroup is slow)."""
    key = (dataset, qf_name, balance_size, algorithm)
    if key not in _pysubgroup_searches:
        theirs_cls, _, extra = PYSUBGROUP_QFS[qf_name]
        _pysubgroup_searches[key] = search(
            real_data[dataset], theirs_cls("label", *extra, *balance_size), dataset, algorithm
        )
    return _pysubgroup_searches[key]


def search(data, qf, dataset, algorithm):
    selectors = ps.create_selectors(
        data[SEARCH_ATTRIBUTES[dataset] + ["label", "score"]], ignore=["label", "score"]
    )
    task = ps.SubgroupDiscoveryTask(data, TARGET, selectors, qf, result_set_size=10, depth=2)
    return top_k(algorithm.execute(task))


@needs_pysubgroup_qfs
@pytest.mark.parametrize("balance_size", [(0, 0), (1, 1)], ids=str)
@pytest.mark.parametrize("qf_name", PYSUBGROUP_QFS)
@pytest.mark.parametrize("dataset", ["german", "adult"])
def test_best_first_search_matches_pysubgroup(real_data, dataset, qf_name, balance_size):
    """Top-10 of BestFirstSearch at depth 2: same as pysubgroup's, except for
    ARL with weights (1, 1) where pysubgroup's own pruning is invalid (see the
    next test); there it equals pysubgroup's unpruned SimpleSearch."""
    _, ours_cls, extra = PYSUBGROUP_QFS[qf_name]
    ours = ours_cls("label", *extra, *balance_size)
    found = search(real_data[dataset], ours, dataset, ps.BestFirstSearch())
    if (qf_name, balance_size) == ("arl", (1, 1)):
        algorithm = ps.SimpleSearch(show_progress=False)
    else:
        algorithm = ps.BestFirstSearch()
    expected = pysubgroup_search(real_data, dataset, qf_name, balance_size, algorithm)
    assert len(expected) == 10
    assert_same_top_k(found, expected, 10)


@needs_pysubgroup_qfs
@pytest.mark.parametrize("dataset", ["german", "adult"])
def test_pysubgroup_prunes_invalidly_for_arl_with_weights(real_data, dataset):
    """Known pysubgroup 0.9.0 bug, documented: with weights (1, 1) it
    multiplies a *negative* ARL bound by the largest weight (2 min(P, N)),
    which is not a bound, and prunes subtrees holding better subgroups (e.g.
    all-positive ones of quality -0.0). Its BestFirstSearch then misses
    results its own exhaustive SimpleSearch finds; ours finds them."""
    buggy = pysubgroup_search(real_data, dataset, "arl", (1, 1), ps.BestFirstSearch())
    exhaustive = pysubgroup_search(
        real_data, dataset, "arl", (1, 1), ps.SimpleSearch(show_progress=False)
    )
    assert exhaustive[0][0] == 0.0  # a one-class subgroup: weight 0
    buggy_q = np.array([q for q, _ in buggy])
    exhaustive_q = np.array([q for q, _ in exhaustive])
    assert np.all(buggy_q <= exhaustive_q + 1e-12)  # pruning can only lose subgroups
    assert np.any(buggy_q < exhaustive_q - 1.0)
    qf = subroc_ext.ARLQF("label", 1, 1, 1)
    ours = search(real_data[dataset], qf, dataset, ps.BestFirstSearch())
    assert_same_top_k(ours, exhaustive, 10)


@needs_pysubgroup_qfs
def test_pysubgroup_is_wrong_on_a_permuted_index_but_ours_is_not(german):
    """Known pysubgroup 0.9.0 bug, documented: it uses index labels as
    positions, so a permuted 0..n-1 index silently changes its qualities
    (and other indexes make it crash)."""
    permuted = german.set_axis(np.random.default_rng(0).permutation(len(german)))
    subgroups = selector_subgroups(german, 0, seed=0)[:12]
    clean = qualities(ps.ROCAUCQF("label"), german, subgroups)
    assert not np.allclose(qualities(ps.ROCAUCQF("label"), permuted, subgroups), clean)
    np.testing.assert_allclose(
        qualities(subroc_ext.ROCAUCQF("label"), permuted, subgroups), clean, rtol=1e-9
    )
    with pytest.raises(IndexError):  # pysubgroup on an offset index
        qualities(ps.ROCAUCQF("label"), german.set_axis(np.arange(len(german)) + 1000), subgroups)


# ---------------------------------------------------------------------------
# any index, any label encoding
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tied(german):
    """German credit with scores rounded to 0.05: many ties."""
    return german.assign(score=(german["score"] * 20).round() / 20)


@pytest.fixture(scope="module")
def invariance_subgroups(tied):
    return selector_subgroups(tied, 25, seed=4)


def _datetime_index(n):
    return pd.date_range("2020-01-01", periods=n, freq="h")


INDEX_VARIANTS = {
    "rows-shuffled": lambda d: d.sample(frac=1.0, random_state=11),
    "index-permuted": lambda d: d.set_axis(np.random.default_rng(12).permutation(len(d))),
    "offset": lambda d: d.set_axis(np.arange(len(d)) + 1000),
    "descending": lambda d: d.set_axis(np.arange(len(d))[::-1]),
    "strings": lambda d: d.set_axis([f"id{i}" for i in range(len(d))]),
    "duplicated": lambda d: d.set_axis(np.arange(len(d)) // 3),
    "constant": lambda d: d.set_axis(np.zeros(len(d), dtype=int)),
    "floats": lambda d: d.set_axis(np.arange(len(d)) * 0.5),
    "datetimes": lambda d: d.set_axis(_datetime_index(len(d))),
    "multiindex": lambda d: d.set_axis(
        pd.MultiIndex.from_arrays([np.arange(len(d)) % 7, np.arange(len(d)) // 7])
    ),
    "shuffled-strings-duplicated": lambda d: d.sample(frac=1.0, random_state=13).set_axis(
        [f"r{i // 2}" for i in range(len(d))]
    ),
}
SETTINGS = [("worse", (0, 0)), ("both", (1, 1)), ("better", (1, 0.3))]


@pytest.fixture(scope="module")
def reference_tables(tied, invariance_subgroups):
    """``statistics_table`` of each measure and setting on ``tied`` (0/1 labels,
    positive 1) and on its flipped labels: the expected values of the index and
    label-encoding tests, computed once for the module rather than once per
    variant. Keyed by ``(qf_name, mode, weights, flipped)``; each call gets a copy."""
    cache = {}

    def table(qf_name, mode, weights, flipped=False):
        key = (qf_name, mode, weights, flipped)
        if key not in cache:
            data = tied.assign(label=1 - tied["label"].to_numpy()) if flipped else tied
            cache[key] = statistics_table(make_qf(qf_name, mode, weights), data, invariance_subgroups)
        return cache[key].copy()

    return table


@pytest.mark.parametrize("variant", INDEX_VARIANTS)
@pytest.mark.parametrize("qf_name", QF_NAMES)
def test_any_index_gives_the_same_statistics(
    tied, invariance_subgroups, reference_tables, qf_name, variant
):
    """Qualities, measures and optimistic estimates do not depend on the
    index, nor on the order of the rows (of tied rows, too)."""
    other = INDEX_VARIANTS[variant](tied)
    for mode, weights in SETTINGS:
        expected = reference_tables(qf_name, mode, weights)
        assert np.isfinite(expected["quality"]).sum() > 0.5 * len(invariance_subgroups)
        found = statistics_table(make_qf(qf_name, mode, weights), other, invariance_subgroups)
        np.testing.assert_allclose(found, expected, rtol=1e-9, atol=1e-12, equal_nan=True)


#: name -> (label column from a 0/1 array, positive label, negative label)
LABEL_ENCODINGS = {
    "int-0-1": (lambda y: y, 1, 0),
    "bool": (lambda y: y.astype(bool), True, False),
    "nullable-boolean": (lambda y: pd.array(y.astype(bool), dtype="boolean"), True, False),
    "float": (lambda y: y.astype(float), 1.0, 0.0),
    "plus-minus-one": (lambda y: 2 * y - 1, 1, -1),
    "strings": (lambda y: np.where(y == 1, "yes", "no"), "yes", "no"),
    "object-strings": (lambda y: np.where(y == 1, "yes", "no").astype(object), "yes", "no"),
    "categorical": (
        lambda y: pd.Categorical(np.where(y == 1, "yes", "no"), categories=["yes", "no"]),
        "yes", "no",
    ),
    "categorical-unused-category": (
        lambda y: pd.Categorical(np.where(y == 1, "yes", "no"), categories=["no", "maybe", "yes"]),
        "yes", "no",
    ),
    "positive-is-zero": (lambda y: 1 - y, 0, 1),
    "positive-is-minus-one": (lambda y: 1 - 2 * y, -1, 1),
}  # fmt: skip


@pytest.mark.parametrize("encoding", LABEL_ENCODINGS)
@pytest.mark.parametrize("qf_name", QF_NAMES)
def test_any_label_encoding_gives_the_same_statistics(
    tied, invariance_subgroups, reference_tables, qf_name, encoding
):
    """Statistics with the encoded labels equal those with 0/1 labels; and
    naming the other value positive gives those of the flipped labels, so the
    positive label is honoured by every measure and every bound."""
    encode, positive, negative = LABEL_ENCODINGS[encoding]
    y = tied["label"].to_numpy()
    encoded = tied.assign(label=encode(y))
    for mode, weights in SETTINGS:
        expected = reference_tables(qf_name, mode, weights)
        found = statistics_table(
            make_qf(qf_name, mode, weights, positive=positive), encoded, invariance_subgroups
        )
        np.testing.assert_allclose(found, expected, rtol=1e-9, atol=1e-12, equal_nan=True)

        expected_flipped = reference_tables(qf_name, mode, weights, flipped=True)
        found_flipped = statistics_table(
            make_qf(qf_name, mode, weights, positive=negative), encoded, invariance_subgroups
        )
        np.testing.assert_allclose(
            found_flipped, expected_flipped, rtol=1e-9, atol=1e-12, equal_nan=True
        )
        if mode != "both":  # (flipping ROC AUC's classes negates q, so |q| stays)
            # the quality and the optimistic estimate really change
            for column in ("quality", "optimistic_estimate"):
                assert not np.allclose(found_flipped[column], found[column], equal_nan=True)


def test_boolean_labels_work_with_the_default_positive_label(tied, invariance_subgroups):
    """``ROCAUCQF(label)`` (positive label 1) on bool labels: True == 1."""
    encoded = tied.assign(label=tied["label"].astype(bool))
    np.testing.assert_allclose(
        statistics_table(subroc_ext.ROCAUCQF("label", 1, 1), encoded, invariance_subgroups),
        statistics_table(subroc_ext.ROCAUCQF("label", 1, 1), tied, invariance_subgroups),
        equal_nan=True,
    )


def test_other_column_names(tied, invariance_subgroups):
    renamed = tied.rename(columns={"label": "y true", "score": "p(bad)"})
    target = subroc_ext.SoftClassifierTarget("y true", "p(bad)")
    np.testing.assert_allclose(
        statistics_table(make_qf("pr", "both", (1, 1), label="y true"), renamed,
                         invariance_subgroups, target),
        statistics_table(make_qf("pr", "both", (1, 1)), tied, invariance_subgroups),
        equal_nan=True,
    )  # fmt: skip


# ---------------------------------------------------------------------------
# clear errors
# ---------------------------------------------------------------------------


def small_frame(n=20):
    rng = np.random.default_rng(5)
    return pd.DataFrame(
        {"a": rng.choice(["x", "y"], n), "label": np.arange(n) % 2, "score": rng.random(n)}
    )


def _set(column, values):
    return lambda d: d.assign(**{column: values(d)})


def _with_nan_at_3(column):
    def mutate(d):
        values = d[column].astype(float).to_numpy().copy()
        values[3] = np.nan
        return d.assign(**{column: values})

    return mutate


ERROR_CASES = {
    "nan-score": ("roc", {}, _with_nan_at_3("score"), ValueError,
                  r"score column 'score' contains 1 NaN or infinite value"),
    "inf-scores": ("pr", {}, _set("score", lambda d: np.r_[np.inf, -np.inf, d["score"][2:]]),
                   ValueError, r"score column 'score' contains 2 NaN or infinite value"),
    "text-scores": ("arl", {}, _set("score", lambda d: d["score"].astype(str)), ValueError,
                    r"score column 'score' must be numeric"),
    "nan-label": ("roc", {}, _with_nan_at_3("label"), ValueError,
                  r"label column 'label' contains 1 missing value"),
    "none-label": ("pr", {"positive": "yes"},
                   _set("label", lambda d: np.where(d["label"] == 1, "yes", None)), ValueError,
                   r"label column 'label' contains 10 missing value"),
    "three-labels": ("arl", {}, _set("label", lambda d: np.arange(len(d)) % 3), ValueError,
                     r"label column 'label' must be binary but has 3 distinct values"),
    "missing-label-column": ("roc", {}, lambda d: d.drop(columns="label"), KeyError,
                             r"column\(s\) \['label'\] not found in data"),
    "missing-score-column": ("attribution", {}, lambda d: d.drop(columns="score"), KeyError,
                             r"column\(s\) \['score'\] not found in data"),
    "roc-no-positives": ("roc", {}, _set("label", lambda d: np.zeros(len(d), int)), ValueError,
                         r"roc_auc is undefined on this data: label column 'label' has 0 positive"),
    "roc-no-negatives": ("roc", {}, _set("label", lambda d: np.ones(len(d), int)), ValueError,
                         r"roc_auc is undefined on this data: label column 'label' has 20 "
                         r"positive\(s\) \(label 1\) and 0 negative"),
    "pr-no-positives": ("pr", {}, _set("label", lambda d: np.zeros(len(d), int)), ValueError,
                        r"pr_auc is undefined on this data: label column 'label' has 0 positive"),
    "pr-no-positives-strings": ("pr", {"positive": "yes"}, _set("label", lambda d: ["no"] * len(d)),
                                ValueError,
                                r"pr_auc is undefined .* 0 positive\(s\) \(label 'yes'\)"),
    "arl-no-positives": ("arl", {}, _set("label", lambda d: np.zeros(len(d), int)), ValueError,
                         r"arl is undefined on this data: label column 'label' has 0 positive"),
    "attribution-no-positives": ("attribution", {}, _set("label", lambda d: np.zeros(len(d), int)),
                                 ValueError, r"attribution_mean is undefined on this data: label "
                                 r"column 'label' has 0 positive"),
    "attribution-no-negatives": ("attribution", {}, _set("label", lambda d: np.ones(len(d), int)),
                                 ValueError, r"attribution_mean is undefined .* and 0 negative"),
    "positive-label-absent": ("pr", {"positive": "yes"}, lambda d: d, ValueError,
                              r"positive label 'yes' does not occur in label column 'label'"),
    "default-positive-label-absent": (
        "roc", {}, _set("label", lambda d: np.where(d["label"] == 1, "yes", "no")), ValueError,
        r"positive label 1 does not occur in label column 'label'"),
    "target-label-column-differs": ("roc", {"target": subroc_ext.SoftClassifierTarget("truth", "score")},
                                    lambda d: d.assign(truth=d["label"]), ValueError,
                                    r"target's label column 'truth' differs from the quality "
                                    r"function's label column 'label'"),
    "target-score-column-missing": ("pr", {"target": subroc_ext.SoftClassifierTarget("label", "proba")},
                                    lambda d: d, KeyError, r"\['proba'\] not found in data"),
}  # fmt: skip


@pytest.mark.parametrize("case", ERROR_CASES)
def test_bad_input_gives_a_clear_error(case):
    qf_name, options, mutate, error, message = ERROR_CASES[case]
    data = mutate(small_frame())
    target = options.get("target", TARGET)
    qf = make_qf(qf_name, positive=options.get("positive", 1))
    with pytest.raises(error, match=message):
        qf.calculate_constant_statistics(data, target)
    # the same error surfaces from a search
    qf = make_qf(qf_name, positive=options.get("positive", 1))
    task = ps.SubgroupDiscoveryTask(data, target, [ps.EqualitySelector("a", "x")], qf)
    with pytest.raises(error, match=message):
        ps.BestFirstSearch().execute(task)


@pytest.mark.parametrize(
    ("arguments", "error", "message"),
    [
        (dict(mode="worst"), ValueError,
         r"mode must be one of \('worse', 'better', 'both'\), got 'worst'"),
        (dict(size_weight=-1), ValueError, r"size_weight must be a finite number >= 0, got -1"),
        (dict(balance_weight=np.nan), ValueError, r"balance_weight must be a finite number >= 0"),
        (dict(size_weight=np.inf), ValueError, r"size_weight must be a finite number >= 0"),
        (dict(measure=sklearn_roc_auc), TypeError,
         r"measure must be a subroc_ext.Measure"),
    ],
    ids=["mode", "negative-size", "nan-balance", "inf-size", "not-a-measure"],
)
def test_bad_arguments_give_a_clear_error(arguments, error, message):
    arguments = {"measure": measures.ROCAUC(), **arguments}
    with pytest.raises(error, match=message):
        subroc_ext.SoftClassifierQF(label="label", **arguments)


def test_pysubgroup_style_constructors_reject_bad_weights_and_modes():
    with pytest.raises(ValueError, match="balance_weight must be a finite number >= 0"):
        subroc_ext.ROCAUCQF("label", -1)
    with pytest.raises(ValueError, match="size_weight must be a finite number >= 0"):
        subroc_ext.ARLQF("label", 1, 0, -0.5)
    with pytest.raises(ValueError, match="mode must be one of"):
        subroc_ext.PRAUCQF("label", 1, mode="higher")


# ---------------------------------------------------------------------------
# the pysubgroup call protocol
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def messy_german(german):
    """Rows shuffled, string index, labels 'bad'/'good'."""
    messy = german.sample(frac=1.0, random_state=21)
    messy.index = [f"applicant-{i}" for i in messy.index]
    return messy.assign(label=np.where(messy["label"] == 1, "bad", "good"))


def test_every_kind_of_subgroup_gives_the_same_statistics(messy_german):
    """Conjunction (BestFirstSearch, SimpleDFS, BeamSearch), the bitset, set
    and numpy-set conjunctions (DFS, Apriori), masks, positions, slice(None)."""
    data = messy_german
    selectors = ps.create_selectors(data, ignore=["label", "score"])
    chosen = next(
        [first, second]
        for first, second in itertools.combinations(selectors, 2)
        if first.attribute_name != second.attribute_name
        and 40 <= np.sum(ps.Conjunction([first, second]).covers(data)) <= 150
    )
    for qf_name in QF_NAMES:
        qf = make_qf(qf_name, "both", (1, 1), positive="bad")
        qf.calculate_constant_statistics(data, TARGET)
        expected = qf.calculate_statistics(ps.Conjunction(chosen), TARGET, data)
        assert 40 <= expected.size_sg <= 150
        cover = np.asarray(ps.Conjunction(chosen).covers(data), dtype=bool)
        assert expected.size_sg == cover.sum()
        others = [cover, np.flatnonzero(cover)]
        representations = (
            ps.BitSetRepresentation, ps.SetRepresentation, ps.NumpySetRepresentation
        )
        for representation in representations:
            with representation(data, selectors) as rep:
                others.append(rep.Conjunction(chosen))
                if representation is ps.BitSetRepresentation:  # Set's root needs a 0..n-1 index
                    root = qf.calculate_statistics(rep.Conjunction([]), TARGET, data)
        for other in others:
            assert qf.calculate_statistics(other, TARGET, data) == expected
        whole = qf.calculate_statistics(slice(None), TARGET, data)
        assert whole == qf.calculate_statistics(ps.Conjunction([]), TARGET, data) == root
        assert whole.size_sg == len(data)
        assert whole.quality == 0.0


def test_statistics_are_a_namedtuple_of_scalars(messy_german):
    qf = make_qf("roc", "worse", (1, 1), positive="bad")
    qf.calculate_constant_statistics(messy_german, TARGET)
    statistics = qf.calculate_statistics(ps.Conjunction([]), TARGET, messy_german)
    assert isinstance(statistics, subroc_ext.SubgroupStatistics)
    assert statistics._fields == (
        "size_sg", "positives_count", "negatives_count", "measure", "raw_quality",
        "weight", "quality", "raw_bound", "max_weight", "optimistic_estimate",
    )  # fmt: skip
    assert all(np.ndim(value) == 0 for value in statistics)
    assert statistics.positives_count == np.sum(messy_german["label"] == "bad")
    assert statistics.measure == pytest.approx(
        sklearn_roc_auc(messy_german["label"] == "bad", messy_german["score"])
    )
    assert ps.MinSupportConstraint(len(messy_german)).is_satisfied(None, statistics, messy_german)
    assert not ps.MinSupportConstraint(len(messy_german) + 1).is_satisfied(
        None, statistics, messy_german
    )


@pytest.mark.parametrize("qf_name", QF_NAMES)
def test_vectorized_evaluation_on_stacked_statistics(messy_german, qf_name):
    """What vectorized Apriori does: stack the statistics, evaluate once."""
    data = messy_german
    subgroups = selector_subgroups(data, 30, seed=6)
    qf = make_qf(qf_name, "both", (1, 0.3), positive="bad")
    qf.calculate_constant_statistics(data, TARGET)
    statistics = [qf.calculate_statistics(sg, TARGET, data) for sg in subgroups]
    stacked = type(statistics[0])._make(np.array(column) for column in zip(*statistics))
    evaluated = qf.evaluate(slice(None), TARGET, data, stacked)
    estimated = qf.optimistic_estimate(None, None, None, stacked)
    assert evaluated.shape == estimated.shape == (len(subgroups),)
    np.testing.assert_array_equal(evaluated, [qf.evaluate(sg, TARGET, data) for sg in subgroups])
    np.testing.assert_array_equal(
        estimated, [qf.optimistic_estimate(sg, TARGET, data) for sg in subgroups]
    )
    assert not np.isnan(estimated).any()
    assert np.all(estimated >= evaluated)


def test_a_different_dataframe_is_prepared_again(german, tied):
    """Evaluating on another DataFrame re-sorts it instead of reusing stale data."""
    subgroups = selector_subgroups(german, 5, seed=7)
    qf = make_qf("pr", "worse", (1, 1))
    on_german = qualities(qf, german, subgroups)
    on_tied = np.array([qf.evaluate(sg, TARGET, tied) for sg in subgroups])
    np.testing.assert_allclose(on_tied, qualities(make_qf("pr", "worse", (1, 1)), tied, subgroups))
    assert not np.allclose(on_tied, on_german, equal_nan=True)


def test_a_frame_modified_in_place(german):
    """Rows added in place are noticed; values changed in place are not (as
    documented), until calculate_constant_statistics prepares the frame again."""
    subgroups = selector_subgroups(german, 5, seed=8)
    data = german.copy()
    qf = make_qf("roc", "worse", (1, 1))
    qualities(qf, data, subgroups)
    for position in range(40):  # setting with enlargement: the same object grows
        data.loc[10_000 + position] = data.iloc[position]
    assert len(data) == len(german) + 40 and data["score"].dtype == float
    fresh = qualities(make_qf("roc", "worse", (1, 1)), data.copy(), subgroups)
    direct = np.array([qf.evaluate(sg, TARGET, data) for sg in subgroups])
    np.testing.assert_array_equal(direct, fresh)

    before = np.array([qf.evaluate(sg, TARGET, data) for sg in subgroups])
    data.loc[:, "score"] = 1 - data["score"]
    stale = np.array([qf.evaluate(sg, TARGET, data) for sg in subgroups])
    np.testing.assert_array_equal(stale, before)  # the documented caveat
    assert "in place" in subroc_ext.SoftClassifierQF.__doc__  # documented
    qf.calculate_constant_statistics(data, TARGET)
    flipped = qualities(make_qf("roc", "worse", (1, 1)), data.copy(), subgroups)
    np.testing.assert_array_equal([qf.evaluate(sg, TARGET, data) for sg in subgroups], flipped)
    assert not np.allclose(flipped, before, equal_nan=True)


def test_quality_definition_on_real_data(german):
    """quality = w * q, q = m(D) - m(S) ('worse', a score), negated for
    'better', absolute for 'both'; w = n^alpha * cb^beta."""
    subgroups = selector_subgroups(german, 0, seed=0)[:20]
    y, s = german["label"].to_numpy() == 1, german["score"].to_numpy()
    whole = sklearn_roc_auc(y, s)
    for mode in MODES:
        qf = make_qf("roc", mode, (0.5, 2))
        qf.calculate_constant_statistics(german, TARGET)
        for sg in subgroups:
            cover = np.asarray(sg.covers(german), dtype=bool)
            p, n = y[cover].sum(), (~y[cover]).sum()
            if min(p, n) == 0:
                assert qf.evaluate(sg, TARGET, german) == -np.inf
                continue
            q = whole - sklearn_roc_auc(y[cover], s[cover])
            q = {"worse": q, "better": -q, "both": abs(q)}[mode]
            weight = (p + n) ** 0.5 * (min(p, n) / max(p, n)) ** 2
            assert qf.evaluate(sg, TARGET, german) == pytest.approx(weight * q, rel=1e-9, abs=1e-12)


# ---------------------------------------------------------------------------
# user-defined measures
# ---------------------------------------------------------------------------


def _accuracy(y, s):
    return np.mean((s >= 0.5) == y)


#: name -> (measure factory, direct computation on (y, s) of a cover, kind, needs both classes)
CUSTOM_MEASURES = {
    "brier": (measures.squared_error, lambda y, s: np.mean((s - y) ** 2), "loss", False),
    "closeness": (
        lambda: subroc_ext.RowMeanMeasure(
            lambda y, s: 1.0 - np.abs(y - s), kind="score", name="closeness"
        ),
        lambda y, s: np.mean(1.0 - np.abs(y - s)), "score", False,
    ),
    "accuracy": (
        lambda: subroc_ext.KernelMeasure(_accuracy, kind="score", name="accuracy"),
        _accuracy, "score", False,
    ),
    "sklearn_roc": (
        lambda: subroc_ext.KernelMeasure(
            sklearn_roc_auc, kind="score", name="sk_roc_auc", lowest=lambda y, s: 0.0,
            highest=lambda y, s: 1.0, min_positives=1, min_negatives=1,
        ),
        sklearn_roc_auc, "score", True,
    ),
}  # fmt: skip


CUSTOM_CASES = [
    (measure, mode, weights)
    for measure in ("brier", "closeness", "accuracy")
    for mode in MODES
    for weights in [(0, 0), (1, 1), (0.5, 2)]
] + [("sklearn_roc", "worse", (0.5, 2))]  # sklearn is slow; more in the next test


@pytest.mark.parametrize(("measure_name", "mode", "weights"), CUSTOM_CASES, ids=str)
def test_custom_measure_quality_matches_direct_computation(
    messy_german, measure_name, mode, weights
):
    make_measure, direct, kind, needs_both = CUSTOM_MEASURES[measure_name]
    size, balance = weights
    data = messy_german
    subgroups = selector_subgroups(data, 25, seed=8)
    qf = subroc_ext.SoftClassifierQF(
        make_measure(), "label", positive_label="bad", size_weight=size,
        balance_weight=balance, mode=mode,
    )  # fmt: skip
    qf.calculate_constant_statistics(data, TARGET)
    y = data["label"].to_numpy() == "bad"
    s = data["score"].to_numpy()
    whole = direct(y, s)
    assert qf.dataset_value == pytest.approx(whole, rel=1e-12)
    n_defined = 0
    for sg in subgroups:
        statistics = qf.calculate_statistics(sg, TARGET, data)
        cover = np.asarray(sg.covers(data), dtype=bool)
        p, n = y[cover].sum(), (~y[cover]).sum()
        if p + n == 0 or (needs_both and min(p, n) == 0):
            assert statistics.quality == -np.inf
            continue
        n_defined += 1
        value = direct(y[cover], s[cover])
        q = whole - value if kind == "score" else value - whole
        q = {"worse": q, "better": -q, "both": abs(q)}[mode]
        balance_term = min(p, n) / max(p, n) if min(p, n) else 0.0
        weight = float(p + n) ** size * balance_term**balance
        assert statistics.measure == pytest.approx(value, rel=1e-9, abs=1e-12)
        assert statistics.quality == pytest.approx(weight * q, rel=1e-9, abs=1e-12)
        assert not np.isnan(statistics.optimistic_estimate)
        assert statistics.optimistic_estimate >= statistics.quality - 1e-12
        if measure_name == "accuracy" and statistics.max_weight > 0:  # no bounds: no pruning
            assert statistics.optimistic_estimate == np.inf
    assert n_defined > 0.8 * len(subgroups)


def test_sklearn_kernel_measure_equals_the_built_in_roc_auc(messy_german):
    subgroups = selector_subgroups(messy_german, 15, seed=9)[::2]
    make_measure = CUSTOM_MEASURES["sklearn_roc"][0]
    for mode, weights in SETTINGS:
        size, balance = weights
        custom = subroc_ext.SoftClassifierQF(
            make_measure(), "label", positive_label="bad", size_weight=size,
            balance_weight=balance, mode=mode,
        )  # fmt: skip
        built_in = make_qf("roc", mode, weights, positive="bad")
        custom_table = statistics_table(custom, messy_german, subgroups)
        built_in_table = statistics_table(built_in, messy_german, subgroups)
        equal = ["size_sg", "positives_count", "negatives_count", "measure", "raw_quality", "weight", "quality"]
        np.testing.assert_allclose(custom_table[equal], built_in_table[equal], rtol=1e-9,
                                   atol=1e-12, equal_nan=True)  # fmt: skip
        # the trivial extremes 0 and 1 give looser (but valid) bounds
        assert np.all(custom_table["optimistic_estimate"] >= built_in_table["optimistic_estimate"] - 1e-12)


# ---------------------------------------------------------------------------
# optimistic estimates bound every subset (exhaustive, small covers)
# ---------------------------------------------------------------------------


def tiny(seed, n, ties):
    rng = np.random.default_rng(seed)
    label = np.zeros(n, dtype=int)
    label[rng.choice(n, size=rng.integers(2, n - 1), replace=False)] = 1
    score = rng.integers(0, 3, n) / 2.0 if ties else rng.random(n)
    return pd.DataFrame({"label": label, "score": score})


TINY = [tiny(0, 8, ties=False), tiny(1, 9, ties=True), tiny(2, 8, ties=True)]

BOUNDED_MEASURES = {
    "brier": measures.squared_error,
    "closeness": CUSTOM_MEASURES["closeness"][0],
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("qf_name", QF_NAMES + tuple(BOUNDED_MEASURES))
def test_optimistic_estimate_bounds_the_quality_of_every_subset(qf_name, mode):
    """For every subset S of a tiny dataset, oe(S) >= quality(T) for every
    T subset of S (computed by a max over subsets, bit by bit), never NaN."""
    for data in TINY:
        n = len(data)
        masks = np.arange(2**n)
        covers = ((masks[:, None] >> np.arange(n)) & 1).astype(bool)
        for weights in WEIGHTS:
            if qf_name in BOUNDED_MEASURES:
                qf = subroc_ext.SoftClassifierQF(
                    BOUNDED_MEASURES[qf_name](), "label", size_weight=weights[0],
                    balance_weight=weights[1], mode=mode,
                )  # fmt: skip
            else:
                qf = make_qf(qf_name, mode, weights)
            qf.calculate_constant_statistics(data, TARGET)
            table = statistics_table(qf, data, covers)
            quality, estimate = table["quality"].to_numpy(), table["optimistic_estimate"].to_numpy()
            assert not np.isnan(estimate).any()
            best = quality.copy()  # best[m] = max quality over subsets of m
            for bit in range(n):
                has_bit = (masks >> bit) & 1 == 1
                best[has_bit] = np.maximum(best[has_bit], best[masks[has_bit] ^ (1 << bit)])
            defined = best > -np.inf
            tolerance = 1e-9 * np.maximum(1, np.abs(best[defined]))
            violated = estimate[defined] < best[defined] - tolerance
            assert not violated.any(), (
                f"{qf_name} {mode} {weights}: estimate below a subset's quality for "
                f"{violated.sum()} covers"
            )
            assert np.isfinite(best).sum() > 2**n / 2


@pytest.mark.parametrize("wrap", [False, True], ids=["plain", "generalization_aware"])
def test_to_dataframe_shows_named_statistics(wrap):
    """pysubgroup's tables index statistics by field name."""
    rng = np.random.default_rng(7)
    data = pd.DataFrame(
        {"a": rng.integers(0, 3, 200), "y": rng.integers(0, 2, 200), "s": rng.random(200)}
    )
    qf = subroc_ext.ROCAUCQF("y", 1, 1)
    qf = subroc_ext.GeneralizationAwareQF(qf) if wrap else qf
    target = subroc_ext.SoftClassifierTarget("y", "s")
    task = ps.SubgroupDiscoveryTask(
        data, target, ps.create_selectors(data, ignore=["y", "s"]), qf,
        result_set_size=3, depth=1,
    )  # fmt: skip
    table = ps.BestFirstSearch().execute(task).to_dataframe(
        statistics_to_show=["size_sg", "positives_count"]
    )
    for _, row in table.iterrows():
        cover = row["subgroup"].covers(data)
        assert row["size_sg"] == cover.sum()
        assert row["positives_count"] == data.loc[cover, "y"].sum()


def test_our_target_and_pysubgroups_give_the_same_statistics(german):
    """subroc_ext.SoftClassifierTarget works with pysubgroup 0.8 and 0.9;
    pysubgroup 0.9.0's own target is accepted where it exists."""
    ours = subroc_ext.SoftClassifierTarget("label", "score")
    assert ours.get_attributes() == ("label", "score")
    assert repr(ours) == "SoftClassifierTarget(label_column='label', prediction_column='score')"
    assert list(ours.get_target_columns(german).columns) == ["label", "score"]
    subgroups = selector_subgroups(german, 5, seed=4)[:10]
    expected = statistics_table(subroc_ext.ROCAUCQF("label", 1, 1), german, subgroups, ours)
    assert np.isfinite(expected.to_numpy()).any()
    if not hasattr(ps, "SoftClassifierTarget"):
        pytest.skip("pysubgroup 0.8 has no SoftClassifierTarget of its own")
    theirs = ps.SoftClassifierTarget("label", "score")
    found = statistics_table(subroc_ext.ROCAUCQF("label", 1, 1), german, subgroups, theirs)
    np.testing.assert_array_equal(found, expected)


def test_old_label_column_keyword_and_attribute_warn_and_agree():
    """``label_column`` (0.1) is ``label`` until subroc-ext 0.3."""
    frame = pd.DataFrame({"label": [0, 1, 0, 1], "score": [0.1, 0.35, 0.4, 0.8]})
    target = subroc_ext.SoftClassifierTarget("label", "score")
    new = subroc_ext.SoftClassifierQF(measures.ROCAUC(), "label", size_weight=1)
    with pytest.warns(FutureWarning, match="'label_column' is deprecated.*use 'label'"):
        old = subroc_ext.SoftClassifierQF(measures.ROCAUC(), label_column="label", size_weight=1)
    with pytest.warns(FutureWarning, match="label_column is deprecated"):
        assert old.label_column == "label"
    mask = np.array([True, True, True, False])
    assert old.calculate_statistics(mask, target, frame) == new.calculate_statistics(mask, target, frame)


def test_prepare_leaves_the_measure_unchanged():
    """The quality function evaluates the measure that ``prepare`` returns."""
    frame = pd.DataFrame({"label": [0, 1, 0, 1], "score": [0.1, 0.35, 0.4, 0.8]})
    brier = measures.squared_error()
    qf = subroc_ext.SoftClassifierQF(brier, "label")
    qf.calculate_constant_statistics(frame, subroc_ext.SoftClassifierTarget("label", "score"))
    assert qf.measure is brier and brier.prepared_values is None
    assert qf.prepared_measure.prepared_values.tolist() == pytest.approx([0.01, 0.4225, 0.16, 0.04])


def test_a_measure_that_prepares_in_place_still_works_with_a_warning():
    class InPlace(measures.Measure):  # written for 0.1: prepare() changes self, returns None
        name = "mean_score"

        def prepare(self, cover):
            self.offset = cover.scores.mean()

        def value(self, cover):
            return float(cover.scores.mean() - self.offset)

    frame = pd.DataFrame({"label": [0, 1, 0, 1], "score": [0.1, 0.35, 0.4, 0.8]})
    qf = subroc_ext.SoftClassifierQF(InPlace(), "label")
    with pytest.warns(FutureWarning, match="prepare\\(\\) returned None"):
        qf.calculate_constant_statistics(frame, subroc_ext.SoftClassifierTarget("label", "score"))
    assert qf.dataset_value == 0.0


# -- the scalar path (one subgroup per call) equals the batch path bit for bit --

#: Measures with compiled kernels (the scalar path's single compiled call) and
#: two evaluated by their own Python methods: a kernel measure, and a subclass
#: of a built-in (subclasses may change value/extremes, so they are not compiled).
class _SubclassedROCAUC(measures.ROCAUC):
    pass


BIT_MEASURES = {
    "roc": measures.ROCAUC,
    "pr": measures.PRAUC,
    "arl": measures.AverageRankingLoss,
    "attribution": measures.attribution_mean,
    "brier": measures.squared_error,
    "kernel": lambda: measures.KernelMeasure(
        lambda y, s: np.mean(s[y] >= 0.5), kind="score", name="tpr", min_positives=1,
        lowest=lambda y, s: 0.0, highest=lambda y, s: 1.0,
    ),  # fmt: skip
    "subclass": _SubclassedROCAUC,
}
#: Every pair of exponents from {0, 0.3, 1, 2}.
BIT_WEIGHTS = list(itertools.product((0.0, 0.3, 1.0, 2.0), repeat=2))


def as_bits(values):
    """Float values as their 64-bit patterns (every NaN the same), to compare
    bit for bit: -0.0 differs from 0.0, unlike ``==``."""
    values = np.asarray(values, dtype=float)
    return np.where(np.isnan(values), np.nan, values).view(np.uint64)


def random_covers(rng, n_rows, n_covers):
    """Boolean covers in the data's row order: empty, one row, everything, and
    random ones from sparse to dense."""
    covers = [np.zeros(n_rows, bool), np.eye(1, n_rows, 7, dtype=bool)[0], np.ones(n_rows, bool)]
    covers += list(rng.random((n_covers, n_rows)) < rng.choice([0.02, 0.1, 0.4, 0.9], (n_covers, 1)))
    return covers


def bit_for_bit_data(seed, ties):
    """190 rows (three bitset words), scores without ties, to 0.1, or in three values."""
    rng = np.random.default_rng(seed)
    label = (rng.random(190) < rng.uniform(0.1, 0.6)).astype(int)
    score = np.clip(0.3 * label + rng.normal(0.35, 0.25, 190), 0, 1)
    score = {"none": score, "some": score.round(1), "heavy": np.digitize(score, [0.4, 0.6]) / 2.0}[ties]
    return pd.DataFrame({"label": label, "score": score})


def batch_statistics(qf, sorted_masks, compiled):
    """:meth:`statistics_of_counts` of the covers: the measure from the search
    engine's compiled kernels (``compiled``) or from the measure's methods."""
    measure, dataset = qf.prepared_measure, qf.dataset
    covers = [dataset.cover(mask) for mask in sorted_masks]
    positives = np.array([cover.positives for cover in covers])
    negatives = np.array([cover.negatives for cover in covers])
    defined = measure.is_defined(positives, negatives)
    size_aware = np.array([
        subroc_ext.scoring.bounds.size_aware_bound(measure, cover, qf.dataset_value, qf.signs(), qf.size_weight)
        if is_defined and qf.size_weight > 0 and qf.optimistic_estimates else np.inf
        for cover, is_defined in zip(covers, defined)
    ])  # fmt: skip
    if compiled:
        kernel_data = qf._kernel_data
        value, lowest, highest = (np.empty(len(covers)) for _ in range(3))
        words = bitset.pack(np.array(sorted_masks))
        everything = bitset.pack(np.ones(len(dataset), bool))
        cover_kernels.measure_children(
            everything, words, np.arange(len(covers)), *kernel_data[:5], kernel_data[5],
            qf.optimistic_estimates, value, lowest, highest,
        )  # fmt: skip
    else:
        value, lowest, highest = np.full((3, len(covers)), np.nan)
        for i, cover in enumerate(covers):
            if defined[i]:
                value[i] = measure.value(cover)
                if qf.optimistic_estimates:
                    lowest[i], highest[i] = measure.extremes(cover)
    joint = np.array([  # the joint ROC AUC bound (inf for other measures)
        qf.joint_bound_of_cover(cover, 0.0) if is_defined else np.inf for cover, is_defined in zip(covers, defined)
    ])  # fmt: skip
    return qf.statistics_of_counts(positives, negatives, value, lowest, highest, size_aware, joint)


@pytest.mark.parametrize("ties", ["none", "some", "heavy"])
@pytest.mark.parametrize("measure_name", list(BIT_MEASURES))
def test_one_subgroup_at_a_time_equals_the_batch_bit_for_bit(measure_name, ties):
    """``calculate_statistics`` of each cover (one compiled call for the
    built-ins) gives the floats of ``statistics_of_counts`` on all covers at
    once - with the measure from the compiled kernels (FastSearch's batch)
    and from the measure's own methods - and of ``statistics_of_cover``, to
    the last bit, in every mode, for alpha and beta in {0, 0.3, 1, 2}, with
    and without estimates, on covers where the measure is undefined too."""
    seed = 1 + list(BIT_MEASURES).index(measure_name) + 10 * ["none", "some", "heavy"].index(ties)
    data = bit_for_bit_data(seed, ties)
    masks = random_covers(np.random.default_rng(seed), len(data), 40)
    undefined = 0
    for mode, (alpha, beta), estimates in itertools.product(MODES, BIT_WEIGHTS, (True, False)):
        qf = subroc_ext.SoftClassifierQF(
            BIT_MEASURES[measure_name](), "label", size_weight=alpha, balance_weight=beta, mode=mode
        )
        qf.optimistic_estimates = estimates
        qf.calculate_constant_statistics(data, TARGET)
        assert (qf._kernel_data is not None) == (measure_name not in ("kernel", "subclass"))
        one_by_one = [qf.calculate_statistics(mask, TARGET, data) for mask in masks]
        sorted_masks = [qf.dataset.mask_of(mask) for mask in masks]
        of_cover = [qf.statistics_of_cover(qf.dataset.cover(mask)) for mask in sorted_masks]
        batches = [batch_statistics(qf, sorted_masks, compiled=False)]
        if qf._kernel_data is not None:
            batches.append(batch_statistics(qf, sorted_masks, compiled=True))
        for field in SubgroupStatistics._fields:
            scalar = as_bits([getattr(stats, field) for stats in one_by_one])
            np.testing.assert_array_equal(scalar, as_bits([getattr(s, field) for s in of_cover]), field)
            for batch in batches:
                np.testing.assert_array_equal(scalar, as_bits(getattr(batch, field)), field)
        assert all(type(value) in (int, float) for stats in one_by_one for value in stats)
        undefined += sum(stats.quality == -np.inf for stats in one_by_one)
    assert undefined > 0  # the empty cover at least


@pytest.mark.parametrize("measure_name", ["roc", "arl", "attribution"])
def test_generalization_aware_pattern_equals_the_batch_bit_for_bit(measure_name):
    """:class:`GeneralizationAwareQF` on one pattern at a time gives the floats
    of :func:`generalization_aware_quality` on all patterns at once (what
    FastSearch computes), for every mode and weight."""
    data = scored_frame(3, n=300, attributes=4, ties="some")
    subgroups = selector_subgroups(data, 40, seed=4)
    inherited = 0
    for mode, weights in itertools.product(MODES, [(0.0, 0.0), (0.3, 1.0), (2.0, 0.3)]):
        qf = make_qf(measure_name, mode, weights)
        aware = subroc_ext.GeneralizationAwareQF(qf)
        aware.calculate_constant_statistics(data, TARGET)
        patterns = [aware.calculate_statistics(sg, TARGET, data) for sg in subgroups]
        plain = [qf.calculate_statistics(sg, TARGET, data) for sg in subgroups]
        fields = ["weight", "raw_quality", "raw_bound", "max_weight"]
        generalization = np.array([stats.generalization_quality for stats in patterns])
        joint = [  # the joint ROC AUC bound with offset max(q, g) (inf for other measures)
            qf.joint_bound(sg, TARGET, data, max(stats.raw_quality, g))
            for sg, stats, g in zip(subgroups, plain, generalization)
        ]
        quality, estimate = generalization_aware_quality(
            *(np.array([getattr(stats, field) for stats in plain]) for field in fields),
            generalization, np.array(joint),
        )
        np.testing.assert_array_equal(as_bits([s.quality for s in patterns]), as_bits(quality))
        np.testing.assert_array_equal(
            as_bits([s.optimistic_estimate for s in patterns]), as_bits(estimate)
        )
        inherited += sum(s.generalization_quality > 0 for s in patterns)
    assert inherited > 0


@pytest.mark.parametrize("generalization_aware", [False, True])
@pytest.mark.parametrize("weights", [(0.3, 1.0), (1.0, 0.3)])
def test_fast_search_and_best_first_search_agree_bit_for_bit(weights, generalization_aware):
    """The search engine's batches and BestFirstSearch's one-at-a-time calls
    find the same top 20 with the same qualities and estimates to the last bit."""
    data = scored_frame(5, n=600, attributes=5, ties="some")
    selectors = ps.create_selectors(data, ignore=["label", "score"])
    found = {}
    for algorithm in (subroc_ext.FastSearch(), ps.BestFirstSearch()):
        qf = make_qf("roc", "worse", weights, generalization_aware=generalization_aware)
        task = ps.SubgroupDiscoveryTask(
            data, TARGET, selectors, qf, result_set_size=20, depth=3,
            constraints=[ps.MinSupportConstraint(10)],
        )  # fmt: skip
        result = algorithm.execute(task)
        found[type(algorithm)] = sorted(
            (as_bits(q).item(), str(sg), as_bits(stats.optimistic_estimate).item())
            for q, sg, stats in result.results
        )
    assert found[subroc_ext.FastSearch] == found[ps.BestFirstSearch]
    assert len(found[ps.BestFirstSearch]) == 20


def pairwise_arl(label, score):
    """Mean over positives of the negatives scored above, ties one half (pairwise, no sort)."""
    positive, negative = score[label == 1], score[label == 0]
    return ((negative[None, :] > positive[:, None]) + 0.5 * (negative[None, :] == positive[:, None])).sum(1).mean()


def test_the_arl_reference_is_its_mean_over_subsets_of_the_same_class_counts():
    """``Measure.reference`` of the ARL, ``N(S)/N(D) ARL(D)``, is the mean ARL
    of all subsets with ``P(S)`` positives and ``N(S)`` negatives (enumerated,
    with and without ties): the test's own null."""
    arl = measures.AverageRankingLoss()
    for data in TINY:
        label, score, n = data["label"].to_numpy(), data["score"].to_numpy(), len(data)
        covers = ((np.arange(1, 2**n)[:, None] >> np.arange(n)) & 1).astype(bool)
        counts = np.column_stack([(covers & (label == 1)).sum(1), (covers & (label == 0)).sum(1)])
        values = np.array([pairwise_arl(label[c], score[c]) if p else np.nan for c, (p, _) in zip(covers, counts)])
        whole = pairwise_arl(label, score)
        for p, q in {tuple(c) for c in counts if c[0] >= 1}:
            same = (counts[:, 0] == p) & (counts[:, 1] == q)
            reference = arl.reference(whole, p, q, (label == 1).sum(), (label == 0).sum())
            assert values[same].mean() == pytest.approx(float(reference), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("mode", MODES)
def test_the_size_free_arl_search_ranks_by_the_arl_per_negative_with_a_valid_estimate(mode):
    """``make_quality_function('arl', size_free=True)``: its raw quality is the
    ARL per negative against the whole data's, ``sign (ARL(S)/N(S) -
    ARL(D)/N(D))`` (pairwise oracle), and its optimistic estimate bounds the
    weighted quality of every subset of every cover (enumerated, with and
    without ties)."""
    sign = {"worse": 1, "better": -1}.get(mode)
    for data in TINY:
        label, score, n = data["label"].to_numpy(), data["score"].to_numpy(), len(data)
        masks = np.arange(2**n)
        covers = ((masks[:, None] >> np.arange(n)) & 1).astype(bool)
        whole = pairwise_arl(label, score) / (label == 0).sum()
        for weights in WEIGHTS:
            qf = subroc_ext.make_quality_function("arl", "label", size_weight=weights[0],
                                                  balance_weight=weights[1], mode=mode, size_free=True)  # fmt: skip
            table = statistics_table(qf, data, covers)
            for cover, raw in zip(covers, table["raw_quality"]):
                p, q = (label[cover] == 1).sum(), (label[cover] == 0).sum()
                if p and q:
                    difference = pairwise_arl(label[cover], score[cover]) / q - whole
                    assert raw == pytest.approx(abs(difference) if sign is None else sign * difference, abs=1e-12)
            quality, estimate = table["quality"].to_numpy(), table["optimistic_estimate"].to_numpy()
            best = quality.copy()  # best[m] = max quality over subsets of m
            for bit in range(n):
                has_bit = (masks >> bit) & 1 == 1
                best[has_bit] = np.maximum(best[has_bit], best[masks[has_bit] ^ (1 << bit)])
            defined = best > -np.inf
            assert not (estimate[defined] < best[defined] - 1e-9 * np.maximum(1, np.abs(best[defined]))).any()
