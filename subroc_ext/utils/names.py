"""Names the API and the command line share, importable without NumPy.

``subroc-ext --help`` and ``--version`` build the parser from these alone,
so they start without loading NumPy, pandas or the compiled kernels.
"""

__all__ = ["VERSION", "MODES", "MEASURE_NAMES", "REQUESTED_MEASURE_NAMES", "CALIBRATION_MEASURE_NAMES", "CALIBRATION_MODES", "CALIBRATIONS",
           "INSTALL", "INTERVALS"]

#: The installed version (``subroc_ext.__version__``, ``subroc-ext --version``, findings.json's ``tool``).
VERSION = "0.1.0"

#: The directions a search looks in.
MODES = ("worse", "better", "both")

#: The built-in measures by name (``subroc_ext.workflow.steps.MEASURES`` maps
#: each to its class).
MEASURE_NAMES = ("roc_auc", "pr_auc", "arl", "attribution_mean")

#: Built-in measures searched on request (``subroc_ext.workflow.steps.REQUESTED_MEASURES``),
#: described in a table only when searched: the normalized PR AUC.
REQUESTED_MEASURE_NAMES = ("pr_auc_normalized",)

#: The calibration measures by name (``subroc_ext.workflow.steps.CALIBRATION_MEASURES``):
#: :func:`~subroc_ext.find_subgroups` searches them, but they are not computed
#: for every table, as they read the scores as probabilities.
CALIBRATION_MEASURE_NAMES = ("calibration_gap", "brier", "log_loss")

#: The calibration gap's other names of 'worse' and 'better'.
CALIBRATION_MODES = ("under", "over")

#: How scores become probabilities for the expected ROC AUC
#: (:func:`subroc_ext.inputs.probabilities.fit_probabilities`): 'auto' uses
#: scores in [0, 1] as given and fits a sigmoid to others; 'none' never
#: recalibrates (scores outside [0, 1] are an error).
CALIBRATIONS = ("auto", "none", "isotonic", "sigmoid")

#: How to install the optional Dask extra.
INSTALL = "pip install 'subroc-ext[dask]'"

#: The kinds of effect interval shown beside the decision
#: (:mod:`subroc_ext.inference.verdicts`).
INTERVALS = ("fcr", "simultaneous")
