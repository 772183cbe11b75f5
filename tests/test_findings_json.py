"""Tests of :mod:`subroc_ext.reporting.findings_json` and :mod:`subroc_ext.inputs.findings_file`:
``findings.json`` valid against its schema, strict JSON, and read back to the same findings."""

import json
import os
import threading

import numpy as np
import pandas as pd
import pytest

import subroc_ext
from subroc_ext.inputs.findings_file import SCHEMA_VERSION, findings_schema, findings_table, read_findings
from subroc_ext.reporting.findings import failure_rows, headline
from subroc_ext.reporting.findings_json import findings_document, findings_json, write_findings

jsonschema = pytest.importorskip("jsonschema")


def validate(document):
    """Raise unless ``document`` is valid against the package's schema (checked as a schema first)."""
    schema = findings_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(document)


@pytest.fixture(scope="module")
def written(failing_analysis, tmp_path_factory):
    """The audit analysis written to findings.json and read back."""
    path = tmp_path_factory.mktemp("findings") / "findings.json"
    splits = {"search": failing_analysis.search, "validation": failing_analysis.validation}
    write_findings(failing_analysis.table, path, splits=splits)
    return json.loads(path.read_text(encoding="utf-8"))


def test_the_written_file_is_valid_against_the_schema(written):
    validate(written)
    assert written["schema_version"] == SCHEMA_VERSION == 1
    assert written["tool"] == {"name": "subroc-ext", "version": subroc_ext.__version__}
    assert written["kind"] == "single"


def test_the_schema_rejects_what_it_should():
    document = {"schema_version": 1, "tool": {"name": "subroc-ext", "version": "0"}, "kind": "single",
                "settings": {"measure": "roc_auc", "mode": "worse", "alpha": 0.05, "method": "fdr_by",
                             "min_delta": 0.0},
                "data": {"splits": {}, "whole": {}}, "headline": {"summary": "", "text": "", "failures": []},
                "findings": []}  # fmt: skip
    validate(document)
    for broken in ({**document, "schema_version": 2}, {**document, "kind": "other"},
                   {**document, "data": {"splits": {"search": {"rows": -1, "positives": 0}}, "whole": {}}}):  # fmt: skip
        with pytest.raises(jsonschema.ValidationError):
            validate(broken)


def test_settings_and_data_summary(written, failing_analysis):
    settings = written["settings"]
    assert (settings["measure"], settings["mode"], settings["label"], settings["score"]) == ("roc_auc", "worse", "y", "p")
    assert settings["alpha"] == 0.05 and settings["interval_level"] == failing_analysis.table.attrs["interval_level"]
    for name, frame in (("search", failing_analysis.search), ("validation", failing_analysis.validation)):
        assert written["data"]["splits"][name] == {"rows": len(frame), "positives": int((frame["y"] == 1).sum())}
    assert written["data"]["whole"]["roc_auc_validation"] == failing_analysis.table.attrs["dataset_values"][
        "roc_auc_validation"]


def test_reading_back_reproduces_descriptions_effects_and_verdicts(written, failing_analysis):
    table = failing_analysis.table
    back = findings_table(read_findings(written))
    assert back["description"].tolist() == table["description"].tolist()
    for column in ("delta", "delta_ci_low", "delta_ci_high"):
        np.testing.assert_array_equal(back[column].to_numpy(), table[column].to_numpy())  # to the last bit
    assert back["verdict"].tolist() == table["verdict"].tolist()
    assert back["significant"].tolist() == table["significant"].tolist()
    # the subgroups rebuilt from their conditions cover the same rows
    for rebuilt, original in zip(back["subgroup"], table["subgroup"]):
        data = failing_analysis.validation
        np.testing.assert_array_equal(rebuilt.covers(data), original.covers(data))


