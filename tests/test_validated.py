"""The validated data object: checked and sorted once, other table libraries,
only real findings, seeded by default."""

import re
import sys
from collections import Counter

import numpy as np
import pandas as pd
import pysubgroup as ps
import pytest
from synthetic import scored_frame

import subroc_ext
from subroc_ext.inputs import sorted_data as dataset
from subroc_ext.metrics import kernels
from subroc_ext.utils import validation as _validation
from subroc_ext.workflow import steps
from subroc_ext.inputs import validated
from subroc_ext.inputs.search_space import make_search_space
from subroc_ext.inputs.validated import validate_data

FRAME = scored_frame(3, 800)
ARGS = {"label": "y", "score": "p", "depth": 2, "n_samples": 50, "progress": False}


def _count_calls(function, *args, **kwargs):
    """Calls of the label/score checks and of the sorting during ``function``."""
    watched = {
        _validation.positive_mask.__code__: "positive_mask",
        _validation.finite_scores.__code__: "finite_scores",
        dataset.SortedDataset.__init__.__code__: "SortedDataset",
    }
    counts = Counter()

    def profile(frame, event, arg):
        if event == "call" and frame.f_code in watched:
            counts[watched[frame.f_code]] += 1

    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        result = function(*args, **kwargs)
    finally:
        sys.setprofile(previous)
    return result, counts


def test_find_subgroups_checks_and_sorts_each_split_once():
    """Before the validated data object: 11 label checks, 11 score checks and
    6 sorted datasets per call."""
    table, counts = _count_calls(subroc_ext.find_subgroups, FRAME, **ARGS)
    assert len(table)
    assert counts == {"positive_mask": 2, "finite_scores": 2, "SortedDataset": 2}


def test_the_search_space_is_that_of_every_row_whichever_rows_search():
    """The conditions come from the attributes of all rows (search and
    validation alike): every seed's split, and the same rows given as two
    frames, search the same space; the search split alone would cut elsewhere."""
    whole = make_search_space(FRAME.drop(columns=["y", "p"]), warn=False)
    spaces = [validate_data(FRAME, label="y", score="p", random_state=seed).space for seed in range(3)]
    search, held_out = validated.split_validation(FRAME, 0.5, 0)
    spaces.append(validate_data(search, label="y", score="p", validation=held_out).space)
    assert all([str(c) for c in space] == [str(c) for c in whole] for space in spaces)
    alone = make_search_space(search.drop(columns=["y", "p"]), warn=False)
    assert [str(c) for c in alone] != [str(c) for c in whole]


def test_categorical_columns_of_both_splits_join_into_one_space():
    frame = FRAME.assign(region=FRAME["region"].astype("category"))
    search, held_out = frame.iloc[:400], frame.iloc[400:].copy()
    held_out["region"] = held_out["region"].cat.reorder_categories(held_out["region"].cat.categories[::-1])
    joined = validate_data(search, label="y", score="p", validation=held_out).space
    assert [str(c) for c in joined] == [str(c) for c in make_search_space(frame.drop(columns=["y", "p"]), warn=False)]


def test_steps_take_the_sorted_splits_and_plain_frames_alike():
    checked = validate_data(FRAME, label="y", score="p")
    qf = subroc_ext.make_quality_function("roc_auc", "y", size_weight=1, balance_weight=1)
    found, counts = _count_calls(steps.search, checked.search, qf, checked.target, selectors=checked.space)
    assert counts == {}  # nothing checked or sorted again
    plain = steps.search(checked.search.data, subroc_ext.make_quality_function(
        "roc_auc", "y", size_weight=1, balance_weight=1), checked.target, selectors=checked.space)  # fmt: skip
    assert plain.subgroups == found.subgroups and plain.qualities == found.qualities
    described, counts = _count_calls(steps.describe, found.subgroups, checked.validation, checked.target)
    assert counts == {}
    pd.testing.assert_frame_equal(
        described, steps.describe(found.subgroups, checked.validation.data, checked.target)
    )


