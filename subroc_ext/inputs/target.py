"""The target of SubROC searches: which columns hold the labels and the scores.

pysubgroup 0.9.0 ships ``SoftClassifierTarget``; pysubgroup 0.8 (the newest
release that installs with NumPy 2, and so the one pip picks on Python 3.13
and newer) has none. :class:`SoftClassifierTarget` works with both. The
quality functions read only ``target.label_column`` and
``target.prediction_column``, so pysubgroup's own class is accepted as well.
"""

__all__ = ["SoftClassifierTarget"]


class SoftClassifierTarget:
    """Label and score columns of a binary soft classifier, as a pysubgroup target.

    A drop-in for ``pysubgroup.SoftClassifierTarget`` (pysubgroup 0.9.0) that
    also works with pysubgroup 0.8.

    Parameters
    ----------
    label_column : str, default='label'
        Column of the true labels.
    prediction_column : str, default='prediction'
        Column of the model's scores, higher meaning more likely positive.

    Examples
    --------
    >>> import subroc_ext
    >>> subroc_ext.SoftClassifierTarget("label", "score")
    SoftClassifierTarget(label_column='label', prediction_column='score')
    """

    #: The quality functions' statistics carry everything; the target adds none.
    statistic_types = ()

    def __init__(self, label_column="label", prediction_column="prediction"):
        self.label_column = label_column
        self.prediction_column = prediction_column

    def get_attributes(self):
        """The label and score column names (pysubgroup excludes them from selectors)."""
        return (self.label_column, self.prediction_column)

    def get_target_columns(self, data):
        """The label and score columns of ``data``."""
        return data.loc[:, [self.label_column, self.prediction_column]]

    def calculate_statistics(self, subgroup, data, statistics=None):
        """Return ``statistics`` unchanged (pysubgroup's ``to_dataframe`` calls this)."""
        return {} if statistics is None else statistics

    def __repr__(self):
        return (
            f"{type(self).__name__}(label_column={self.label_column!r}, "
            f"prediction_column={self.prediction_column!r})"
        )
