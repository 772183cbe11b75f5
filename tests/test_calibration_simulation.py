"""Seeded simulations of the calibration search (extended; the full sizes are slow).

* Scores that are the true probabilities (:func:`synthetic.risk_frame`):
  at most about ``alpha`` of the datasets have any significant row (measured:
  2 of 200 datasets of 2,000 rows, 66 s of CPU; mode 'both', BY at 0.05).
* The promised risk halved in a random 8 % of the rows (``m == 'yes'``):
  found among the top 5 and significant in at least 90 % of the datasets
  (measured: 100 of 100 datasets of 4,000 rows, 68 s of CPU).
* The significant rows' intervals of ``delta`` hold the subgroups' true
  differences (from the true probabilities) but for at most about ``alpha``
  of them: the false coverage rate of BY-selected FCR intervals
  (``benchmarks/bench_calibration.py``, which records the full sizes).
"""

from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from synthetic import halved_risk_frame, risk_frame
from test_benchmarks import load

BENCH = load(Path(__file__).resolve().parents[1] / "benchmarks" / "bench_calibration.py")
ALPHA = BENCH.ALPHA
search = BENCH.search  # mode 'both', BY at ALPHA


@pytest.mark.extended
@pytest.mark.parametrize("n_datasets, most", [
    pytest.param(40, 5, id="40"),
    pytest.param(200, 17, id="200", marks=pytest.mark.slow),
])  # fmt: skip
def test_calibrated_scores_give_a_significant_row_in_at_most_alpha_of_datasets(n_datasets, most):
    """``most``: the 0.99 quantile of Binomial(n, alpha) (5 of 40, 17 of 200)."""
    hits = [bool(search(risk_frame(seed, 2000), seed)["significant"].any()) for seed in range(n_datasets)]
    assert sum(hits) <= most, f"{sum(hits)} of {n_datasets} datasets with a significant row"


@pytest.mark.extended
@pytest.mark.parametrize("n_datasets", [pytest.param(20, id="20"), pytest.param(100, id="100", marks=pytest.mark.slow)])
def test_a_halved_risk_is_found_in_the_top_5_and_significant(n_datasets):
    found = 0
    for seed in range(n_datasets):
        data, _ = halved_risk_frame(1000 + seed, 4000)
        table = search(data, seed)
        top = table.sort_values("quality", ascending=False, kind="stable").head(5)
        planted = top[top["description"] == "m=='yes'"]
        found += bool(len(planted)) and bool(planted["significant"].iloc[0])
    assert found >= np.ceil(0.9 * n_datasets), f"found in {found} of {n_datasets}"


@pytest.mark.extended
def test_the_significant_rows_intervals_miss_the_true_difference_in_at_most_alpha_of_them():
    """10 datasets with the risk halved in 8 % of rows: of the significant
    rows (about 10 a dataset), at most the 0.99 quantile of Binomial(R, alpha)
    have an interval that misses the true ``|g(S) - g(D)|`` (measured: 2 of 97, FCR 0.018)."""
    result = BENCH.summary(BENCH.simulate("planted", 10, 4000))
    assert result["found"] == 1.0
    most = stats.binom.ppf(0.99, result["significant_rows"], ALPHA)
    assert result["significant_rows"] >= 50 and result["missed_rows"] <= most, result
    assert result["fcr"] <= ALPHA, result
