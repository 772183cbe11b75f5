"""The search space: every column type, exact labels, pysubgroup's bins-only
space, missing values, ID-like and constant columns, and the search on it."""

import re
import warnings

import numpy as np
import pandas as pd
import pysubgroup as ps
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from search_helpers import TARGET, assert_same_top_k, brute_force_top_k, make_qf, run
from synthetic import scored_frame

import subroc_ext
from subroc_ext.demo import datasets
from subroc_ext.inputs.sorted_data import SortedDataset
from subroc_ext.inputs.search_space import SearchSpaceWarning, make_search_space
from subroc_ext.inputs.cuts import NEAR_COPY_SHARE, cut_conditions, equal_frequency_cuts
from subroc_ext.inputs.selectors import MissingCondition, PointCondition, RangeCondition, ValueCondition
from subroc_ext.utils.descriptions import name_text


def _labels(space):
    return [str(c) for c in space]


def _covers(space, frame):
    return {str(c): np.asarray(c.covers(frame), dtype=bool) for c in space}


def test_breast_cancer_labels_are_unique_exact_and_readable():
    """The table that crashed the CLI (two bins printed alike)."""
    from sklearn.datasets import load_breast_cancer

    frame = load_breast_cancer(as_frame=True).frame
    space = make_search_space(frame, ignore=["target"])
    labels = _labels(space)
    assert len(set(labels)) == len(labels)
    assert "0.0096 <= `concave points error` < 0.0124" in labels  # not [0.01:0.01[; a name with spaces quoted
    for condition in space:
        assert isinstance(condition, RangeCondition)
        values = frame[condition.attribute_name].to_numpy()
        # the printed numbers are the condition: re-parse them from the label
        text = str(condition)
        if " <= " in text:
            low, rest = text.split(" <= ", 1)
            expected = (values >= float(low)) & (values < float(rest.rsplit(" < ", 1)[1]))
        elif " >= " in text:
            expected = values >= float(text.rsplit(" >= ", 1)[1])
        else:
            expected = values < float(text.rsplit(" < ", 1)[1])
        np.testing.assert_array_equal(condition.covers(frame), expected)


@pytest.mark.parametrize("seed", range(4))
def test_shortened_cut_points_select_the_same_rows_as_pysubgroups(seed):
    """``x < 0.0099`` covers on the data what pysubgroup's exact cut-point covers."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"x": rng.lognormal(size=300) * 10.0 ** rng.integers(-4, 5),
                          "n": rng.integers(-50, 50, 300)})  # fmt: skip
    for name in frame:
        cuts = ps.equal_frequency_discretization(frame, name, 5)
        ours = [c for c in make_search_space(frame[[name]], nbins=5) if c.upper_bound is not None
                and c.lower_bound is None]  # fmt: skip
        theirs = [c for c in cuts if c > frame[name].min()]
        assert len(ours) == len(theirs)
        for condition, cut in zip(ours, theirs):
            np.testing.assert_array_equal(condition.covers(frame), frame[name].to_numpy() < cut)
            assert condition.upper_bound <= cut


def _frame_pysubgroup_handles(seed):
    frame = scored_frame(seed, 300, attributes=4, ties="some")
    rng = np.random.default_rng(seed)
    frame["num"] = rng.normal(size=len(frame)).round(2)
    frame.loc[rng.random(len(frame)) < 0.1, "num"] = np.nan
    frame["few"] = rng.integers(0, 3, len(frame))
    frame["flag"] = rng.random(len(frame)) < 0.3
    frame["word"] = rng.choice(["x", "y", "z"], len(frame)).astype(object)
    frame.loc[rng.random(len(frame)) < 0.1, "word"] = np.nan
    # a mass point: 0 in 60 % of the rows, the rest spread
    frame["gain"] = np.where(rng.random(len(frame)) < 0.6, 0.0, rng.lognormal(7, 1, len(frame)).round())
    return frame


@pytest.mark.parametrize("seed", [0, 1, 2, "adult"])
def test_bins_only_space_has_pysubgroups_covers(seed):
    """``thresholds=False``: the conditions of ``ps.create_selectors`` (same
    rows), also on the experiments' Adult data."""
    if seed == "adult":
        frame = datasets.load_adult().sample(3000, random_state=0)
        ignore = ["income"]
    else:
        frame = _frame_pysubgroup_handles(seed)
        ignore = ["label", "score"]
    ours = sorted(map(tuple, np.array(list(_covers(make_search_space(frame, ignore=ignore, thresholds=False), frame).values()))))
    theirs = ps.create_selectors(frame, nbins=5, ignore=ignore)
    theirs = sorted(tuple(np.asarray(s.covers(frame), dtype=bool)) for s in theirs)
    assert ours == theirs


def test_missing_values_get_conditions_like_pysubgroups_nan_selector():
    """pysubgroup's ``EqualitySelector(attr, nan)`` covers NaN and None rows;
    ours cover NA and NaT too, and ``is not missing`` is the complement."""
    frame = pd.DataFrame({
        "f": [1.0, np.nan, 3.0, 4.0] * 10,
        "o": pd.Series(["a", None, np.nan, "b"] * 10, dtype=object),
        "i": pd.array([1, None, 3, 4] * 10, dtype="Int64"),
        "b": pd.array([True, None, False, True] * 10, dtype="boolean"),
        "t": pd.to_datetime(["2020-01-01", None, "2021-01-01", "2022-01-01"] * 10),
    })  # fmt: skip
    covers = _covers(make_search_space(frame), frame)
    for name in frame:
        expected = frame[name].isna().to_numpy()
        np.testing.assert_array_equal(covers[f"{name} is missing"], expected)
        np.testing.assert_array_equal(covers[f"{name} is not missing"], ~expected)
    for name in ("f", "o"):
        np.testing.assert_array_equal(ps.EqualitySelector(name, np.nan).covers(frame), frame[name].isna())