def test_the_failures_are_the_headlines(written, failing_analysis):
    table = failing_analysis.table
    failures = failure_rows(table.reset_index(drop=True))
    assert written["headline"]["failures"] == sorted(failures.index + 1)
    assert [f["failure"] for f in written["findings"]] == [rank in set(failures.index + 1) for rank in
                                                            range(1, len(table) + 1)]  # fmt: skip
    assert written["headline"]["text"] == headline(table).text()


def test_every_column_is_kept_and_nan_is_null(written, failing_analysis):
    table = failing_analysis.table
    first = written["findings"][0]
    kept = {*first["columns"], *first["flags"], "description", "delta", "delta_ci_low", "delta_ci_high",
            "p_value", "p_value_corrected", "p_value_exact", "significant", "verdict", "verdict_note", "subgroup"}  # fmt: skip
    assert kept == set(table.columns)
    assert first["columns"]["size_validation"] == table["size_validation"].iloc[0]
    assert first["flags"]["complement_of"] is None and table["complement_of"].isna().iloc[0]


def test_the_text_is_strict_json_without_nan():
    table = pd.DataFrame({"subgroup": [subroc_ext.inputs.selectors.ValueCondition("a", "x")], "description": ["a=='x'"],
                          "delta": [np.nan], "delta_ci_low": [np.nan], "delta_ci_high": [np.nan],
                          "significant": [False], "verdict": ["untestable"]})  # fmt: skip
    table.attrs.update(measure="roc_auc", mode="worse", alpha=0.05, method="fdr_by", min_delta=0.0,
                       interval_level=np.nan, dataset_values={"roc_auc_validation": 0.8})  # fmt: skip
    text = findings_json(table)
    assert "NaN" not in text
    document = json.loads(text)
    assert document["findings"][0]["effect"] == {"delta": None, "ci_low": None, "ci_high": None}
    assert document["settings"]["interval_level"] is None
    validate(document)