def test_only_real_findings_and_never_the_whole_split():
    everything = subroc_ext.find_subgroups(FRAME, min_quality=-np.inf, **ARGS)
    real = subroc_ext.find_subgroups(FRAME, **ARGS)
    assert (everything["quality"] <= 0).any() and (real["quality"] > 0).all()
    assert list(real["description"]) == [d for d, q in zip(everything["description"], everything["quality"]) if q > 0]
    counts = real.attrs["counts"]
    assert counts["rows"] == len(real) and counts["found"] >= counts["rows"]
    assert counts["significant"] == real["significant"].sum()
    # a user's selector covering every row is no subgroup
    every_row = ps.IntervalSelector("age", -np.inf, np.inf)
    table = subroc_ext.find_subgroups(FRAME, selectors=[every_row, ps.EqualitySelector("region", "east")],
                                      min_quality=-np.inf, depth=1, **{k: v for k, v in ARGS.items() if k != "depth"})  # fmt: skip
    assert list(table["description"]) == ["region=='east'"]


def test_seeded_by_default():
    first, second = (subroc_ext.find_subgroups(FRAME, **ARGS) for _ in range(2))
    pd.testing.assert_frame_equal(first.drop(columns="subgroup"), second.drop(columns="subgroup"))
    other = subroc_ext.find_subgroups(FRAME, random_state=1, **ARGS)
    assert not first["p_value"].equals(other["p_value"]) or len(first) != len(other)


@pytest.mark.parametrize("library", ["pyarrow", "polars"])
def test_pyarrow_and_polars_tables(library):
    module = pytest.importorskip(library)
    expected = subroc_ext.find_subgroups(FRAME, **ARGS)
    table = module.Table.from_pandas(FRAME) if library == "pyarrow" else module.from_pandas(FRAME)
    found = subroc_ext.find_subgroups(table, **ARGS)
    pd.testing.assert_frame_equal(expected.drop(columns="subgroup"), found.drop(columns="subgroup"))


def test_other_input_is_refused_in_one_line():
    with pytest.raises(TypeError, match="data must be a pandas DataFrame .* got list"):
        subroc_ext.find_subgroups([[1, 2]], **ARGS)
    with pytest.raises(ValueError, match="min_quality must be a number"):
        subroc_ext.find_subgroups(FRAME, min_quality=np.nan, **ARGS)
    with pytest.raises(ValueError, match="data has more than one column named 'age'; give each column its own name"):
        subroc_ext.find_subgroups(pd.concat([FRAME, FRAME[["age"]]], axis=1), **ARGS)


@pytest.mark.parametrize("columns, message", [
    (["p", "age", "y", "p"], "data has more than one column named 'p'"),  # the score twice: which one?
    (["region", "Unnamed: 1", "y", "p"], "data has column(s) without a name: ['Unnamed: 1'] ('Unnamed: <position>'"),
    (["region", "", "y", "p"], "data has column(s) without a name: ['']"),
])  # fmt: skip
def test_columns_of_one_name_or_none_are_refused_with_the_names(columns, message):
    frame = FRAME[["region", "age", "y", "p"]].set_axis(columns, axis=1)
    with pytest.raises(ValueError, match=re.escape(message)):
        subroc_ext.find_subgroups(frame, **ARGS)
    with pytest.raises(ValueError, match=re.escape(message.replace("data has", "validation has"))):
        subroc_ext.find_subgroups(FRAME[["region", "age", "y", "p"]], **{**ARGS, "validation": frame})
    if columns[1].startswith("Unnamed"):  # ignored on purpose: searched no more, so accepted
        subroc_ext.find_subgroups(frame, **{**ARGS, "ignore": ["Unnamed: 1"]})