def test_one_value_and_missing_gives_no_is_not_missing():
    """``x is not missing`` would be ``x=='a'`` again."""
    frame = pd.DataFrame({"x": ["a", None] * 5})
    assert _labels(make_search_space(frame)) == ["x is missing", "x=='a'"]


def test_id_like_and_constant_columns_are_left_out_with_one_warning():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({
        "customer_id": rng.permutation(100) * 7 + 10_000,  # a key: named like one
        "row": np.arange(100) + 1,                          # runs like a row number
        "name": [f"person {i}" for i in range(100)],         # distinct strings
        "income": rng.normal(50_000, 10_000, 100).round(),  # a measurement: kept
        "year": np.arange(1900, 2000),                       # time: kept
        "same": 3,
        "empty": np.nan,
        "z": rng.complex128 if False else rng.normal(size=100) + 1j,
        "g": rng.choice(["a", "b"], 100),
    })  # fmt: skip
    with pytest.warns(SearchSpaceWarning) as caught:
        space = make_search_space(frame)
    assert len(caught) == 1
    message = str(caught[0].message)
    for name in ("customer_id", "row", "name", "same", "empty", "z"):
        assert repr(name) in message
        assert name in space.left_out
    assert set(space.used) == {"income", "year", "g"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SearchSpaceWarning)
        kept = make_search_space(frame, keep_ids=True, ignore=["z"])
    assert {"customer_id", "row", "name"} <= set(kept.used)
    assert "z" not in kept.left_out  # ignored columns are not reported


def test_time_columns_compare_on_the_time_axis():
    rng = np.random.default_rng(1)
    stamps = pd.Series(pd.to_datetime("2020-01-01") + pd.to_timedelta(rng.integers(0, 10**8, 200), unit="s"))
    frame = pd.DataFrame({
        "naive": stamps,
        "aware": stamps.dt.tz_localize("UTC").dt.tz_convert("America/New_York"),
        "text": stamps.dt.strftime("%Y-%m-%d"),
        "wait": pd.to_timedelta(rng.integers(0, 10**6, 200), unit="s"),
    })  # fmt: skip
    space = make_search_space(frame)
    assert set(space.used) == {"naive", "aware", "text", "wait"}
    for condition in space:
        column = frame[condition.attribute_name]
        if condition.attribute_name == "text":
            column = pd.to_datetime(column)
        low, high = condition.lower_bound, condition.upper_bound
        low = None if low is None else (pd.Timestamp(low, tz="UTC") if condition.domain == "datetime" else pd.Timedelta(low))
        high = None if high is None else (pd.Timestamp(high, tz="UTC") if condition.domain == "datetime" else pd.Timedelta(high))
        if condition.domain == "datetime" and column.dt.tz is None:
            low, high = (None if b is None else b.tz_localize(None) for b in (low, high))
        expected = np.ones(len(frame), dtype=bool)
        if low is not None:
            expected &= (column >= low).to_numpy()
        if high is not None:
            expected &= (column < high).to_numpy()
        np.testing.assert_array_equal(condition.covers(frame), expected)
    labels = _labels(space)
    assert any(label.startswith("naive < 20") for label in labels)
    assert all(label.endswith(("EST", "EDT")) for label in labels if label.startswith("aware <"))
    assert any(" days" in label for label in labels if label.startswith("wait"))


def test_odd_values_never_crash_and_are_never_silent():
    """Infinities are values like others; dates numpy would wrap around are
    left out with a reason; strings that only look like dates stay strings."""
    frame = pd.DataFrame({
        "inf": np.r_[np.inf, -np.inf, np.arange(38.0)],
        "ancient": ["1500-01-01", "2020-05-01"] * 20,
        "ancient_dt": pd.to_datetime(pd.Series(["1500-01-01", "1600-01-01"] * 20)).astype("datetime64[s]"),
        "not_a_date": ["2021-02-30", "2021-01-01"] * 20,
    })  # fmt: skip
    with pytest.warns(SearchSpaceWarning, match="'ancient' .times outside the years 1677-2262.; 'ancient_dt'"):
        space = make_search_space(frame)
    assert set(space.used) == {"inf", "not_a_date"}
    assert "not_a_date=='2021-02-30'" in _labels(space)
    covers = _covers(space, frame)
    np.testing.assert_array_equal(covers["inf >= 31"], frame["inf"].to_numpy() >= 31)


def test_sorted_dataset_masks_equal_covers_on_any_index():
    frame = _frame_pysubgroup_handles(2)
    frame["t"] = pd.date_range("2020-01-01", periods=len(frame), freq="h", tz="UTC")
    frame["i"] = pd.array(np.where(np.arange(len(frame)) % 7 == 0, None, np.arange(len(frame)) % 11), dtype="Int64")
    frame.index = [f"r{i}" for i in np.random.default_rng(0).permutation(len(frame))]
    dataset = SortedDataset(frame, "label", "score", 1)
    space = make_search_space(frame, ignore=["label", "score"])
    kinds = {type(c) for c in space}
    assert kinds == {ValueCondition, RangeCondition, MissingCondition, PointCondition}
    for condition in space:
        np.testing.assert_array_equal(
            dataset.selector_mask(condition), np.asarray(condition.covers(frame))[dataset.order]
        )


