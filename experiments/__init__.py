"""Reproduction of the SubROC paper's experiments with subroc-ext.

Run them all with ``python -m experiments.run_all`` (``--smoke`` for a quick
check); see ``experiments/README.md`` and ``experiments/RESULTS.md``.
"""