def test_a_comparison_is_written_as_such():
    rng = np.random.default_rng(3)
    n = 1200
    data = pd.DataFrame({"region": rng.choice(["east", "west", "north"], n), "y": rng.integers(0, 2, n)})
    data["old"] = 0.5 * data["y"] + 0.5 * rng.random(n)
    data["new"] = np.where(data["region"] == "east", rng.random(n), data["old"])
    table = subroc_ext.find_regressions(data, label="y", score="new", baseline="old", depth=1, n_samples=100,
                                        progress=False)  # fmt: skip
    document = findings_document(table)
    validate(document)
    assert document["kind"] == "paired" and document["settings"]["baseline"] == "old"
    assert document["data"]["splits"]["validation"] == {"rows": n // 2, "positives": None}


def test_reading_refuses_other_files(tmp_path, written):
    path = tmp_path / "findings.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match=f"findings file '{path}' is not JSON"):
        read_findings(path)
    path.write_text(json.dumps({"schema_version": 1}), encoding="utf-8")
    with pytest.raises(ValueError, match="has no tool, kind, settings, data, headline, findings"):
        read_findings(path)
    with pytest.raises(ValueError, match="has schema_version 99; this release reads version 1"):
        read_findings({**written, "schema_version": 99})


def _edited(document, edit):
    """A deep copy of ``document`` with ``edit(copy)`` applied."""
    copy = json.loads(json.dumps(document))
    edit(copy)
    return copy


def _condition(document, **changes):
    document["findings"][0]["conditions"] = [{"column": "age", "operator": ">=", "value": 70.0, "value_text": "70",
                                              "domain": "number", "text": "age >= 70", **changes}]  # fmt: skip


#: Edited findings (issue 59): each refused by the package's schema check and by jsonschema's (which
#: takes NaN for a number: JSON has none), the message naming the key and what is wrong.
EDITS = [
    (lambda d: d["settings"].update(interval_level=7), r"key 'settings.interval_level': 7 is not in \(0, 1\)"),
    (lambda d: d["settings"].update(interval_level=-1), r"key 'settings.interval_level': -1 is not in \(0, 1\)"),
    (lambda d: d["settings"].update(alpha=0), r"key 'settings.alpha': 0 is not in \(0, 1\)"),
    (lambda d: d.update(schema_version=True), "key 'schema_version': expected 1, got true"),
    (lambda d: d["settings"].update(min_delta=float("nan")), "key 'settings.min_delta': expected a number, got NaN"),
    (lambda d: d["settings"].pop("measure"), "key 'settings.measure' is missing"),
    (lambda d: d.update(settings=None), "key 'settings': expected an object, got null"),
    (lambda d: d.update(findings=["x"]), "key 'findings\\[0\\]': expected an object, got 'x'"),
    (lambda d: d["findings"][0].update(conditions=None), r"key 'findings\[0\].conditions': expected an array, got null"),
    (lambda d: d["findings"][0].update(extra=1), r"key 'findings\[0\].extra' is not a key of findings\[0\]"),
    (lambda d: d["settings"].update(label={"a": 1}), "key 'settings.label': expected text or an integer or null"),
    (lambda d: _condition(d, domain="datetime"), r"key 'findings\[0\].conditions\[0\].value': 70.0 is not a datetime"),
    (lambda d: _condition(d, domain="timedelta"), r"key 'findings\[0\].conditions\[0\].value': 70.0 is not a duration"),
    (lambda d: _condition(d, domain="money"), r"key 'findings\[0\].conditions\[0\].domain': expected one of 'number'"),
    (lambda d: _condition(d, value=[1, 2]), r"key 'findings\[0\].conditions\[0\].value': an array of 2 item\(s\) is not"),
    (lambda d: _condition(d, value={"number": "nan"}),
     r"key 'findings\[0\].conditions\[0\].value.number': expected one of 'inf', '-inf', got 'nan'"),
]  # fmt: skip


@pytest.mark.parametrize("edit, message", EDITS)
def test_an_edited_document_is_refused_naming_the_key(written, edit, message):
    broken = _edited(written, edit)
    with pytest.raises(ValueError, match=f"^findings document: {message}"):
        read_findings(broken)
    if "NaN" not in message:
        with pytest.raises(jsonschema.ValidationError):  # the same schema, read by the reference
            validate(broken)


def test_a_description_must_be_what_its_conditions_say(written):
    # issue 59: a row named region=='east' with the numbers of age >= 70
    lying = _edited(written, _condition)
    validate(lying)  # a valid document by the schema alone
    with pytest.raises(ValueError, match=r"key 'findings\[0\].description': \"region=='east'\" is not what its "
                                         r"conditions say \('age >= 70'\); was the file edited\?"):  # fmt: skip
        read_findings(lying)
    printed = _edited(written, lambda d: _condition(d, value_text="18", text="age >= 18"))
    with pytest.raises(ValueError, match=r"conditions\[0\]': value_text '18' is not how the bound 70.0 is printed"):
        read_findings(printed)
    relabelled = _edited(written, lambda d: d["findings"][0]["conditions"][0].update(text="region=='west'"))
    with pytest.raises(ValueError, match=r"conditions\[0\].text': \"region=='west'\" is not the condition's text"):
        read_findings(relabelled)


def test_a_file_is_read_once_and_what_is_no_file_is_named(tmp_path, written):
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_text(json.dumps(written), encoding="utf-8"))
    writer.start()
    document = read_findings(fifo)  # a pipe holds the text once: one read
    writer.join()
    assert document.where == f"findings file '{fifo}'" and document["findings"] == written["findings"]
    assert read_findings(document) is document  # checked once
    loop = tmp_path / "loop.json"
    loop.symlink_to(loop)
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    for path, message in ((tmp_path, "is a directory, not a findings.json"),
                          (loop, "Too many levels of symbolic links"),
                          (deep, "nests deeper than 32 levels")):  # fmt: skip
        with pytest.raises(ValueError, match=message) as refused:
            read_findings(path)
        assert str(path) in str(refused.value)
    with pytest.raises(FileNotFoundError, match=f"findings file '{tmp_path / 'nope.json'}' not found"):
        read_findings(tmp_path / "nope.json")