def _search_frame(seed):
    frame = _frame_pysubgroup_handles(seed).iloc[:160]
    return frame, list(make_search_space(frame, ignore=["label", "score"], nbins=3))


@given(
    name=st.sampled_from(["roc", "pr", "arl", "attribution"]),
    mode=st.sampled_from(["worse", "better", "both"]),
    weights=st.sampled_from([(0, 0), (1, 1), (0.5, 2)]),
    generalization_aware=st.booleans(),
    depth=st.integers(1, 2),
    k=st.sampled_from([1, 5, 20]),
    seed=st.integers(0, 2),
)
@settings(max_examples=40, derandomize=True, deadline=None)
def test_fast_search_equals_best_first_search_with_thresholds_and_missing(
    name, mode, weights, generalization_aware, depth, k, seed
):
    frame, selectors = _search_frame(seed)
    assert any(isinstance(s, MissingCondition) for s in selectors)
    assert any(isinstance(s, PointCondition) for s in selectors)

    def qf():
        return make_qf(name, mode, weights, generalization_aware=generalization_aware)

    fast = run(subroc_ext.FastSearch(), qf(), frame, selectors, depth=depth, min_support=10, k=k)
    best_first = run(ps.BestFirstSearch(), qf(), frame, selectors, depth=depth, min_support=10, k=k)
    assert_same_top_k(fast, best_first, k)
    assert [q for q, _ in fast] == [q for q, _ in best_first]


@pytest.mark.parametrize("name", ["roc", "arl"])
def test_fast_search_equals_brute_force_with_thresholds_and_missing(name):
    frame, selectors = _search_frame(0)
    for weights in [(0, 0), (1, 1)]:
        fast = run(subroc_ext.FastSearch(), make_qf(name, "both", weights), frame, selectors,
                   depth=2, min_support=10, k=15)  # fmt: skip
        expected = brute_force_top_k(make_qf(name, "both", weights), frame, selectors, 2, 10, 15, False)
        assert_same_top_k(fast, expected, 15)


def test_every_pysubgroup_algorithm_runs_on_it():
    frame, selectors = _search_frame(1)
    expected = run(ps.BestFirstSearch(), make_qf("roc", weights=(1, 1)), frame, selectors, depth=2, min_support=10, k=5)
    for algorithm in (ps.DFS(), ps.SimpleDFS(), ps.Apriori(use_numba=False), ps.DFS(ps.BitSetRepresentation)):
        found = run(algorithm, make_qf("roc", weights=(1, 1)), frame, selectors, depth=2, min_support=10, k=5)
        assert [q for q, _ in found if q != 0] == [q for q, _ in expected if q != 0]


def test_conditions_pickle_and_do_not_rename_pysubgroup_selectors():
    import pickle

    frame = pd.DataFrame({"g": ["a", "b"] * 5, "x": np.arange(10.0)})
    theirs = ps.EqualitySelector("g", "a")
    space = make_search_space(frame, nbins=2)
    assert str(theirs) == "g=='a'" and space[0] == theirs
    for condition in space:
        copy = pickle.loads(pickle.dumps(condition))
        assert copy == condition and str(copy) == str(condition)
        np.testing.assert_array_equal(copy.covers(frame), condition.covers(frame))


# -- every dtype --------------------------------------------------------------

_NAMES = st.sampled_from(["a", "b c", "größe", "x_1", "名前", "price ($)", "0"])


@st.composite
def _frames(draw):
    n = draw(st.integers(12, 60))
    rng = np.random.default_rng(draw(st.integers(0, 10**6)))
    names = draw(st.lists(_NAMES, min_size=1, max_size=4, unique=True))
    holes = rng.random(n) < draw(st.sampled_from([0.0, 0.2, 1.0]))
    makers = {
        "float": lambda: pd.Series(rng.normal(size=n)).mask(holes),
        "int": lambda: pd.Series(rng.integers(0, draw(st.sampled_from([2, 5, 1000])), n)),
        "Int64": lambda: pd.Series(pd.array(rng.integers(0, 9, n), dtype="Int64")).mask(holes),
        "boolean": lambda: pd.Series(pd.array(rng.random(n) < 0.5, dtype="boolean")).mask(holes),
        "bool": lambda: pd.Series(rng.random(n) < 0.5),
        "string": lambda: pd.Series(rng.choice(["x", "y", "ü z"], n), dtype="string").mask(holes),
        "category": lambda: pd.Series(pd.Categorical(rng.choice(["p", "q"], n), categories=["p", "q", "unused"])).mask(holes),
        "datetime": lambda: pd.Series(pd.to_datetime("2000-01-01") + pd.to_timedelta(rng.integers(0, 10**9, n), unit="s")).mask(holes),
        "datetime_tz": lambda: pd.Series(pd.to_datetime("2000-01-01", utc=True) + pd.to_timedelta(rng.integers(0, 10**9, n), unit="s")).dt.tz_convert("Europe/Berlin").mask(holes),
        "timedelta": lambda: pd.Series(pd.to_timedelta(rng.integers(0, 10**6, n), unit="s")).mask(holes),
        "mixed": lambda: pd.Series(rng.choice(np.array([1, "1", 2.5, True, None, "a"], dtype=object), n)),
        "all_nan": lambda: pd.Series(np.full(n, np.nan)),
        "date_text": lambda: pd.Series(pd.to_datetime("2020-01-01") + pd.to_timedelta(rng.integers(0, 900, n), unit="D")).dt.strftime("%Y-%m-%d").mask(holes),
        "ids": lambda: pd.Series([f"id{i}" for i in range(n)]),
        "Float64": lambda: pd.Series(pd.array(rng.normal(size=n).round(1), dtype="Float64")).mask(holes),
        "float32": lambda: pd.Series(rng.normal(size=n).astype(np.float32)),
        "uint8": lambda: pd.Series(rng.integers(0, 255, n).astype(np.uint8)),
        "period": lambda: pd.Series(pd.period_range("2020-01", periods=n, freq="M")[rng.integers(0, 5, n)]),
        "interval": lambda: pd.Series(pd.cut(rng.normal(size=n), 3)),
        "sparse": lambda: pd.Series(pd.arrays.SparseArray(rng.integers(0, 3, n) * 1.0, fill_value=0.0)),
    }
    kinds = draw(st.lists(st.sampled_from(sorted(makers)), min_size=len(names), max_size=len(names)))
    frame = pd.DataFrame({name: makers[kind]().to_numpy() if kind in ("mixed",) else makers[kind]().reset_index(drop=True)
                          for name, kind in zip(names, kinds)})  # fmt: skip
    frame["label"] = rng.integers(0, 2, n)
    frame.loc[:1, "label"] = [0, 1]
    frame["score"] = rng.random(n)
    return frame


