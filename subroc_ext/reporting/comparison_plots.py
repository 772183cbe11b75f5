"""Pictures of comparisons: both ROC curves of each subgroup.

:func:`plot_comparison_roc_curves` draws, for each of the top subgroups of a
:func:`~subroc_ext.find_regressions` or :func:`~subroc_ext.find_drift` table,
one panel with the subgroup's ROC curve for both sides (baseline and new
model on the same rows, or the reference and the current period) and, thin,
each side's curve on the whole data.
"""

import numpy as np

from ..metrics.kernels import roc_auc_score, roc_curve
from ..workflow.diversity import cover_matrix
from .figure_text import plain_text, wrapped_name

__all__ = ["plot_comparison_roc_curves"]


def plot_comparison_roc_curves(table, data, current=None, *, top=4, axes=None):
    """Both ROC curves of each of the top subgroups of a comparison.

    Parameters
    ----------
    table : pandas.DataFrame
        From :func:`~subroc_ext.find_regressions` (its ``attrs`` name the
        label, the new model's and the baseline's score columns) or
        :func:`~subroc_ext.find_drift`.
    data : pandas.DataFrame
        Paired: rows with both score columns (e.g. the validation split).
        Unpaired: the reference period's rows.
    current : pandas.DataFrame, optional
        Unpaired only: the current period's rows.
    top : int, default=4
        Number of subgroups (panels), best first.
    axes : sequence of matplotlib.axes.Axes, optional
        One per panel; by default a new figure with a row of panels.

    Returns
    -------
    matplotlib.figure.Figure
        Each panel's title is the subgroup's rank (its ``rank`` column, else
        its position), conditions (one per line) and ``delta_validation``; each legend entry gives the side's ROC AUC on the subgroup (or the
        whole data); a panel whose subgroup lacks a class on a side omits
        that side's curve.
    """
    attrs = table.attrs
    label, positive = attrs["label"], attrs["positive_label"]
    if current is None:
        sides = [("baseline", data, attrs["baseline"]), ("new", data, attrs["score"])]
    else:
        sides = [("reference", data, attrs["score"]), ("current", current, attrs["score"])]
    subgroups = list(table["subgroup"][:top])
    if axes is None:
        try:  # matplotlib is optional; a Figure needs no pyplot backend
            from matplotlib.figure import Figure
        except ImportError as error:
            raise ImportError(
                "plotting needs matplotlib; install it with: pip install subroc-ext[plot]"
            ) from error
        panels = max(len(subgroups), 1)
        axes = Figure(figsize=(3.6 * panels, 3.6), layout="constrained").subplots(
            1, panels, squeeze=False
        )[0]
    figure = axes[0].figure
    covers = {name: cover_matrix(subgroups, frame) for name, frame, _ in sides}
    for index, (ax, subgroup) in enumerate(zip(axes, subgroups)):
        for (name, frame, score), color in zip(sides, ("tab:blue", "tab:red")):
            y, s = frame[label].to_numpy(), frame[score].to_numpy()
            for rows, width, what in ((np.ones(len(frame), bool), 0.8, "all"),
                                      (covers[name][index], 2.0, "subgroup")):  # fmt: skip
                is_positive = y[rows] == positive
                if is_positive.all() or not is_positive.any():
                    continue
                fpr, tpr, _ = roc_curve(is_positive, s[rows], positive_label=True)
                auc = roc_auc_score(is_positive, s[rows], positive_label=True)
                ax.plot(fpr, tpr, color=color, linewidth=width, alpha=1.0 if what == "subgroup" else 0.5,
                        label=f"{name}, {what}: {auc:.3f}")  # fmt: skip
        ax.plot([0, 1], [0, 1], color="grey", linestyle=":", linewidth=0.8)
        delta = table["delta_validation"].iloc[index] if "delta_validation" in table else np.nan
        rank = table["rank"].iloc[index] if "rank" in table else index + 1
        ax.set(title=f"#{rank} {wrapped_name(subgroup, 40)}"
                     + ("" if np.isnan(delta) else f"\nΔ validation {delta:+.3f}"),
               xlabel="false positive rate", ylabel="true positive rate", aspect="equal")  # fmt: skip
        ax.title.set_fontsize(9)
        ax.legend(fontsize=8, loc="lower right")
    return plain_text(figure)