@pytest.mark.parametrize("call, message", [
    (lambda: subroc_ext.find_subgroups(FRAME, **{**ARGS, "score": "y"}), "label and score are the same column 'y'"),
    (lambda: subroc_ext.find_regressions(FRAME, label="y", score="p", baseline="y"),
     "label and baseline are the same column 'y'"),
    (lambda: subroc_ext.find_drift(FRAME, FRAME, label="p", score="p"), "label and score are the same column 'p'"),
])  # fmt: skip
def test_the_label_is_never_a_score(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_use_dataset_refuses_another_label():
    checked = validate_data(FRAME, label="y", score="p")
    with pytest.raises(ValueError, match="positive label"):
        subroc_ext.ROCAUCQF("y", positive_label_value=0).use_dataset(checked.search)


def _text_frame(n=400, seed=1):
    rng = np.random.default_rng(seed)
    region = pd.Series(rng.choice(["north", "east", "south"], n), dtype="str")
    region[::17] = None
    mixed = pd.Series([("a", 1, 2.5)[i] for i in rng.integers(0, 3, n)], dtype=object)  # not all text
    return pd.DataFrame({
        "region": region,
        "plan": pd.Series(rng.choice(["basic", "pro"], n), dtype=object),
        "id": [f"c{i}" for i in range(n)],
        "day": rng.choice(["2021-06-01", "2021-06-02", "2021-07-15"], n),
        "mixed": mixed,
        "none": pd.Series([None] * n, dtype=object),
        "age": rng.integers(18, 90, n),
        "y": rng.integers(0, 2, n),
        "p": rng.random(n),
    })  # fmt: skip


def test_text_of_repeated_values_is_kept_as_categoricals():
    frame = _text_frame()
    compact = validated.compact_text(frame)
    assert {name for name in frame if isinstance(compact[name].dtype, pd.CategoricalDtype)} == {"region", "plan"}
    for name in frame:
        pd.testing.assert_series_equal(compact[name].astype(object), frame[name].astype(object))
    assert compact["region"].isna().sum() == frame["region"].isna().sum() == 24
    assert compact["region"].memory_usage(deep=True) < frame["region"].memory_usage(deep=True) / 2
    assert np.shares_memory(compact["age"].to_numpy(), frame["age"].to_numpy())  # not copied
    assert frame["region"].dtype == "str"  # the caller's frame is left alone
    plain = frame[["id", "day", "age", "y", "p"]]
    assert validated.compact_text(plain) is plain


def test_the_splits_hold_compact_text_and_search_it_alike():
    frame = _text_frame()
    search, held_out = validated.split_validation(frame, 0.5, 0)
    assert isinstance(search["region"].dtype, pd.CategoricalDtype)
    assert isinstance(held_out["plan"].dtype, pd.CategoricalDtype)
    positions = np.sort(np.random.default_rng(0).permutation(len(frame))[:200])
    pd.testing.assert_frame_equal(search.astype(object), frame.iloc[positions].astype(object))
    plain, compact = (validate_data(data, label="y", score="p", validation=None)
                      for data in (frame.iloc[positions], search))  # fmt: skip
    assert [str(c) for c in compact.space] == [str(c) for c in plain.space]
    assert compact.space.left_out == plain.space.left_out
    assert {"region=='east'", "plan=='pro'", "region is missing"} <= {str(c) for c in compact.space}
    for condition in compact.space:
        np.testing.assert_array_equal(compact.search.selector_mask(condition), plain.search.selector_mask(condition))


def test_a_dataset_keeps_only_the_columns_last_converted(monkeypatch):
    rng = np.random.default_rng(2)
    n = 500
    frame = pd.DataFrame({f"x{i}": rng.integers(0, 50, n) for i in range(5)})
    frame["g"] = pd.Series(rng.choice(["a", "b", "c"], n), dtype="str")
    frame["y"], frame["p"] = rng.integers(0, 2, n), rng.random(n)
    checked = validate_data(frame, label="y", score="p", validation=None)
    data = checked.search
    covers = {condition: condition.covers(frame)[data.order] for condition in checked.space}
    conversions = Counter()
    for kind in {type(c) for c in checked.space}:
        original = kind.column_values

        def counted(self, column, original=original):
            conversions[self.attribute_name] += 1
            return original(self, column)

        monkeypatch.setattr(kind, "column_values", counted)
    for condition in checked.space:  # column by column, as the search space lists them
        np.testing.assert_array_equal(data.selector_mask(condition), covers[condition])
    assert conversions == {name: 1 for name in ["x0", "x1", "x2", "x3", "x4", "g"]}
    last, first = checked.space[-1], checked.space[0]
    assert first.attribute_name == "g" and last.attribute_name == "x4"
    for condition in (last, first, first):
        np.testing.assert_array_equal(data.selector_mask(condition), covers[condition])
    assert dataset.COLUMNS_KEPT == 2
    # the last column is kept; the first was let go (converted again, then kept)
    assert conversions["x4"] == 1 and conversions["g"] == 2
    # a search keeps each selector's words in the dataset: the next converts no column again
    conversions.clear()
    qf = subroc_ext.make_quality_function("roc_auc", "y", positive_label=1)
    first = steps.search(data, qf, checked.target, selectors=checked.space, depth=2, result_set_size=5)
    assert max(conversions.values()) == 1
    conversions.clear()
    second = steps.search(data, qf, checked.target, selectors=checked.space, depth=2, result_set_size=5)
    assert conversions == {}
    assert [str(s) for s in first.subgroups] == [str(s) for s in second.subgroups] and first.subgroups
    assert first.qualities == second.qualities


def test_columns_of_nested_values_are_left_out_with_a_note():
    """Lists, arrays, dicts and sets (Parquet's list and struct columns are read as
    arrays and dicts) had stopped every run with "unhashable type: 'numpy.ndarray'",
    naming no column."""
    frame = scored_frame(0, n=400)
    frame["tags"] = [np.array([i % 3, i % 5]) for i in range(len(frame))]
    frame["meta"] = [{"a": i % 4} for i in range(len(frame))]
    frame["sets"] = [{i % 2} for i in range(len(frame))]
    frame["lists"] = [[i % 2] if i % 3 else "x" for i in range(len(frame))]
    with pytest.warns(subroc_ext.SearchSpaceWarning) as caught:
        checked = validate_data(frame, label="y", score="p")
    assert [str(w.message) for w in caught] == [
        "columns left out of the search space: 'tags' (nested values (ndarray): flatten them into columns of single "
        "values to search them); 'meta' (nested values (dict): ...); 'sets' (nested values (set): ...); 'lists' "
        "(nested values (list, str): ...)".replace(": ...", ": flatten them into columns of single values to search them")
    ]
    assert set(checked.space.used) == {"region", "age", "plan"}


def test_complex_scores_are_refused():
    with pytest.raises(ValueError, match=r"score column 'p' must be real numbers, got dtype complex128"):
        subroc_ext.find_subgroups(FRAME.assign(p=FRAME["p"] + 1j), **ARGS)


def test_ignore_as_one_string_is_one_column_not_its_letters():
    frame = FRAME.assign(ab=np.arange(len(FRAME)) % 2)
    with pytest.raises(KeyError, match=r"column\(s\) \['pl'\] not found"):
        validate_data(frame, label="y", score="p", ignore="pl")  # not 'p' and 'l'
    space = validate_data(frame, label="y", score="p", ignore="ab").space
    assert {s.attribute_name for s in space} == {"region", "age", "plan"}


def test_a_validation_column_of_another_kind_is_refused():
    with pytest.raises(ValueError, match=r"^column 'age' holds numbers \(int64\) in the search data but not in the "
                                         r"validation data \(str\)"):  # fmt: skip
        validate_data(FRAME.iloc[:400], label="y", score="p", validation=FRAME.iloc[400:].assign(age="text"))


def test_thousands_of_left_out_columns_are_counted_not_listed():
    wide = pd.DataFrame(0, index=FRAME.index, columns=[f"c{i}" for i in range(2000)])
    with pytest.warns(subroc_ext.SearchSpaceWarning) as caught:
        space = validate_data(pd.concat([FRAME, wide], axis=1), label="y", score="p").space
    message = str(caught[0].message)
    assert len(space.left_out) == 2000 and len(message) < 400
    assert message == ("columns left out of the search space: 'c0' (constant); 'c1' (constant); 'c2' (constant); "
                       "'c3' (constant); 'c4' (constant); 'c5' (constant); 'c6' (constant); 'c7' (constant); "
                       "'c8' (constant); 'c9' (constant); and 1,990 more (1,990 constant)")


def test_nullable_float_attributes_are_searched():
    frame = FRAME.assign(age=FRAME["age"].astype("Float64").mask(FRAME.index % 50 == 0))
    table = subroc_ext.find_subgroups(frame, **{**ARGS, "depth": 1})
    assert table["description"].str.contains("age").any()


def test_a_sorted_dataset_builds_its_whole_cover_once_and_pickles_without_it():
    """The whole cover is built once (the rules' tests asked for it 150 times at 2 M rows), and a pickled
    dataset (a cluster's workers) carries none of its caches but builds it again."""
    import pickle

    from subroc_ext.inputs.sorted_data import SortedDataset

    frame = pd.DataFrame({"y": [1, 0, 1, 0, 0], "p": [0.9, 0.2, 0.4, 0.4, 0.1]})
    dataset = SortedDataset(frame, "y", "p", 1)
    whole = dataset.cover()
    assert dataset.cover() is whole and (whole.positives, whole.negatives) == (2, 3)
    state = dataset.__getstate__()
    assert "_whole" not in state
    again = pickle.loads(pickle.dumps(dataset)).cover()
    assert again is not whole and again.rows.tolist() == whole.rows.tolist()