@given(frame=_frames(), thresholds=st.booleans(), nbins=st.integers(1, 6))
@settings(max_examples=150, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_any_frame_gives_a_valid_space(frame, thresholds, nbins):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SearchSpaceWarning)
        space = make_search_space(frame, ignore=["label", "score"], nbins=nbins, thresholds=thresholds)
    labels = _labels(space)
    assert len(set(labels)) == len(labels)
    assert set(space.used) | set(space.left_out) == set(frame.columns) - {"label", "score"}
    dataset = SortedDataset(frame, "label", "score", 1)
    for condition in space:
        cover = np.asarray(condition.covers(frame))
        assert cover.dtype == bool and cover.shape == (len(frame),)
        np.testing.assert_array_equal(dataset.selector_mask(condition), cover[dataset.order])
        if thresholds:  # no condition selects every row (the whole split is no subgroup)
            assert not cover.all(), condition
    for name in space.used:
        if frame[name].isna().any():
            assert f"{name_text(name)} is missing" in labels


@given(frame=_frames())
@settings(max_examples=12, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_any_frame_runs_through_find_subgroups(frame):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SearchSpaceWarning)
        warnings.simplefilter("ignore", subroc_ext.UndefinedMeasureWarning)
        try:
            table = subroc_ext.find_subgroups(frame, label="label", score="score", depth=2, min_support=3,
                                              n_samples=20, progress=False, validation=frame)  # fmt: skip
        except ValueError as error:  # a refused input: one line naming the problem
            assert "\n" not in str(error)
            return
    assert (table["quality"] > 0).all()
    assert table["description"].is_unique
    assert (table["size_search"] < len(frame)).all()


def test_command_line_search_space_options(tmp_path, capsys):
    """``--bins-only`` gives pysubgroup's bins; ``--keep-ids`` keeps an ID column;
    the left-out columns are named in one warning line."""
    from subroc_ext.cli import main

    frame = scored_frame(4, 600).assign(customer_id=lambda f: np.arange(len(f)) + 5000)
    path = tmp_path / "data.csv"
    frame.to_csv(path, index=False)
    common = ["run", str(path), "--label", "y", "--score", "p", "--depth", "1", "--samples", "20", "--quiet"]
    assert main([*common, "--out", str(tmp_path / "default")]) == 0
    # the power warning of the 20-sample test is another line, not the search space's
    def search_space_lines():
        lines = capsys.readouterr().err.strip().splitlines()
        return [line for line in lines if "lone finding cannot be significant" not in line]

    assert search_space_lines() == [
        "subroc-ext: warning: columns left out of the search space: 'customer_id' (ID-like: 600 "
        "distinct values in 600 rows, named like a key) - keep_ids=True (--keep-ids) keeps ID-like columns"
    ]
    assert main([*common, "--bins-only", "--keep-ids", "--min-support", "1", "--top", "1000",
                 "--out", str(tmp_path / "bins")]) == 0  # fmt: skip
    assert search_space_lines() == []
    default = set(pd.read_csv(tmp_path / "default" / "subgroups.csv")["description"])
    bins = set(pd.read_csv(tmp_path / "bins" / "subgroups.csv")["description"])
    whole = pd.read_csv(path)  # the conditions of every row, whichever rows search
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SearchSpaceWarning)
        default_space = set(_labels(make_search_space(whole, ignore=["y", "p"])))
    bins_space = set(_labels(make_search_space(whole, ignore=["y", "p"], thresholds=False, keep_ids=True)))
    assert default <= default_space and not default <= bins_space
    assert bins <= bins_space and any(d.startswith("customer_id") or " customer_id " in d for d in bins)


def test_the_report_writes_the_conditions_in_its_notation():
    from subroc_ext.reporting.conditions import condition_texts

    frame = pd.DataFrame({"g": ["a", "b", None] * 5, "x": np.arange(15.0), "k": [1.0, 2.0, 3.0] * 5,
                          "m": [0.0] * 9 + [1.5, 2.5, 3.5, 4.5, 5.5, 6.5]})  # fmt: skip
    texts = condition_texts(ps.Conjunction(list(make_search_space(frame, nbins=3))))
    assert texts == ["g is missing", "g = a", "g = b", "g is not missing", "x < 5", "x ≥ 5", "x < 10",
                     "x ≥ 10", "5 ≤ x < 10", "k = 1", "k = 2", "k = 3", "m = 0", "m ≠ 0", "m < 4",
                     "m ≥ 4", "1 ≤ m < 4"]  # fmt: skip


