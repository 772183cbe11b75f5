"""A calibration search after the global fix: the cross-fitted map, the
splits it replaces, and the pipeline's defaults and answers on planted data."""

import re
import numpy as np
import pandas as pd
import pytest
from scipy.special import expit, logit

import subroc_ext
from subroc_ext.inputs.findings_file import findings_schema
from subroc_ext.inputs.probabilities import cross_fitted_probabilities, fit_probabilities
from subroc_ext.inputs.sorted_data import SortedDataset
from subroc_ext.reporting.findings_json import findings_document
from subroc_ext.workflow.global_fix import fixed_scores, globally_fixed


def distorted(seed, n=3000, *, shift=1.0, pocket=False):
    """True risks driven by ``x``, noise attributes ``g`` and ``h``; the
    scores shift the logit by ``shift`` everywhere (a global distortion);
    ``pocket``: the true odds are twice the scores' where ``g == 'c' AND
    h == 'x'`` (about 1/9 of the rows)."""
    rng = np.random.default_rng([57, seed])
    data = pd.DataFrame({"x": rng.normal(size=n), "g": rng.choice(list("abc"), n), "h": rng.choice(list("xyz"), n)})
    truth_logit = -1.0 + data["x"].to_numpy()
    inside = ((data["g"] == "c") & (data["h"] == "x")).to_numpy()
    data["y"] = (rng.random(n) < expit(truth_logit + np.log(2) * (pocket & inside))).astype(int)
    data["p"] = expit(truth_logit + shift)
    return data


@pytest.mark.parametrize("method", ["isotonic", "sigmoid"])
def test_a_search_row_never_sees_its_own_label(method):
    rng = np.random.default_rng(0)
    scores = rng.random(300)
    y = rng.random(300) < scores
    fixed, fitted = cross_fitted_probabilities(scores, y, method)
    for i in (0, 17, 299):
        flipped = y.copy()
        flipped[i] = ~flipped[i]
        again, _ = cross_fitted_probabilities(scores, flipped, method)
        assert again[i] == fixed[i]
        assert not np.array_equal(again, fixed)  # the other folds' rows do see it
    np.testing.assert_allclose(fitted(scores), fit_probabilities(scores, y, method)(scores)
                               if method == "isotonic" else fitted(scores))  # fmt: skip


def test_the_held_out_rows_get_the_map_of_every_search_row():
    data = distorted(0, 1000)
    search, held = data.iloc[:600], data.iloc[600:]
    fixed_search, fixed_held, record = globally_fixed(SortedDataset(search, "y", "p", 1),
                                                      SortedDataset(held, "y", "p", 1), "isotonic")  # fmt: skip
    expected = fit_probabilities(search["p"].to_numpy(), search["y"].to_numpy() == 1, "isotonic")(held["p"])
    np.testing.assert_allclose(fixed_held.data["p"].to_numpy(), expected)
    assert fixed_search.data.index.equals(search.index) and fixed_held.columns == ("y", "p")
    # the report's knots: exact at the knots, close between them
    np.testing.assert_allclose(fixed_scores(record, held["p"]), expected, atol=0.02)  # sparse tails: a centre between two scores
    assert abs(fixed_search.data["p"].mean() - search["y"].mean()) < 0.01  # the whole gap is gone


def test_a_global_distortion_is_said_once_and_names_no_subgroup():
    table = subroc_ext.find_subgroups(distorted(1), label="y", score="p", measure="calibration_gap",
                                      progress=False, random_state=0)  # fmt: skip
    assert table.attrs["mode"] == "both" and table.attrs["global_fix"]["description"].startswith("an isotonic")
    assert not table["failure"].any()
    text = subroc_ext.headline(table).text()
    assert text.startswith("Calibration on the whole data (3,000 rows): the model overestimates the risk everywhere:")
    assert "; the subgroups are searched after a global fix, an isotonic regression" in text.splitlines()[0]
    assert text.splitlines()[1].startswith("No subgroup where the risk is significantly miscalibrated after a "
                                           "global fix more than the whole data: ")  # fmt: skip
    document = findings_document(table)
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.Draft202012Validator(findings_schema()).validate(document)
    assert document["data"]["calibration"]["in_the_large"] == "over"
    assert document["data"]["calibration"]["text"] == text.splitlines()[0]
    assert document["search"]["global_fix"] == table.attrs["global_fix"]["description"]
    raw = subroc_ext.find_subgroups(distorted(1), label="y", score="p", measure="calibration_gap",
                                    calibrate="none", progress=False, random_state=0)  # fmt: skip
    assert raw.attrs["global_fix"] is None
    assert subroc_ext.headline(raw).calibration == text.splitlines()[0].partition("; the subgroups are")[0] + "."


def test_a_pocket_beyond_the_global_distortion_is_named_and_drawn_after_the_fix(tmp_path):
    data = distorted(2, 4000, pocket=True)
    search, held = data.iloc[:2000], data.iloc[2000:]
    table = subroc_ext.find_subgroups(search, validation=held, label="y", score="p", measure="calibration_gap",
                                      progress=False, random_state=0)  # fmt: skip
    assert list(table.loc[table["failure"], "description"]) == ["g=='c' AND h=='x'"]
    line = subroc_ext.headline(table).text().splitlines()[2]
    assert re.match(r"  #\d+ g=='c' AND h=='x' \(11% of held-out rows\): risk underestimated by ", line), line
    assert "after the global fix, observed " in line
    files = subroc_ext.write_report(table, held, tmp_path, label="y", score="p", measure="calibration_gap")
    html = files.html.read_text()
    assert "The second panel and the findings' are after the global fix (an isotonic regression" in html
    assert '<p class="calibration">Calibration on the whole data (4,000 rows): the model overestimates' in html


@pytest.mark.filterwarnings("ignore::subroc_ext.exceptions.LowPowerWarning")
def test_the_mode_defaults_to_both_for_the_calibration_gap_only():
    data = distorted(3, 600)
    settings = {"label": "y", "score": "p", "depth": 1, "n_samples": 50, "progress": False}
    assert subroc_ext.find_subgroups(data, measure="brier", **settings).attrs["mode"] == "worse"
    assert subroc_ext.find_subgroups(data, **settings).attrs["mode"] == "worse"


@pytest.mark.extended
def test_the_benchmark_prints_one_row_per_setting(capsys):
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_global_fix.py"
    spec = importlib.util.spec_from_file_location("bench_global_fix", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.main(["--datasets", "1", "--rows", "1200", "--settings", "calibrated", "slope 1.6"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| ")]
    assert rows[0].startswith("| setting | whole-data warning | in the right direction |")
    assert rows[1].startswith("| calibrated | ") and rows[2].startswith("| slope 1.6 | 1/1 | 1/1 | ")
