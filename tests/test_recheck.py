"""Tests of :mod:`subroc_ext.workflow.recheck`: findings measured again on new data."""

import json
import os
import threading
import warnings

import numpy as np
import pandas as pd
import pytest
from synthetic import scored_frame

import subroc_ext
from subroc_ext.reporting.findings_json import findings_document, write_findings


@pytest.fixture(scope="module")
def document(failing_analysis):
    # through JSON text, as a pipeline keeps it
    return json.loads(json.dumps(findings_document(failing_analysis.table)))


def test_on_the_tested_data_the_effects_are_the_findings_own(failing_analysis, document):
    table = failing_analysis.table
    again = subroc_ext.recheck(document, failing_analysis.validation)
    assert again["description"].tolist() == table["description"].tolist()
    for column in ("delta", "delta_ci_low", "delta_ci_high"):
        np.testing.assert_array_equal(again[column].to_numpy(), table[column].to_numpy())  # exactly
    np.testing.assert_array_equal(again["roc_auc"].to_numpy(), table["roc_auc_validation"].to_numpy())
    np.testing.assert_array_equal(again["size"].to_numpy(), table["size_validation"].to_numpy())
    assert (again["change"] == 0).all() and set(again["trend"]) == {"unchanged"}
    assert again["failure_before"].tolist() == table["significant"].tolist()
    assert again.attrs["whole"] == table.attrs["dataset_values"]["roc_auc_validation"]


def test_a_mended_failure_gets_better_and_a_worse_one_worse(failing_analysis, document):
    assert document["headline"]["failures"] == [1]  # region=='east', the planted failure
    new = scored_frame(2, n=3000)
    east = (new["region"] == "east").to_numpy()
    mended = new.copy()
    mended.loc[east, "p"] = 0.6 * mended.loc[east, "y"] + 0.4 * np.random.default_rng(0).random(east.sum())
    again = subroc_ext.recheck(document, mended).set_index("description")
    assert again.loc["region=='east'", "trend"] == "better" and not again.loc["region=='east'", "credible"]
    assert again.loc["region=='east'", "delta"] < 0.05 < again.loc["region=='east'", "delta_before"]
    worse = new.copy()
    worse.loc[east, "p"] = 1 - worse.loc[east, "y"] * 0.5 - 0.5 * np.random.default_rng(1).random(east.sum())
    again = subroc_ext.recheck(document, worse).set_index("description")
    assert again.loc["region=='east'", "trend"] == "worse" and again.loc["region=='east'", "credible"]
    assert again.loc["region=='east'", "delta_ci_low"] > again.loc["region=='east'", "delta_before"]


def test_columns_and_positive_label_can_be_renamed(failing_analysis, tmp_path):
    path = tmp_path / "findings.json"
    write_findings(failing_analysis.table, path)
    renamed = failing_analysis.validation.rename(columns={"y": "label", "p": "score"})
    renamed["label"] = np.where(renamed["label"] == 1, "yes", "no")
    again = subroc_ext.recheck(path, renamed, label="label", score="score", positive_label="yes")
    same = subroc_ext.recheck(path, failing_analysis.validation)
    np.testing.assert_array_equal(again["delta"].to_numpy(), same["delta"].to_numpy())


def test_what_cannot_be_rechecked_is_refused_by_name(failing_analysis, document):
    with pytest.raises(KeyError, match=r"column\(s\) \['region'\] not found"):
        subroc_ext.recheck(document, failing_analysis.validation.drop(columns="region"))
    with pytest.raises(ValueError, match="recheck measures one model's findings .* these compare two models"):
        subroc_ext.recheck({**document, "kind": "paired"}, failing_analysis.validation)
    case_mix = {**document, "settings": {**document["settings"], "case_mix": True}}
    with pytest.raises(ValueError, match="does not measure case-mix findings"):
        subroc_ext.recheck(case_mix, failing_analysis.validation)