# -- mass points and near copies ----------------------------------------------


def _expected_cover(condition, frame):
    """A condition's rows, from its label alone (the printed numbers are the condition)."""
    values = frame[condition.attribute_name].to_numpy(dtype=float)
    text = str(condition)[len(condition.attribute_name):]
    if isinstance(condition, PointCondition):
        number = float(text.split()[-1])
        return (values == number) if text.startswith(" ==") else (~np.isnan(values) & (values != number))
    if text.endswith(" is missing"):
        return np.isnan(values)
    if text.endswith(" is not missing"):
        return ~np.isnan(values)
    if " <= " in str(condition):
        low = float(str(condition).split(" <= ")[0])
        return (values >= low) & (values < float(text.split(" < ")[1]))
    if text.startswith(" >= "):
        return values >= float(text[4:])
    return values < float(text[3:])


def _mass_point_column(rng, n):
    """Random values with zero, one or two mass points and some missing values."""
    values = rng.lognormal(3, 1, n).round(rng.integers(0, 3))
    for value in rng.choice([0.0, 10.0, 50.0, 1e6], rng.integers(0, 3), replace=False):
        values[rng.random(n) < rng.uniform(0.15, 0.9)] = value
    values[rng.random(n) < rng.choice([0, 0.003, 0.05])] = np.nan
    return values


@pytest.mark.parametrize("seed", range(6))
def test_equal_frequency_cuts_are_pysubgroups(seed):
    """The vectorized rule gives ``ps.equal_frequency_discretization``'s cut-points."""
    rng = np.random.default_rng(seed)
    for _ in range(30):
        values = _mass_point_column(rng, int(rng.integers(5, 400)))
        values = values[~np.isnan(values)]
        for nbins in (1, 2, 3, 5, 8):
            expected = ps.equal_frequency_discretization(pd.DataFrame({"x": values}), "x", nbins)
            assert equal_frequency_cuts(np.sort(values), nbins) == [float(c) for c in expected]


def test_adult_capital_gain_is_zero_or_not_and_cut_above_zero():
    """Issue 30: ``capital_gain`` is 0 in 92 % of the rows; the cuts were
    ``< 100``, ``< 400``, ``< 500`` (the next values above 0, covers 8 and 5
    rows apart); now ``== 0``, ``!= 0`` and quartiles of the other values."""
    frame = datasets.load_adult()
    for name in ("capital_gain", "capital_loss"):
        space = make_search_space(frame[[name]])
        labels = _labels(space)
        assert labels[:2] == [f"{name} == 0", f"{name} != 0"]
        covers = _covers(space, frame)
        np.testing.assert_array_equal(covers[f"{name} == 0"], frame[name].to_numpy() == 0)
        sizes = sorted(cover.sum() for label, cover in covers.items() if " <= " in label)
        nonzero = (frame[name] != 0).sum()
        assert len(sizes) == 3 and sizes[0] > nonzero / 6  # bins of the values above 0
    assert "capital_gain < 3400" in _labels(make_search_space(frame[["capital_gain"]]))


@pytest.mark.parametrize("dtype", ["int64", "float64"])
def test_a_bin_of_one_whole_number_is_that_value(dtype):
    """Issue 58: a column of whole numbers cut to one value read
    ``1 <= hospital < 2``; now ``hospital == 1``, the same rows. A column of
    fractions keeps its ranges."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"hospital": rng.choice(6, 1000, p=[0.3, 0.15, 0.15, 0.15, 0.15, 0.1]).astype(dtype)})
    space = make_search_space(frame)
    labels = _labels(space)
    assert {"hospital == 1", "hospital == 2", "hospital == 3"} <= set(labels)
    assert not any(" <= hospital < " in label for label in labels)
    covers = _covers(space, frame)
    for value in (1, 2, 3):
        np.testing.assert_array_equal(covers[f"hospital == {value}"], frame["hospital"].to_numpy() == value)
    fractions = make_search_space(frame.assign(hospital=frame["hospital"] + 0.5))
    assert "1 <= hospital < 2" in _labels(fractions)


@given(seed=st.integers(0, 10**6), nbins=st.integers(2, 7))
@settings(max_examples=60, derandomize=True, deadline=None)
def test_mass_point_covers_equal_direct_comparisons_and_no_near_copies(seed, nbins):
    """Brute force on random columns with mass points: every condition selects
    what its label says; a value in more than 1/nbins of the non-missing rows
    is its own condition; no two overlapping conditions of the column differ
    in fewer than 0.5 % of the rows; and every condition left out is such a
    copy of one that stays."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(200, 3000))
    frame = pd.DataFrame({"x": _mass_point_column(rng, n)})
    present = frame["x"].dropna()
    if present.nunique() <= nbins:
        return
    space = list(make_search_space(frame, nbins=nbins))
    covers = [np.asarray(c.covers(frame), dtype=bool) for c in space]
    for condition, cover in zip(space, covers):
        np.testing.assert_array_equal(cover, _expected_cover(condition, frame), err_msg=str(condition))
        assert cover.any() and not cover.all()
    counts = present.value_counts()
    masses = set(counts[counts * nbins > len(present)].index)
    assert {c.value for c in space if isinstance(c, PointCondition)} == masses
    def near(a, b):
        differ = int((a ^ b).sum())
        return differ == 0 or (differ < NEAR_COPY_SHARE * n and (a & b).any())
    for i in range(len(covers)):
        for j in range(i):
            assert not near(covers[i], covers[j]), (str(space[i]), str(space[j]))
    # every candidate left out is a near copy of a kept condition (or of a candidate before it)
    numbers = present.to_numpy()
    candidates = [*([MissingCondition("x")] if len(present) < n else []),
                  *cut_conditions("x", numbers, "number", nbins, True),
                  *([MissingCondition("x", missing=False)] if len(present) < n else [])]  # fmt: skip
    kept = {str(c) for c in space}
    assert kept <= {str(c) for c in candidates}
    for candidate in candidates:
        if str(candidate) not in kept:
            cover = np.asarray(candidate.covers(frame), dtype=bool)
            assert any(near(cover, other) for other in covers), str(candidate)


