"""The whole data's calibration in one sentence, its direction in words.

:func:`calibration_sentence` words the record of
:func:`~subroc_ext.inference.whole_calibration.whole_calibration` (a table's
``attrs['whole_calibration']``): the console's and the report's line before
the headline, and ``findings.json``'s ``data.calibration.text``::

    Calibration on the whole data (4,870 rows): the model overestimates the
    risk everywhere: promised 22%, observed 8% [7, 9]; calibration slope 1.01
    [0.85, 1.17]; Cox's test p 3e-130, Spiegelhalter's p 0.41.
"""

import numpy as np

__all__ = ["CALIBRATION_PREFIX", "calibration_sentence"]

#: How the sentence begins.
CALIBRATION_PREFIX = "Calibration on the whole data"


def _percents(values, width):
    """The values as percents, whole points unless ``width`` (an interval's) is under 1 point."""
    digits = 0 if width >= 0.01 else 1
    return [f"{100 * value:.{digits}f}" for value in values]


def _p(value):
    """``'p 0.041'``; ``'p < 1e-300'`` where it underflows."""
    return f"p {value:.2g}" if value >= 1e-300 else "p < 1e-300"


def _slope(record):
    if record["slope"] is None:
        return "no calibration slope (one class or one score only)"
    return f"calibration slope {record['slope']:.2f} [{record['slope_low']:.2f}, {record['slope_high']:.2f}]"


#: The spread's words: what a slope below (above) 1 means.
_SPREAD = {
    "too extreme": "its risks are too extreme ({}: high risks overestimated, low ones underestimated)",
    "too timid": "its risks are too timid ({}: high risks underestimated, low ones overestimated)",
}


def calibration_sentence(record, fixed=""):
    """The whole data's calibration in one sentence.

    Parameters
    ----------
    record : dict
        :meth:`~subroc_ext.inference.whole_calibration.WholeCalibration.record`.
    fixed : str, default=''
        What was done about it, appended (``'a monotone map fitted on the
        search split corrects it before the subgroups are searched'``).

    Returns
    -------
    str

    Examples
    --------
    >>> record = {"rows": 4870, "promised": 0.22, "observed": 0.0805, "observed_low": 0.073,
    ...           "observed_high": 0.089, "slope": 1.01, "slope_low": 0.85, "slope_high": 1.17,
    ...           "p_value": 3e-130, "spiegelhalter_p_value": 0.41, "calibrated": False,
    ...           "in_the_large": "over", "spread": ""}
    >>> calibration_sentence(record)
    "Calibration on the whole data (4,870 rows): the model overestimates the risk everywhere: promised 22%, observed 8% [7, 9]; calibration slope 1.01 [0.85, 1.17]; Cox's test p 3e-130, Spiegelhalter's p 0.41."
    >>> calibration_sentence({**record, "promised": 0.081, "p_value": 0.4, "calibrated": True, "in_the_large": ""})
    "Calibration on the whole data (4,870 rows): not shown miscalibrated: promised 8%, observed 8% [7, 9]; calibration slope 1.01 [0.85, 1.17]; Cox's test p 0.4, Spiegelhalter's p 0.41."
    """
    low, high = record["observed_low"], record["observed_high"]
    promised, observed, low, high = _percents([record["promised"], record["observed"], low, high], high - low)
    rates = f"promised {promised}%, observed {observed}% [{low}, {high}]"
    slope = _slope(record)
    large, spread = record["in_the_large"], record["spread"]
    if record["calibrated"]:
        verdict = f"not shown miscalibrated: {rates}; {slope}"
    elif large and not spread:
        verdict = f"the model {large}estimates the risk everywhere: {rates}; {slope}"
    elif large:
        verdict = f"the model {large}estimates the risk on average ({rates}) and {_SPREAD[spread].format(slope)}"
    elif spread:
        verdict = f"{_SPREAD[spread].format(slope)}; on average {rates}"
    else:
        verdict = f"the model is miscalibrated, in no one direction: {rates}; {slope}"
    cox = record["p_value"]
    tests = f"Cox's test {_p(cox)}, " if cox is not None and np.isfinite(cox) else ""
    tests += f"Spiegelhalter's {_p(record['spiegelhalter_p_value'])}"
    return f"{CALIBRATION_PREFIX} ({record['rows']:,} rows): {verdict}; {tests}" + (f"; {fixed}." if fixed else ".")