def test_the_command_prints_the_same_numbers(failing_analysis, tmp_path, capsys):
    from subroc_ext.cli import main

    write_findings(failing_analysis.table, tmp_path / "findings.json")
    failing_analysis.validation.to_csv(tmp_path / "june.csv", index=False)
    assert main(["recheck", str(tmp_path / "findings.json"), str(tmp_path / "june.csv"), "--format", "json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    expected = subroc_ext.recheck(tmp_path / "findings.json", pd.read_csv(tmp_path / "june.csv"))
    assert [row["delta"] for row in printed] == expected["delta"].tolist()
    assert main(["recheck", str(tmp_path / "findings.json"), str(tmp_path / "june.csv")]) == 0
    assert "1  region=='east'" in capsys.readouterr().out
    assert main(["recheck", str(tmp_path / "findings.json"), str(tmp_path / "june.csv"), "--score", "q"]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1].startswith("subroc-ext: error: column(s) ['q'] not found")


@pytest.mark.parametrize("change, message", [
    (lambda d: d.assign(region=d["region"].map({"east": 1, "west": 2, "north": 3}).fillna(4).astype(int)),
     r"column 'region' holds numbers \(int64\) in the data, but the findings' condition region=='east' compares "
     "it with text"),
    (lambda d: d.assign(region=np.nan), r"column 'region' is missing in every row of the data; the findings' "
                                        r"conditions on it \(region=='east'"),
])  # fmt: skip
def test_a_column_whose_type_changed_is_named(failing_analysis, document, change, message):
    # issue 59: was every row of size 0 and 'undefined', silently
    with pytest.raises(ValueError, match=message):
        subroc_ext.recheck(document, change(failing_analysis.validation.copy()))


def test_a_range_on_a_column_that_became_text_is_named(failing_analysis, document):
    ranged = json.loads(json.dumps(document))
    finding = ranged["findings"][0]
    finding["conditions"] = [{"column": "x", "operator": ">=", "value": 0.5, "value_text": "0.5", "domain": "number",
                              "text": "x >= 0.5"}]  # fmt: skip
    finding["description"] = "x >= 0.5"
    data = failing_analysis.validation.assign(x=[f"{i % 40}y" for i in range(len(failing_analysis.validation))])
    with pytest.raises(ValueError, match=r"column 'x' holds text \(.*\) in the data, but the findings' condition "
                                         "x >= 0.5 compares it with numbers"):  # fmt: skip
        subroc_ext.recheck(ranged, data)  # was "could not convert string to float: '20y'"


def test_settings_recheck_needs_are_named(failing_analysis, document):
    unknown = {**document, "settings": {**document["settings"], "measure": "gini"}}
    with pytest.raises(ValueError, match="key 'settings.measure': 'gini' is not a measure recheck knows"):
        subroc_ext.recheck(unknown, failing_analysis.validation)
    unlabelled = {**document, "settings": {k: v for k, v in document["settings"].items() if k != "label"}}
    with pytest.raises(ValueError, match=r"key 'settings.label' is missing; name the label column \(--label, label=\)"):
        subroc_ext.recheck(unlabelled, failing_analysis.validation)  # was KeyError: 'label'
    assert len(subroc_ext.recheck(unlabelled, failing_analysis.validation, label="y")) == len(document["findings"])


def test_the_command_reads_a_pipe_once_and_refuses_a_lie_in_one_line(failing_analysis, document, tmp_path, capsys):
    from subroc_ext.cli import main

    failing_analysis.validation.to_csv(tmp_path / "june.csv", index=False)
    fifo = tmp_path / "findings.json"
    os.mkfifo(fifo)  # as recheck <(cat findings.json) june.csv: was "is not JSON", read twice
    writer = threading.Thread(target=lambda: fifo.write_text(json.dumps(document), encoding="utf-8"))
    writer.start()
    assert main(["recheck", str(fifo), str(tmp_path / "june.csv"), "--positive-label", "1"]) == 0
    writer.join()
    assert "1  region=='east'" in capsys.readouterr().out
    lying = json.loads(json.dumps(document))
    lying["findings"][0]["conditions"] = [{"column": "x", "operator": ">=", "value": 70.0, "value_text": "70",
                                           "domain": "number", "text": "x >= 70"}]  # fmt: skip
    (tmp_path / "lying.json").write_text(json.dumps(lying), encoding="utf-8")
    assert main(["recheck", str(tmp_path / "lying.json"), str(tmp_path / "june.csv")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"subroc-ext: error: findings file '{tmp_path / 'lying.json'}': key 'findings[0].description': "
                   "\"region=='east'\" is not what its conditions say ('x >= 70'); was the file edited?"]  # fmt: skip


def test_simultaneous_intervals_without_a_level_and_three_rows(failing_analysis, document):
    # issue 59: was "'>=' not supported between instances of 'NoneType' and 'int'", and a RuntimeWarning line
    settings = {**document["settings"], "intervals": "simultaneous", "interval_level": None}
    again = subroc_ext.recheck({**document, "settings": settings}, failing_analysis.validation)
    assert (again["delta_ci_low"] < again["delta"]).all()
    three = failing_analysis.validation.iloc[:3]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tiny = subroc_ext.recheck(document, three)
    assert len(tiny) == len(document["findings"]) and set(tiny["trend"]) <= {"undefined", "worse", "better"}