def test_mass_points_of_times_and_durations():
    rng = np.random.default_rng(3)
    n = 400
    stamps = pd.Series(pd.to_datetime("2021-03-01") + pd.to_timedelta(rng.integers(0, 10**8, n), unit="s"))
    default = rng.random(n) < 0.5
    frame = pd.DataFrame({
        "signup": stamps.where(~default, pd.Timestamp("2020-01-01")),
        "paid": stamps.where(~default, pd.Timestamp("2020-01-01 10:30")).dt.tz_localize("Europe/Berlin"),
        "wait": pd.Series(pd.to_timedelta(rng.integers(1, 10**6, n), unit="s")).where(~default, pd.Timedelta(0)),
    })  # fmt: skip
    space = make_search_space(frame)
    labels = _labels(space)
    assert {"signup == 2020-01-01", "signup != 2020-01-01", "paid == 2020-01-01 10:30 CET",
            "wait == 0 days", "wait != 0 days"} <= set(labels)  # fmt: skip
    for condition in space:
        if isinstance(condition, PointCondition):
            column = frame[condition.attribute_name]
            value = {"signup": pd.Timestamp("2020-01-01"), "wait": pd.Timedelta(0),
                     "paid": pd.Timestamp("2020-01-01 10:30", tz="Europe/Berlin")}[condition.attribute_name]  # fmt: skip
            expected = (column == value) if condition.equal else (column != value)
            np.testing.assert_array_equal(condition.covers(frame), expected.to_numpy())


def test_bins_only_space_ignores_mass_points():
    """``thresholds=False`` keeps pysubgroup's bins, mass point or not."""
    frame = datasets.load_adult()[["capital_gain", "hours_per_week"]]
    ours = make_search_space(frame, thresholds=False)
    assert not any(isinstance(c, PointCondition) for c in ours)
    theirs = ps.create_selectors(frame, nbins=5)
    assert sorted(tuple(np.asarray(c.covers(frame))) for c in ours) == sorted(
        tuple(np.asarray(s.covers(frame), dtype=bool)) for s in theirs
    )


# -- ID-like columns by evidence ----------------------------------------------


def _actg175_like(seed=0, n=2139):
    """A table like ACTG175 (AIDS Clinical Trials Group study 175): ``pidnum``,
    distinct patient numbers from 10056 to 990077, next to the trial's
    measurements (integers and floats) and codes."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "pidnum": np.sort(rng.choice(np.arange(10_056, 990_078), n, replace=False)),
        "age": rng.integers(12, 71, n),
        "wtkg": rng.normal(75, 13, n).round(4),
        "karnof": rng.choice([70, 80, 90, 100], n),
        "cd40": rng.integers(0, 1200, n),
        "cd80": rng.integers(40, 5000, n),
        "preanti": rng.integers(0, 2851, n),
        "treat": rng.integers(0, 2, n),
        "arms": rng.integers(0, 4, n),
    })  # fmt: skip


def test_actg175_pidnum_is_left_out_and_the_measurements_stay():
    """Issue 30: ``pidnum`` stayed in the search space (and in 4 of the top 20)."""
    frame = _actg175_like()
    with pytest.warns(SearchSpaceWarning, match=r"'pidnum' \(ID-like: 2139 distinct values in 2139 rows, named like a key\)"):
        space = make_search_space(frame)
    assert list(space.left_out) == ["pidnum"]
    assert set(space.used) == set(frame.columns) - {"pidnum"}


@pytest.mark.parametrize("name", ["pidnum", "patient_id", "ID", "PatientNo", "customerID", "subject.no", "usubjid", "rowid"])
def test_distinct_integers_named_like_a_key_are_left_out(name):
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({name: rng.choice(10**6, 300, replace=False), "g": rng.choice(["a", "b"], 300)})
    with pytest.warns(SearchSpaceWarning, match="named like a key"):
        space = make_search_space(frame)
    assert name in space.left_out and set(space.used) == {"g"}


@pytest.mark.parametrize("name", ["amount_paid", "covid", "fluid", "acid", "lipid", "platinum", "casino"])
def test_measurements_whose_name_ends_like_a_key_stay(name):
    """All distinct integers, but the name only ends in the letters of a key word."""
    rng = np.random.default_rng(2)
    frame = pd.DataFrame({name: rng.choice(10**6, 300, replace=False)})
    with warnings.catch_warnings():
        warnings.simplefilter("error", SearchSpaceWarning)
        space = make_search_space(frame)
    assert space.used == {name: "number"}


@pytest.mark.parametrize("name", ["pidnum", "patient_id", "ID"])
def test_floats_are_never_ids(name):
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({name: rng.choice(10**6, 300, replace=False) + 0.5})
    with warnings.catch_warnings():
        warnings.simplefilter("error", SearchSpaceWarning)
        assert make_search_space(frame).used == {name: "number"}


# -- rare values and high-cardinality columns ---------------------------------


def _direct_equal(column, value):
    """``column == value`` row by row, missing values never equal (the oracle)."""
    def equal(x):
        try:
            return bool(x == value)
        except (TypeError, ValueError):
            return False
    return np.array([not pd.isna(x) and equal(x) for x in column.astype(object)], dtype=bool)


@pytest.mark.parametrize("kind", ["object", "string", "category", "Int64", "bool", "float32", "mixed", "period"])
def test_value_masks_equal_direct_comparisons(kind):
    from subroc_ext.inputs.selectors import ValueCodes

    rng = np.random.default_rng(4)
    n = 300
    column = {
        "object": lambda: pd.Series(rng.choice(["a", "b", "c", None], n), dtype=object),
        "string": lambda: pd.Series(rng.choice(["x", "y", "ü"], n), dtype="string").mask(rng.random(n) < 0.1),
        "category": lambda: pd.Series(pd.Categorical(rng.choice(["p", "q"], n), categories=["p", "q", "r"])),
        "Int64": lambda: pd.Series(pd.array(rng.integers(0, 5, n), dtype="Int64")).mask(rng.random(n) < 0.1),
        "bool": lambda: pd.Series(rng.random(n) < 0.3),
        "float32": lambda: pd.Series(rng.choice([0.1, 0.2, 0.3], n).astype(np.float32)),
        "mixed": lambda: pd.Series(rng.choice(np.array([1, "1", 2.5, True, None], dtype=object), n)),
        "period": lambda: pd.Series(pd.period_range("2020-01", periods=4, freq="M")[rng.integers(0, 4, n)]),
    }[kind]()
    codes = ValueCodes(column)
    values = [*codes.uniques.tolist(), "never seen", 99]
    for value in values:
        np.testing.assert_array_equal(codes.mask(value), _direct_equal(column, value), err_msg=repr(value))
    for condition in make_search_space(pd.DataFrame({"c": column}), nbins=10):
        if isinstance(condition, ValueCondition):
            np.testing.assert_array_equal(condition.covers(pd.DataFrame({"c": column})),
                                          _direct_equal(column, condition.attribute_value))  # fmt: skip


@pytest.mark.parametrize("distinct,dtype", [(3, np.int8), (127, np.int8), (128, np.int16), (40_000, np.int32)])
def test_value_codes_take_the_smallest_integer_type_and_give_the_same_masks(distinct, dtype):
    """The codes a dataset keeps for each column it covers: one byte a row
    up to 127 values, every mask still that of a direct comparison (the
    first from the codes, the others from the rows grouped by value)."""
    from subroc_ext.inputs.selectors import ValueCodes

    rng = np.random.default_rng(distinct)
    drawn = np.concatenate([np.arange(distinct), rng.integers(0, distinct, 50_000)])  # each value at least once
    column = pd.Series(drawn).map("v{}".format)
    column = column.mask((rng.random(len(column)) < 0.05) & (drawn >= 2))
    codes = ValueCodes(column)
    assert codes.codes.dtype == dtype and (codes.codes == -1).sum() == column.isna().sum()
    assert codes.counts().sum() == column.notna().sum()
    for value in ["v0", f"v{distinct - 1}", "v1", "never seen"]:  # v0 and v1 never missing
        np.testing.assert_array_equal(codes.mask(value), _direct_equal(column, value), err_msg=value)


def _zipf_frame(seed, n=1500):
    """A nominal column with a few frequent values and many rare ones."""
    rng = np.random.default_rng(seed)
    frame = scored_frame(seed, n, attributes=3)
    frame["city"] = pd.Series(rng.zipf(1.5, n) % 400).map("c{}".format)
    return frame


@pytest.mark.parametrize("min_support", [1, 5, 20])
def test_values_under_the_minimum_support_get_no_condition_and_change_nothing(min_support):
    """Lossless: a pattern with a rarer value never reaches the minimum
    support, so the search finds the same with and without those values."""
    frame = _zipf_frame(min_support)
    counts = frame["city"].value_counts()
    space = make_search_space(frame, ignore=["label", "score"], min_support=min_support, warn=False)
    full = make_search_space(frame, ignore=["label", "score"], warn=False)
    cities = {c.attribute_value for c in space if c.attribute_name == "city"}
    assert cities == set(counts[counts >= min_support].index)
    assert space.rare_values.get("city", 0) == (counts < min_support).sum()
    assert [str(c) for c in space if c.attribute_name != "city"] == [str(c) for c in full if c.attribute_name != "city"]
    qf = make_qf("roc", weights=(1, 1))
    pruned = run(subroc_ext.FastSearch(), qf, frame, list(space), depth=2, min_support=min_support, k=20)
    everything = run(ps.BestFirstSearch(), make_qf("roc", weights=(1, 1)), frame, list(full), depth=2,
                     min_support=min_support, k=20)  # fmt: skip
    assert_same_top_k(pruned, everything, 20)


def test_a_high_cardinality_column_is_named_in_a_note_and_no_mask_is_built_for_its_rare_values(monkeypatch):
    """Issue 32: 285k values of one string column ran for 580 s (a mask per
    value, each found by scanning all values). Now values under the minimum
    support get no condition and no mask, and a note says so."""
    from subroc_ext.inputs import selectors

    rng = np.random.default_rng(0)
    n = 20_000
    frame = scored_frame(0, n, attributes=2)
    frame["city"] = np.where(rng.random(n) < 0.3, rng.integers(0, 30, n), 1000 + rng.integers(0, 12_000, n))
    frame["city"] = frame["city"].map("c{}".format)
    frame["rare"] = [f"r{i // 3}" for i in range(n)]  # every value in 3 rows
    masks = []
    real_mask = selectors.ValueCodes.mask
    monkeypatch.setattr(selectors.ValueCodes, "mask", lambda self, value: masks.append(value) or real_mask(self, value))
    monkeypatch.setattr(selectors, "_same", lambda a, b: pytest.fail("a value was looked up by scanning"))
    with pytest.warns(SearchSpaceWarning) as caught:
        table = subroc_ext.find_subgroups(frame, label="label", score="score", depth=1, n_samples=50, progress=False)
    messages = [str(w.message) for w in caught]
    assert "columns left out of the search space: 'rare' (every value in fewer than 20 rows, the minimum support)" in messages
    note = next(m for m in messages if m.startswith("values in fewer than 20 rows (the minimum support) get no condition: 'city' "))
    search_values = table.attrs["search_space"]["conditions"]
    assert search_values < 60
    rare = {v for v in masks if re.fullmatch(r"r\d+|c\d{4,}", str(v))}
    assert masks and not rare  # masks of frequent values only (both splits)
    assert int(note.split("'city' ")[1].split(" of ")[0].replace(",", "")) > 5000


# -- numbers written as text --------------------------------------------------


def test_numbers_with_a_few_words_are_named_with_those_words():
    """Issue 32: ``age`` with 1 in 7 values 'unknown' silently became categorical."""
    rng = np.random.default_rng(5)
    n = 8000
    age = rng.integers(18, 90, n).astype(str).astype(object)
    age[np.arange(n) % 7 == 0] = "unknown"
    age[np.arange(n) % 500 == 1] = "n/a"
    frame = pd.DataFrame({"age": age, "grade": rng.choice(["1", "2", "3", "x"], n),
                          "code": rng.choice(["A1", "B2", "7", "8"], n)})  # fmt: skip
    words = int((~frame["age"].str.isdigit()).sum())
    with pytest.warns(SearchSpaceWarning) as caught:
        space = make_search_space(frame)
    assert [str(w.message) for w in caught] == [
        f"column 'age': {words:,} of 8,000 values are not numbers ('unknown', 'n/a'): treated as categorical; "
        "convert them to NaN to cut it numerically"
    ]
    assert space.notes == (str(caught[0].message),)
    assert space.used["age"] == "nominal"
    numeric = frame.assign(age=pd.to_numeric(frame["age"], errors="coerce"))
    with warnings.catch_warnings():
        warnings.simplefilter("error", SearchSpaceWarning)
        assert make_search_space(numeric).used["age"] == "number"


# -- columns that separate two periods ----------------------------------------


def test_columns_that_tell_the_periods_apart_are_left_out():
    rng = np.random.default_rng(6)
    n = 400
    current = np.arange(n) >= n // 2
    frame = pd.DataFrame({
        "sample_yr": np.where(current, rng.integers(3, 5, n), rng.integers(1, 3, n)),  # 1-2 | 3-4
        "version": np.where(current, "v2", "v1"),                                      # constant in each
        "added": pd.Series(np.where(current, rng.random(n), np.nan)),                  # missing before
        "seen": pd.to_datetime("2021-01-01") + pd.to_timedelta(np.arange(n), unit="D"),
        "age": rng.integers(18, 80, n),                                                # overlaps: stays
        "plan": rng.choice(["a", "b"], n),
        "gap": pd.Series(np.where(rng.random(n) < 0.1, np.nan, np.where(current, 2.0, 1.0) + rng.random(n))),
    })  # fmt: skip
    with pytest.warns(SearchSpaceWarning, match="columns left out of the search space: 'sample_yr' .separates the periods"):
        space = make_search_space(frame, periods=current)
    assert set(space.left_out) == {"sample_yr", "version", "added", "seen"}
    assert set(space.used) == {"age", "plan", "gap"}  # 'gap': missing values in both periods
    assert set(make_search_space(frame, warn=False).used) == set(frame.columns)


def test_find_drift_leaves_out_the_column_that_defines_the_periods():
    """Issue 30: ``sample.yr`` defined the drift's periods and appeared in its conditions."""
    rng = np.random.default_rng(7)

    def period(years, broken):
        n = 1500
        frame = pd.DataFrame({"region": rng.choice(["north", "south", "east"], n), "sample.yr": rng.choice(years, n),
                              "label": rng.integers(0, 2, n)})  # fmt: skip
        frame["p"] = 0.5 * frame["label"] + 0.5 * rng.random(n)
        if broken:
            east = (frame["region"] == "east").to_numpy()
            frame.loc[east, "p"] = rng.random(east.sum())
        return frame

    with pytest.warns(SearchSpaceWarning, match=r"'sample\.yr' \(separates the periods: their ranges do not overlap\)"):
        table = subroc_ext.find_drift(period([2015, 2016], False), period([2017, 2018], True), label="label",
                                      score="p", depth=2, n_samples=200, progress=False)  # fmt: skip
    assert not table["description"].str.contains("sample.yr", regex=False).any()
    assert table["description"].iloc[0] == "region=='east'"
